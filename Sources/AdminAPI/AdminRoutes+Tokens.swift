import Foundation
import Hummingbird

extension AdminRoutes {
    /// `POST /2010-04-01/Accounts/{AccountSid}/Tokens.json`, Twilio's Network
    /// Traversal Service (PROTOCOL.md section 9): 201 with TURN credentials
    /// for the configured TURN server, valid for the form's `Ttl` seconds
    /// (default `turn.ttl`; at most the larger of `turn.ttl` and a day, so a
    /// back end cannot mint credentials that outlive what the operator set
    /// by more than Twilio's default). The path's AccountSid is not checked (the
    /// Basic credentials are; helper libraries put the API key or the
    /// Twilio account there); `account_sid` is this server's, as in every
    /// resource. Without TURN configured the answer is still 201, with an
    /// empty `ice_servers` and null `username` and `password`: a back end
    /// that hands `ice_servers` to its clients goes on working (Vroom's
    /// media port is reachable without a relay), where an error would fail
    /// every token request of a deployment that needs no TURN.
    func createToken<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(CreateTokenForm.self, request, context)
        let longest = max(configuration.turn?.ttl ?? 0, 86_400)
        let invalid = RESTError.invalidParameter("Ttl must be an integer number of seconds in 1...\(longest)")
        let requested = try FormText.integer(form.ttl, or: invalid)
        if let requested, !(1...longest).contains(requested) { throw invalid }
        let now = Date()
        let ttl = requested ?? configuration.turn?.ttl ?? 86_400
        var token = TokenResource(
            accountSID: configuration.accountSID, dateCreated: RFC2822Date.string(from: now),
            dateUpdated: RFC2822Date.string(from: now), iceServers: [], password: nil, ttl: String(ttl), username: nil)
        if let turn = configuration.turn {
            // The name after the expiry only tells tokens apart (coturn reads the expiry alone).
            let id = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            let credential = turn.credential(for: id, now: now, ttl: ttl)
            token.username = credential.username
            token.password = credential.password
            token.iceServers = turn.urls.map {
                TokenResource.IceServer(url: $0, urls: $0, username: credential.username, credential: credential.password)
            }
        }
        return try JSONBody.response(token, status: .created)
    }
}

/// `POST …/Tokens.json`.
struct CreateTokenForm: Decodable {
    var ttl: FormText?

    enum CodingKeys: String, CodingKey {
        case ttl = "Ttl"
    }
}

/// Twilio's `api.v2010.account.token`: dates RFC 2822, `ttl` a string, one
/// URL per ICE server, as a string, under both `url` and `urls`.
struct TokenResource: Encodable, Sendable {
    struct IceServer: Encodable, Sendable {
        var url: String
        var urls: String
        var username: String
        var credential: String
    }

    var accountSID: String
    var dateCreated: String
    var dateUpdated: String
    var iceServers: [IceServer]
    @JSONNullable var password: String?
    var ttl: String
    @JSONNullable var username: String?

    enum CodingKeys: String, CodingKey {
        case accountSID = "account_sid", dateCreated = "date_created", dateUpdated = "date_updated"
        case iceServers = "ice_servers", password, ttl, username
    }
}
