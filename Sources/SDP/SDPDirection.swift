/// A media direction attribute (RFC 8866 section 6.7): `a=sendrecv`,
/// `a=sendonly`, `a=recvonly`, `a=inactive`. Also used after a slash in
/// `a=extmap:2/recvonly ...` (RFC 8285).
public enum SDPDirection: String, Equatable, Hashable, Sendable, CaseIterable {
    case sendrecv
    case sendonly
    case recvonly
    case inactive

    /// Whether the side that wrote this sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the side that wrote this receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The direction the other side answers with (RFC 8829 section 5.3.1).
    public var reversed: SDPDirection {
        switch self {
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        case .sendrecv, .inactive: self
        }
    }
}
