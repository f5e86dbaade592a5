/// `a=setup:` (RFC 4145 section 4, RFC 8842): who starts DTLS. Offers say
/// `actpass`; the answerer picks `active` (DTLS client) or `passive`.
public enum SDPSetupRole: String, Equatable, Hashable, Sendable, CaseIterable {
    case actpass
    case active
    case passive
    case holdconn

    /// The answer's role for an offered role, preferring `passive` for an
    /// `actpass` offer (PROTOCOL.md section 5: the server is then DTLS server).
    public var answer: SDPSetupRole {
        switch self {
        case .actpass, .active: .passive
        case .passive: .active
        case .holdconn: .holdconn
        }
    }
}
