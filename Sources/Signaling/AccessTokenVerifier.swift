import AccessTokens
import Foundation
import JWTKit

/// Checks access tokens (PROTOCOL.md section 2) against the configured API
/// keys, with each refusal's exact code (section 4).
///
/// The header and payload are read here first (base64url JSON), so that a
/// malformed token (20101), a bad algorithm (20101) and an unknown or
/// mismatched key (20103) are told apart before any cryptography; jwt-kit
/// then checks the HS256 signature with the chosen key alone and reports a
/// mismatch as its own error (20107). Only after the signature holds are the
/// claims trusted: `exp` (20104), `nbf` (20105), grants (20106).
public struct AccessTokenVerifier: Sendable {
    /// Clock leeway on `exp` and `nbf`: 30 s covers ordinary NTP-less drift
    /// between the token's minter and this server.
    public static let leeway: TimeInterval = 30

    /// Longer tokens are refused unparsed (20101). A token with a room grant
    /// is about 400 bytes; 8 KiB is the usual HTTP header line limit.
    public static let maxTokenBytes = 8_192

    private let keys: [String: String]

    /// `keys` maps each API key to its secret.
    public init(keys: [String: String]) {
        self.keys = keys
    }

    /// Verifies `token` at time `now`.
    /// - Parameter checkingExpiry: `false` for a resume: "the access token must
    ///   still verify, but may have expired meanwhile" (PROTOCOL.md 3.6).
    public func verify(_ token: String, now: Date, checkingExpiry: Bool = true) async throws(AccessTokenError)
        -> AccessToken
    {
        guard token.utf8.count <= Self.maxTokenBytes else {
            throw AccessTokenError(.invalid, "token of \(token.utf8.count) bytes")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw AccessTokenError(.invalid, "not three dot-separated segments") }
        guard let headerData = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(TokenHeader.self, from: headerData)
        else { throw AccessTokenError(.invalid, "header is not base64url JSON object") }
        guard let payloadData = Base64URL.decode(parts[1]),
            let payload = try? JSONDecoder().decode(TokenPayload.self, from: payloadData)
        else { throw AccessTokenError(.invalid, "payload is not a base64url JSON object") }
        guard Base64URL.decode(parts[2]) != nil else { throw AccessTokenError(.invalid, "signature is not base64url") }

        // Only HS256: `none` and every other algorithm are refused, so neither
        // an unsigned token nor an RSA public key used as an HMAC secret can pass.
        guard let alg = header.alg.value else { throw AccessTokenError(.invalid, "no alg") }
        guard alg == "HS256" else { throw AccessTokenError(.invalid, "alg \(alg) (only HS256 is accepted)") }
        guard !header.hasCrit else { throw AccessTokenError(.invalid, "crit header") }

        let kid = try Self.optionalString(header.kid, "kid")
        let issuer = try Self.optionalString(payload.iss, "iss")
        if let kid, let issuer, kid != issuer {
            throw AccessTokenError(.issuerInvalid, "kid '\(kid)' differs from iss '\(issuer)'")
        }
        guard let apiKey = kid ?? issuer else { throw AccessTokenError(.issuerInvalid, "neither kid nor iss") }
        guard let secret = keys[apiKey] else { throw AccessTokenError(.issuerInvalid, "unknown API key '\(apiKey)'") }

        let collection = await JWTKeyCollection.hs256(apiKey: apiKey, secret: secret)
        do {
            _ = try await collection.verify(token, as: UncheckedClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw AccessTokenError(.signatureInvalid, "signature does not verify with the secret of '\(apiKey)'")
        } catch {
            throw AccessTokenError(.invalid, "jwt-kit: \(error)")
        }

        guard let exp = payload.exp.value, exp.isFinite else {
            throw AccessTokenError(.expired, "exp is missing or not a number")
        }
        let expiresAt = Date(timeIntervalSince1970: exp)
        if checkingExpiry, now.timeIntervalSince(expiresAt) > Self.leeway {
            throw AccessTokenError(.expired, "expired at \(expiresAt), now \(now)")
        }
        var notBefore: Date?
        switch payload.nbf {
        case .absent: break
        case .value(let nbf) where nbf.isFinite: notBefore = Date(timeIntervalSince1970: nbf)
        default: throw AccessTokenError(.invalid, "nbf is not a number")
        }
        if let notBefore, notBefore.timeIntervalSince(now) > Self.leeway {
            throw AccessTokenError(.notYetValid, "valid from \(notBefore), now \(now)")
        }

        guard let grants = payload.grants.value else {
            throw AccessTokenError(.grantsInvalid, "no grants object")
        }
        guard let identity = grants.identity.value else {
            throw AccessTokenError(.grantsInvalid, "no identity grant (grants.identity must be a string)")
        }
        var roomGrant: String?
        switch grants.video {
        case .absent: break
        case .wrongType: throw AccessTokenError(.grantsInvalid, "grants.video must be an object")
        case .value(let video):
            switch video.room {
            case .absent: break
            case .value(let room): roomGrant = room
            case .wrongType: throw AccessTokenError(.grantsInvalid, "grants.video.room must be a string")
            }
        }

        return AccessToken(
            apiKey: apiKey, identity: identity, roomGrant: roomGrant,
            subject: payload.sub.value, tokenID: payload.jti.value,
            notBefore: notBefore, expiresAt: expiresAt)
    }

    private static func optionalString(_ claim: TokenClaim<String>, _ name: String) throws(AccessTokenError) -> String? {
        switch claim {
        case .absent: nil
        case .value(let s): s
        case .wrongType: throw AccessTokenError(.invalid, "\(name) is not a string")
        }
    }
}

/// jwt-kit decodes the payload into this after the signature check; the
/// claims themselves are read above, with the protocol's codes and leeway.
private struct UncheckedClaims: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
