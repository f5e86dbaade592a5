import AccessTokens
import Foundation
import Hummingbird

extension Router {
    /// `GET /dev/token?identity=alice&room=standup`: an access token for the
    /// meeting page's join form (`{"token", "identity", "room"}`, an hour's
    /// lifetime), with `--dev` only, where the server listens on 127.0.0.1
    /// alone and signs with the well-known development key. Without an
    /// identity: 400.
    func addDevTokenRoute(issuer: AccessTokenIssuer) {
        get("/dev/token") { request, _ -> Response in
            let identity = request.uri.queryParameters.get("identity") ?? ""
            let room = request.uri.queryParameters.get("room").flatMap { $0.isEmpty ? nil : $0 }
            let body: DevToken
            let status: HTTPResponse.Status
            if identity.isEmpty {
                (body, status) = (DevToken(message: "identity is required: /dev/token?identity=alice&room=standup"), .badRequest)
            } else {
                let token = try await issuer.sign(identity: identity, room: room, ttl: 3600)
                (body, status) = (DevToken(token: token, identity: identity, room: room), .ok)
            }
            return Response(
                status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
        }
    }
}

/// What `GET /dev/token` answers: the token, or why not.
private struct DevToken: Encodable {
    var token: String?
    var identity: String?
    var room: String?
    var message: String?
}
