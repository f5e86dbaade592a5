import Crypto
import Foundation
import Hummingbird

/// HTTP Basic auth with `apiKey:apiSecret` for the admin REST routes
/// (PROTOCOL.md section 6); anything else gets 401 with code 20003.
/// The signaling socket is not behind it (its token is checked at `join`).
struct RESTAuthentication<Context: RequestContext>: RouterMiddleware {
    let apiKey: String
    let apiSecret: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], Self.verify(header, key: apiKey, secret: apiSecret) else {
            return RESTError.authentication.response()
        }
        return try await next(request, context)
    }

    /// Whether `Authorization` carries exactly `key:secret`. Both parts are
    /// always compared in full and in constant time, so the time taken does
    /// not tell how many leading bytes of a guess were right: each side is
    /// hashed (which also hides the lengths) and swift-crypto compares the
    /// digests in constant time, as it does MACs (`WebhookSignature`).
    static func verify(_ header: String, key: String, secret: String) -> Bool {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces))
        else { return false }
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let keyMatches = SHA256.hash(data: decoded[..<colon]) == SHA256.hash(data: Data(key.utf8))
        let secretMatches = SHA256.hash(data: decoded[(colon + 1)...]) == SHA256.hash(data: Data(secret.utf8))
        return keyMatches && secretMatches
    }
}
