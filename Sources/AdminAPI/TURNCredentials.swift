import Crypto
import Foundation

/// A TURN server that shares a secret with this node (PROTOCOL.md section 9):
/// the TURN REST API's time-limited credentials, which coturn checks with
/// `use-auth-secret` / `static-auth-secret`. Nothing is stored: the TURN
/// server recomputes the credential from the username.
public struct TURNConfiguration: Sendable, Equatable {
    /// `turn:` / `turns:` URLs, as clients are to use them.
    public var urls: [String]
    /// The shared secret (coturn's `static-auth-secret`).
    public var secret: String
    /// Lifetime of a credential in seconds.
    public var ttl: Int

    public init(urls: [String], secret: String, ttl: Int = 86_400) {
        self.urls = urls
        self.secret = secret
        self.ttl = ttl
    }

    /// A credential for `name` (a participant SID, or a token's own ID),
    /// valid until `now + ttl` (the configured lifetime unless given).
    public func credential(for name: String, now: Date, ttl: Int? = nil) -> TURNCredential {
        let expiry = Int(now.timeIntervalSince1970.rounded(.down)) + (ttl ?? self.ttl)
        let username = "\(expiry):\(name)"
        return TURNCredential(username: username, password: Self.password(secret: secret, username: username), expiry: expiry)
    }

    /// base64(HMAC-SHA1(secret, username)): the TURN REST API's password.
    public static func password(secret: String, username: String) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(mac).base64EncodedString()
    }
}

/// One time-limited TURN credential: username `<unix expiry>:<name>`.
public struct TURNCredential: Sendable, Equatable {
    public var username: String
    public var password: String
    /// Unix time after which the TURN server refuses it.
    public var expiry: Int
}
