import Crypto
import Foundation

/// What the admin REST API (PROTOCOL.md section 6) needs to know about the
/// node: the credentials of HTTP Basic auth, the `account_sid` printed in
/// every resource and the base of absolute `url`s.
public struct AdminConfiguration: Sendable, Equatable {
    /// The Basic-auth username (the API key that also signs tokens).
    public var apiKey: String
    /// The Basic-auth password.
    public var apiSecret: String
    /// `account_sid` of every resource: `AC` + 32 hex digits.
    public var accountSID: String
    /// Base of `url`, `links` and page URLs, e.g. `https://video.example.com`
    /// (no trailing slash needed); nil: `scheme` + `://` + the request's Host header.
    public var publicURL: String?
    /// The scheme requests come in by: `https` when the HTTP port speaks TLS.
    public var scheme: String
    /// The TURN server whose credentials `POST /2010-04-01/Accounts/{AccountSid}/Tokens.json`
    /// hands out (PROTOCOL.md section 9); nil: none, `ice_servers` is empty.
    public var turn: TURNConfiguration?

    /// - Parameter accountSID: nil derives one from the API key (``derivedAccountSID(apiKey:)``).
    public init(
        apiKey: String, apiSecret: String, accountSID: String? = nil, publicURL: String? = nil,
        scheme: String = "http", turn: TURNConfiguration? = nil
    ) {
        self.apiKey = apiKey
        self.scheme = scheme
        self.turn = turn
        self.apiSecret = apiSecret
        self.accountSID = accountSID ?? Self.derivedAccountSID(apiKey: apiKey)
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    /// `AC` + the first 32 hex digits of SHA-256(apiKey): stable for a key,
    /// shaped like Twilio's (`^AC[0-9a-fA-F]{32}$`) so helper libraries accept it.
    public static func derivedAccountSID(apiKey: String) -> String {
        let digest = SHA256.hash(data: Data(apiKey.utf8))
        return "AC" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
