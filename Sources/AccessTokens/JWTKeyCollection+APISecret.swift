import Foundation
import JWTKit

extension JWTKeyCollection {
    /// A collection whose default (and only) key is HS256 with this API secret.
    ///
    /// jwt-kit's HMAC signer asserts (in debug builds) that the key has at
    /// least 32 bytes, but API secrets may be shorter (`devsecret` has 9).
    /// HMAC zero-pads every key shorter than the hash's 64-byte block
    /// (RFC 2104, section 2), so padding with zeros up to 32 bytes gives the
    /// very same MACs; the tests check this against Python's `hmac`.
    public static func hs256(apiKey: String, secret: String) async -> JWTKeyCollection {
        var bytes = Array(secret.utf8)
        if bytes.count < 32 { bytes += [UInt8](repeating: 0, count: 32 - bytes.count) }
        return await JWTKeyCollection().add(
            hmac: HMACKey(from: bytes), digestAlgorithm: .sha256, kid: JWKIdentifier(string: apiKey))
    }
}
