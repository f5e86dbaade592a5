/// PLI: Picture Loss Indication, payload-specific feedback PSFB FMT 1
/// (RFC 4585 sections 6.1 and 6.3.1). No FCI: the header says it all.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |   PT=PSFB=206 |          length=2             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct PictureLossIndicationView {
    /// FMT 1 of PSFB.
    @inlinable public static var format: UInt8 { 1 }

    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole PLI packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PSFB FMT 1 and both SSRCs. Bytes
    /// after them (there should be none) are ignored.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        self.bytes = try packet.feedbackBody(type: RTCPPacketType.payloadFeedback, format: Self.format)
    }

    /// SSRC of the packet sender.
    @inlinable public var senderSSRC: SSRC { SSRC(bytes.u32(4)) }
    /// SSRC of the stream that needs a keyframe.
    @inlinable public var mediaSSRC: SSRC { SSRC(bytes.u32(8)) }
}

/// A PLI to write: fixed size, no array, so the SFU can send one from the
/// packet path without allocating.
public struct PictureLossIndication: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var senderSSRC: SSRC
    public var mediaSSRC: SSRC

    @inlinable
    public init(senderSSRC: SSRC, mediaSSRC: SSRC) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    @inlinable
    public init(_ view: PictureLossIndicationView) {
        self.init(senderSSRC: view.senderSSRC, mediaSSRC: view.mediaSSRC)
    }

    /// 12 bytes.
    @inlinable public var encodedSize: Int { 12 }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        try checkRTCPWrite(size: 12, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: PictureLossIndicationView.format, packetType: RTCPPacketType.payloadFeedback,
            totalLength: 12)
        buffer.setU32(senderSSRC.rawValue, at: 4)
        buffer.setU32(mediaSSRC.rawValue, at: 8)
        return 12
    }
}
