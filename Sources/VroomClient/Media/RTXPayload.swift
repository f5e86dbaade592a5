/// What an RTX packet (RFC 4588 section 4) on the subscriber connection
/// carries, read from its payload (after the header, without padding):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         RTP Header                            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |            OSN                |                               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
///     |                  Original RTP Packet Payload                  |
///
/// A probe (the server's padding-only packets, which measure our downlink)
/// carries no media and is dropped once transport-cc has its arrival; a
/// repair is the original packet's sequence number and payload.
enum RTXPayload: Equatable {
    /// No payload, or an OSN with nothing after it: no media to deliver.
    case probe
    /// One byte: not even an OSN.
    case malformed
    /// The original packet's sequence number; its payload follows the
    /// OSN (`headerSize` bytes in).
    case repair(originalSequenceNumber: UInt16)

    init(_ payload: UnsafeRawBufferPointer) {
        switch payload.count {
        case 0, 2: self = .probe
        case 1: self = .malformed
        default: self = .repair(originalSequenceNumber: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        }
    }

    /// Bytes before the original payload.
    static let headerSize = 2
}
