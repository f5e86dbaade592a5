import Crypto
import Foundation

/// The `X-Vroom-Signature` header (PROTOCOL.md section 6): Twilio's
/// `X-Twilio-Signature` scheme with HMAC-SHA256 instead of HMAC-SHA1,
/// keyed with the API secret.
///
/// - Form callbacks (POST): base64(HMAC-SHA256(secret, URL + every
///   parameter sorted by name, each as name + value)), URL exactly as
///   requested.
/// - GET callbacks carry the parameters in the query string, so, as Twilio
///   does, the signed text is the full URL with its query and nothing after.
/// - JSON callbacks: base64(HMAC-SHA256(secret, URL + raw body bytes)).
///
/// A receiver recomputes it from the URL it published and the parameters
/// it received, and compares in constant time.
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "X-Vroom-Signature"

    /// Signature of a form callback: `url` + sorted `name+value` pairs.
    public static func sign(url: String, parameters: [(name: String, value: String)], secret: String) -> String {
        sign(bytes: signedText(url: url, parameters: parameters), secret: secret)
    }

    /// Signature of a JSON callback: `url` followed by the body's bytes.
    public static func sign(url: String, body: Data, secret: String) -> String {
        sign(bytes: Data(url.utf8) + body, secret: secret)
    }

    /// True when `signature` is the signature of the form callback. swift-crypto
    /// compares the MACs in constant time (no early exit that would leak a
    /// prefix match); a signature that is not base64 is simply wrong.
    public static func isValid(
        _ signature: String, url: String, parameters: [(name: String, value: String)], secret: String
    ) -> Bool {
        guard let mac = Data(base64Encoded: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: signedText(url: url, parameters: parameters), using: SymmetricKey(data: Data(secret.utf8)))
    }

    private static func signedText(url: String, parameters: [(name: String, value: String)]) -> Data {
        var text = url
        for parameter in parameters.sorted(by: { $0.name < $1.name || ($0.name == $1.name && $0.value < $1.value) }) {
            text += parameter.name
            text += parameter.value
        }
        return Data(text.utf8)
    }

    private static func sign(bytes: Data, secret: String) -> String {
        let key = SymmetricKey(data: Data(secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: key)
        return Data(mac).base64EncodedString()
    }
}
