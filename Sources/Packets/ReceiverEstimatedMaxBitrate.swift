/// REMB: Receiver Estimated Maximum Bitrate, an application-layer feedback
/// message in PSFB FMT 15 (draft-alvestrand-rmcat-remb-03 section 2.2;
/// the AFB framing is RFC 4585 section 6.4).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source (0)                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   SSRC feedback                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ...                                                          |
/// ```
/// The bitrate is mantissa * 2^exp bits per second (6-bit exponent,
/// 18-bit mantissa).
public struct ReceiverEstimatedMaxBitrateView {
    /// FMT 15 of PSFB (application-layer feedback).
    @inlinable public static var format: UInt8 { 15 }
    /// "REMB" in ASCII.
    @inlinable public static var identifier: UInt32 { 0x5245_4D42 }

    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Whether a PSFB FMT 15 packet carries the "REMB" identifier (other
    /// application-layer feedback uses the same FMT).
    @inlinable
    public static func hasIdentifier(_ packet: RTCPPacketView) -> Bool {
        let bytes = packet.unpadded
        return bytes.count >= 16 && bytes.u32(12) == identifier
    }

    /// Validates one whole REMB packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PSFB FMT 15, the "REMB"
    /// identifier, and Num SSRC SSRCs inside the body.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        let bytes = try packet.feedbackBody(
            type: RTCPPacketType.payloadFeedback, format: Self.format, minimumSize: 20)
        guard bytes.u32(12) == Self.identifier else { throw .invalidType }
        guard bytes.count >= 20 + 4 * Int(bytes.u8(16)) else { throw .invalidLength }
        self.bytes = bytes
    }

    /// SSRC of the packet sender.
    @inlinable public var senderSSRC: SSRC { SSRC(bytes.u32(4)) }
    /// SSRC of the media source: 0 by the draft.
    @inlinable public var mediaSSRC: SSRC { SSRC(bytes.u32(8)) }
    /// The 6-bit exponent.
    @inlinable public var bitrateExponent: UInt8 { bytes.u8(17) >> 2 }
    /// The 18-bit mantissa.
    @inlinable public var bitrateMantissa: UInt32 { bytes.u32(16) & 0x3_FFFF }
    /// mantissa * 2^exp in bits per second, saturating at `UInt64.max`
    /// (exponents above 46 can overflow 64 bits; no real sender uses them).
    @inlinable public var bitrate: UInt64 {
        let mantissa = UInt64(bitrateMantissa)
        let exponent = Int(bitrateExponent)
        guard mantissa != 0 else { return 0 }
        guard mantissa.leadingZeroBitCount >= exponent else { return .max }
        return mantissa << exponent
    }
    /// The SSRCs the estimate applies to.
    @inlinable public var ssrcs: RTCPSSRCList { RTCPSSRCList(bytes: bytes, offset: 20, count: Int(bytes.u8(16))) }
}

/// A REMB to write. For the usual one-SSRC estimate on the packet path, use
/// the array-free `write(senderSSRC:bitrate:ssrc:to:)`.
public struct ReceiverEstimatedMaxBitrate: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var senderSSRC: SSRC
    /// 0 by the draft.
    public var mediaSSRC: SSRC
    /// Bits per second. Written as an 18-bit mantissa and an exponent,
    /// rounded down (never announce more than estimated): exact below
    /// 262,144 bit/s, within 1/131,072 relative above. See `quantizedBitrate`.
    public var bitrate: UInt64
    /// At most 255 (the 8-bit Num SSRC field).
    public var ssrcs: [SSRC]

    public init(senderSSRC: SSRC, mediaSSRC: SSRC = SSRC(0), bitrate: UInt64, ssrcs: [SSRC]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    public init(_ view: ReceiverEstimatedMaxBitrateView) {
        self.init(
            senderSSRC: view.senderSSRC, mediaSSRC: view.mediaSSRC, bitrate: view.bitrate,
            ssrcs: Array(view.ssrcs))
    }

    /// The smallest exponent whose mantissa fits 18 bits, and that mantissa
    /// (the bitrate shifted right, so rounded down), as libwebrtc picks them.
    @inlinable
    public static func encode(bitrate: UInt64) -> (exponent: UInt8, mantissa: UInt32) {
        var exponent = 0
        while bitrate >> exponent > 0x3_FFFF { exponent += 1 }
        return (UInt8(exponent), UInt32(truncatingIfNeeded: bitrate >> exponent))
    }

    /// The bitrate a reader of the written packet sees.
    @inlinable public var quantizedBitrate: UInt64 {
        let (exponent, mantissa) = Self.encode(bitrate: bitrate)
        return UInt64(mantissa) << exponent
    }

    @inlinable public var encodedSize: Int { 20 + 4 * ssrcs.count }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard ssrcs.count <= 255 else { throw .valueOutOfRange }
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        Self.writeFixedPart(
            buffer, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, bitrate: bitrate, ssrcCount: ssrcs.count,
            size: size)
        var offset = 20
        for ssrc in ssrcs {
            buffer.setU32(ssrc.rawValue, at: offset)
            offset += 4
        }
        return size
    }

    /// Writes a REMB for one SSRC (24 bytes) without building an array.
    @inlinable
    public static func write(
        senderSSRC: SSRC, bitrate: UInt64, ssrc: SSRC, to buffer: UnsafeMutableRawBufferPointer
    ) throws(PacketError) -> Int {
        try checkRTCPWrite(size: 24, into: buffer)
        writeFixedPart(buffer, senderSSRC: senderSSRC, mediaSSRC: SSRC(0), bitrate: bitrate, ssrcCount: 1, size: 24)
        buffer.setU32(ssrc.rawValue, at: 20)
        return 24
    }

    @inlinable
    static func writeFixedPart(
        _ buffer: UnsafeMutableRawBufferPointer, senderSSRC: SSRC, mediaSSRC: SSRC, bitrate: UInt64,
        ssrcCount: Int, size: Int
    ) {
        writeRTCPHeader(
            buffer, countOrFormat: ReceiverEstimatedMaxBitrateView.format,
            packetType: RTCPPacketType.payloadFeedback, totalLength: size)
        buffer.setU32(senderSSRC.rawValue, at: 4)
        buffer.setU32(mediaSSRC.rawValue, at: 8)
        buffer.setU32(ReceiverEstimatedMaxBitrateView.identifier, at: 12)
        let (exponent, mantissa) = encode(bitrate: bitrate)
        buffer.setU32(UInt32(ssrcCount) << 24 | UInt32(exponent) << 18 | mantissa, at: 16)
    }
}
