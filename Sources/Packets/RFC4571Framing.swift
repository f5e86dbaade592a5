/// RFC 4571 framing of RTP, RTCP, STUN and DTLS on a TCP stream (the
/// framing ICE-TCP uses, RFC 6544 section 3):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// ---------------------------------------------------------------
/// |             LENGTH            |  RTP or RTCP packet ...       |
/// ---------------------------------------------------------------
/// ```
///
/// LENGTH is the packet's byte count, big-endian. Pure functions over the
/// caller's bytes: the stream owner decides what a bad frame costs.
public enum RFC4571Framing {
    /// The length prefix.
    public static let headerLength = 2

    /// The largest packet accepted: 1500 (an Ethernet MTU) plus 100 bytes of
    /// slack. Chromium sends DTLS and RTP at most ~1200 bytes per frame on
    /// ICE-TCP too, so anything longer is an attack or a lost boundary; it
    /// also fits a media worker's 2048-byte ring slots with SRTP's 144 spare.
    public static let maximumPacketLength = 1600

    /// What the front of a receive buffer holds.
    public enum Next: Equatable, Sendable {
        /// A whole packet at `offset` (just past its prefix), `length` bytes.
        case packet(offset: Int, length: Int)
        /// A prefix or packet not yet complete: read more.
        case incomplete
        /// A length of 0 or over `maximumPacketLength`: the stream is corrupt.
        case invalidLength(Int)
    }

    /// Reads the frame at the start of `bytes`.
    @inline(__always)
    public static func next(in bytes: UnsafeRawBufferPointer, maximum: Int = maximumPacketLength) -> Next {
        guard bytes.count >= headerLength else { return .incomplete }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard length > 0, length <= maximum else { return .invalidLength(length) }
        guard bytes.count >= headerLength + length else { return .incomplete }
        return .packet(offset: headerLength, length: length)
    }

    /// Writes the prefix for a `length`-byte packet at `out[0..<2]`.
    @inline(__always)
    public static func writeHeader(length: Int, to out: UnsafeMutableRawBufferPointer) {
        out[0] = UInt8(truncatingIfNeeded: length >> 8)
        out[1] = UInt8(truncatingIfNeeded: length)
    }
}
