/// Why an access token was refused, with Twilio's code (PROTOCOL.md section 4).
/// `detail` says exactly what was wrong, for the server's log; the client is
/// sent only the code's table message (``signalingError``), so a probe learns
/// no more than Twilio would tell it.
public struct AccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Int, Sendable, CaseIterable {
        /// 20101: malformed, or `alg` other than HS256 (never `none`).
        case invalid = 20101
        /// 20103: `kid`/`iss` is not a known API key, names none, or the two differ.
        case issuerInvalid = 20103
        /// 20104: `exp` passed (beyond the leeway), or missing or not a number.
        case expired = 20104
        /// 20105: `nbf` not reached (beyond the leeway).
        case notYetValid = 20105
        /// 20106: no identity grant, or the room grant does not allow this room.
        case grantsInvalid = 20106
        /// 20107: the signature does not verify with the key's secret.
        case signatureInvalid = 20107

        /// The same code in the protocol's full table.
        public var signalingCode: SignalingErrorCode {
            switch self {
            case .invalid: .accessTokenInvalid
            case .issuerInvalid: .accessTokenIssuerInvalid
            case .expired: .accessTokenExpired
            case .notYetValid: .accessTokenNotYetValid
            case .grantsInvalid: .accessTokenGrantsInvalid
            case .signatureInvalid: .accessTokenSignatureInvalid
            }
        }
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// What to send: the code with its table message.
    public var signalingError: SignalingError { SignalingError(code.signalingCode) }

    public var description: String { "\(code.rawValue) \(code.signalingCode.name): \(detail)" }
}
