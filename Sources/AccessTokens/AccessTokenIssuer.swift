import Foundation
import JWTKit

/// Mints access tokens (PROTOCOL.md section 2) signed with one API key:
/// for `vroom-server token`, the demo page, `vroom-loadtest` and tests. The
/// one minting code path: this small module imports only jwt-kit, so the
/// server (Signaling verifies with the same key setup) and the load tester
/// (which may not import server modules, DESIGN.md) both use it, like
/// Twilio's helper libraries' `AccessToken`.
public struct AccessTokenIssuer: Sendable {
    public let apiKey: String
    private let apiSecret: String

    public init(apiKey: String, apiSecret: String) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
    }

    /// A signed token for `identity`, valid from `now` for `ttl` seconds
    /// (whole seconds: `exp` is an integer NumericDate).
    /// - Parameters:
    ///   - room: the room grant (a unique name or SID); `nil` allows any room.
    ///   - notBefore: written as `nbf` when given; by default the token has none.
    ///   - subject: `sub`, free text; defaults to the API key.
    ///   - tokenID: `jti`; defaults to the API key, the issue time and a random part.
    public func sign(
        identity: String, room: String? = nil, ttl: TimeInterval = 3600, now: Date = Date(),
        notBefore: Date? = nil, subject: String? = nil, tokenID: String? = nil
    ) async throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let claims = IssuedClaims(
            iss: apiKey,
            sub: subject ?? apiKey,
            jti: tokenID ?? "\(apiKey)-\(issuedAt)-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))",
            nbf: notBefore.map { Int64($0.timeIntervalSince1970.rounded(.down)) },
            exp: issuedAt + Int64(ttl.rounded(.down)),
            grants: .init(identity: identity, video: room.map { .init(room: $0) }))
        let collection = await JWTKeyCollection.hs256(apiKey: apiKey, secret: apiSecret)
        return try await collection.sign(claims, kid: JWKIdentifier(string: apiKey))
    }
}

/// The payload as PROTOCOL.md section 2 shows it; `nil` fields are left out.
private struct IssuedClaims: JWTPayload {
    struct Grants: Codable {
        struct Video: Codable {
            var room: String
        }

        var identity: String
        var video: Video?
    }

    var iss: String
    var sub: String
    var jti: String
    var nbf: Int64?
    var exp: Int64
    var grants: Grants

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
