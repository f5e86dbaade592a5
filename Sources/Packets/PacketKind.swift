/// What a datagram on the shared media port is, by its first byte (RFC 7983
/// section 7) and, for RTP/RTCP, its second (RFC 5761 section 4).
///
/// ```
///              +----------------+
///              |        [0..3] -+--> forward to STUN
///              |                |
///              |      [16..19] -+--> forward to ZRTP
///              |                |
///  packet -->  |      [20..63] -+--> forward to DTLS
///              |                |
///              |      [64..79] -+--> forward to TURN Channel
///              |                |
///              |    [128..191] -+--> forward to RTP/RTCP
///              +----------------+
/// ```
public enum PacketKind: Equatable, Hashable, Sendable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtp
    case rtcp
    /// Empty, or a first byte in none of the ranges above: drop and count.
    case unknown

    /// Classifies a datagram. Reads at most two bytes; never fails.
    @inlinable
    public init(classifying datagram: UnsafeRawBufferPointer) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            // RTCP packet types 192-223 sit where an RTP header has the marker
            // bit set and a payload type of 64-95, which RFC 5761 reserves.
            if datagram.count >= 2, (192...223).contains(datagram[1]) {
                self = .rtcp
            } else {
                self = .rtp
            }
        default: self = .unknown
        }
    }
}
