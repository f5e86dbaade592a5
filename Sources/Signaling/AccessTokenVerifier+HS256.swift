import AccessTokens
import JWTKit

extension AccessTokenVerifier {
    /// The HS256 MAC of `message` under `secret`, exactly as tokens are
    /// signed. Lets tests craft tokens with any header and payload bytes.
    static func hs256MAC(secret: String, message: [UInt8]) async throws -> [UInt8] {
        try await JWTKeyCollection.hs256(apiKey: "", secret: secret).getKey().sign(message)
    }
}
