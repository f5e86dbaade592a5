/// Why a packet was refused. Every parser in `Packets` validates its input
/// once, up front, and reports a malformed packet as one of these: never a
/// trap, an out-of-bounds read or an allocation (a trivial enum thrown with
/// typed `throws(PacketError)` is returned in registers, not boxed).
public enum PacketError: Error, Equatable, Hashable, Sendable {
    /// Fewer bytes than the header or a length field requires.
    case truncated
    /// The version bits are not the ones the format requires (RTP/RTCP: 2).
    case invalidVersion
    /// The padding bit or count is inconsistent with the packet length.
    case invalidPadding
    /// A length field disagrees with the bytes present.
    case invalidLength
    /// A malformed RTP header extension block or element (RFC 8285).
    case invalidHeaderExtension
    /// A type field names something this parser does not take.
    case invalidType
    /// A malformed field inside a known packet type (STUN attribute, RTCP item, VP8 descriptor...).
    case invalidField
    /// STUN: the magic cookie is not 0x2112A442.
    case invalidMagicCookie
    /// STUN: MESSAGE-INTEGRITY does not match the key.
    case integrityMismatch
    /// STUN: FINGERPRINT does not match the message's CRC-32.
    case fingerprintMismatch
    /// A writer was given a buffer smaller than `encodedSize`.
    case bufferTooSmall
    /// A value does not fit its field (an in-place setter or a writer).
    case valueOutOfRange
}
