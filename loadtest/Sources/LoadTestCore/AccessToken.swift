import Crypto
import Foundation

/// Signs Vroom access tokens (PROTOCOL.md section 2): a JWT with HS256 over
/// the API secret, header `kid` = API key, `iss` = API key, and a video grant.
public struct AccessToken: Sendable {
    public var apiKey: String
    public var apiSecret: String

    public init(apiKey: String, apiSecret: String) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
    }

    /// A token for `identity`, allowed into `room` only, valid from 10 s ago
    /// (clock skew) for `ttl` seconds; `jti` makes each token unique.
    public func token(identity: String, room: String?, ttl: TimeInterval, now: Date = Date(), jti: String = UUID().uuidString) -> String {
        let issued = Int(now.timeIntervalSince1970)
        var video: [String: String] = [:]
        if let room { video["room"] = room }
        let payload = Payload(
            iss: apiKey, sub: "vroom-loadtest", jti: jti, nbf: issued - 10, exp: issued + Int(ttl.rounded(.up)),
            grants: .init(identity: identity, video: video))
        let header = Header(alg: "HS256", typ: "JWT", kid: apiKey)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding these plain structs cannot fail.
        let headerJSON = try! encoder.encode(header)
        let payloadJSON = try! encoder.encode(payload)
        return Self.sign(header: headerJSON, payload: payloadJSON, secret: Data(apiSecret.utf8))
    }

    /// The compact JWS of RFC 7515 section 7.1 with HS256:
    /// base64url(header) "." base64url(payload) "." base64url(HMAC-SHA256).
    public static func sign(header: Data, payload: Data, secret: Data) -> String {
        let signingInput = base64URL(header) + "." + base64URL(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: secret))
        return signingInput + "." + base64URL(Data(mac))
    }

    /// Base64url without padding (RFC 7515 section 2).
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    struct Header: Encodable {
        var alg: String
        var typ: String
        var kid: String
    }

    struct Payload: Encodable {
        struct Grants: Encodable {
            var identity: String
            var video: [String: String]
        }
        var iss: String
        var sub: String
        var jti: String
        var nbf: Int
        var exp: Int
        var grants: Grants
    }
}
