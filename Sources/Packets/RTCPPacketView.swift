/// The RTCP common header (RFC 3550 section 6.4.1, shared by every packet
/// type) and the compound packet that carries several packets back to back
/// (RFC 3550 section 6.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  RC/FMT |      PT       |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  type-specific body ...                       |
/// |                               ...      |  padding  | pad cnt  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// `length` is the packet's size in 32-bit words minus one, header and
/// padding included. With P set, the last octet counts the padding octets,
/// itself included.

/// RTCP packet type numbers (RFC 3550 section 12.1, RFC 4585 section 6.1).
public enum RTCPPacketType {
    /// SR, RFC 3550 section 6.4.1.
    @inlinable public static var senderReport: UInt8 { 200 }
    /// RR, RFC 3550 section 6.4.2.
    @inlinable public static var receiverReport: UInt8 { 201 }
    /// SDES, RFC 3550 section 6.5.
    @inlinable public static var sourceDescription: UInt8 { 202 }
    /// BYE, RFC 3550 section 6.6.
    @inlinable public static var goodbye: UInt8 { 203 }
    /// APP, RFC 3550 section 6.7.
    @inlinable public static var applicationDefined: UInt8 { 204 }
    /// RTPFB: transport-layer feedback (generic NACK, transport-cc), RFC 4585.
    @inlinable public static var transportFeedback: UInt8 { 205 }
    /// PSFB: payload-specific feedback (PLI, FIR, REMB), RFC 4585.
    @inlinable public static var payloadFeedback: UInt8 { 206 }
}

/// The size of the common header, in bytes.
@inlinable @inline(__always) var rtcpHeaderSize: Int { 4 }

/// Writes the common header. `totalLength` must be a multiple of 4 and at
/// most 262,144 (65,535 + 1 words); callers check this before writing.
@inlinable @inline(__always)
func writeRTCPHeader(
    _ buffer: UnsafeMutableRawBufferPointer, countOrFormat: UInt8, packetType: UInt8,
    padding: Bool = false, totalLength: Int
) {
    buffer.setU8(0x80 | (padding ? 0x20 : 0) | (countOrFormat & 0x1F), at: 0)
    buffer.setU8(packetType, at: 1)
    buffer.setU16(UInt16(truncatingIfNeeded: totalLength / 4 &- 1), at: 2)
}

/// The checks every writer makes before writing: the packet must fit its
/// 16-bit length field (65,536 words) and the caller's buffer.
@inlinable @inline(__always)
func checkRTCPWrite(size: Int, into buffer: UnsafeMutableRawBufferPointer) throws(PacketError) {
    guard size <= 0x4_0000 else { throw .valueOutOfRange }
    guard buffer.count >= size else { throw .bufferTooSmall }
}

/// One RTCP packet inside a compound packet: the common header, validated,
/// over the caller's bytes.
public struct RTCPPacketView {
    /// The whole packet: header, body and padding.
    public let bytes: UnsafeRawBufferPointer
    /// Padding octets at the end (0 without the P bit).
    public let paddingLength: Int

    /// Validates `bytes` as exactly one RTCP packet: version 2, a length
    /// field equal to `bytes.count`, and a padding count (if P is set) of at
    /// least 1 and at most the body size.
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        self.paddingLength = try rtcpPacketBounds(bytes, exactLength: true).padding
        self.bytes = bytes
    }

    @inlinable
    init(unchecked bytes: UnsafeRawBufferPointer, paddingLength: Int) {
        self.bytes = bytes
        self.paddingLength = paddingLength
    }

    /// The packet type (PT): see `RTCPPacketType`.
    @inlinable public var packetType: UInt8 { bytes.u8(1) }
    /// The 5-bit field after P: a report/source count (SR, RR, SDES, BYE) or
    /// a feedback message type (FMT, RTPFB and PSFB).
    @inlinable public var countOrFormat: UInt8 { bytes.u8(0) & 0x1F }
    /// Whether the P bit is set.
    @inlinable public var hasPadding: Bool { bytes.u8(0) & 0x20 != 0 }
    /// Header and body without the padding.
    @inlinable public var unpadded: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - paddingLength)])
    }
    /// The body after the 4-byte header, without the padding.
    @inlinable public var payload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[rtcpHeaderSize..<(bytes.count - paddingLength)])
    }

    /// The prologue every RTPFB/PSFB view shares (RFC 4585 section 6.1):
    /// `.invalidType` unless PT and FMT match, `.truncated` under
    /// `minimumSize` bytes (12: header and both SSRCs), `.invalidLength`
    /// unless the FCI after the 12 bytes is a multiple of `fciMultiple`.
    /// Returns header and body without padding.
    @inlinable
    func feedbackBody(type: UInt8, format: UInt8, minimumSize: Int = 12, fciMultiple: Int = 1)
        throws(PacketError) -> UnsafeRawBufferPointer
    {
        guard packetType == type, countOrFormat == format else { throw .invalidType }
        let bytes = unpadded
        guard bytes.count >= minimumSize else { throw .truncated }
        guard (bytes.count - 12) % fciMultiple == 0 else { throw .invalidLength }
        return bytes
    }

    /// The prologue SR, RR and BYE share (RFC 3550 sections 6.4 and 6.6):
    /// `.invalidType` unless PT matches, `.truncated` unless `fixedSize`
    /// bytes plus RC/SC items of `itemSize` bytes fit before the padding.
    /// Returns header and body without padding.
    @inlinable
    func countedBody(type: UInt8, fixedSize: Int, itemSize: Int) throws(PacketError) -> UnsafeRawBufferPointer {
        guard packetType == type else { throw .invalidType }
        let bytes = unpadded
        guard bytes.count >= fixedSize + itemSize * Int(countOrFormat) else { throw .truncated }
        return bytes
    }
}

/// The length and padding of the RTCP packet at the start of `rest`, the one
/// walk every RTCP parser shares: `.truncated` unless the 4-byte header and
/// the `length` field's (length + 1) * 4 bytes fit in `rest`; with
/// `exactLength`, `.invalidLength` unless that length is all of `rest`;
/// then the version and padding checks of `rtcpPaddingLength`.
@inlinable
func rtcpPacketBounds(_ rest: UnsafeRawBufferPointer, exactLength: Bool = false) throws(PacketError)
    -> (length: Int, padding: Int)
{
    guard rest.count >= rtcpHeaderSize else { throw .truncated }
    let length = (Int(rest.u16(2)) + 1) * 4
    guard length <= rest.count else { throw .truncated }
    guard !exactLength || length == rest.count else { throw .invalidLength }
    return (length, try rtcpPaddingLength(rest, packetLength: length))
}

/// Version check and padding length of one packet of `packetLength` bytes
/// at the start of `bytes` (which holds at least that many).
@inlinable
func rtcpPaddingLength(_ bytes: UnsafeRawBufferPointer, packetLength: Int) throws(PacketError) -> Int {
    let first = bytes.u8(0)
    guard first >> 6 == 2 else { throw .invalidVersion }
    guard first & 0x20 != 0 else { return 0 }
    let padding = Int(bytes.u8(packetLength - 1))
    guard padding >= 1, padding <= packetLength - rtcpHeaderSize else { throw .invalidPadding }
    return padding
}

/// A compound RTCP packet (RFC 3550 section 6.1): RTCP packets back to back
/// in one datagram, iterated as `RTCPPacketView`s without allocation.
///
/// Padding is accepted on any packet, not only the last one as RFC 3550
/// section 6.4.1 asks: libwebrtc pads every transport-cc feedback packet to
/// 32 bits with the P bit and packs several of them (plus REMB) into one
/// datagram, and its own parser accepts that.
/// A compound that does not start with SR or RR is accepted too
/// (reduced-size RTCP, RFC 5506, which Chrome negotiates for video).
public struct RTCPCompoundPacket: Sequence {
    public let bytes: UnsafeRawBufferPointer

    /// Validates every packet: version 2, each length inside the buffer, the
    /// last one ending exactly at the end, consistent padding. Empty input
    /// is `.truncated`.
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        guard !bytes.isEmpty else { throw .truncated }
        var offset = 0
        while offset < bytes.count {
            offset += try rtcpPacketBounds(UnsafeRawBufferPointer(rebasing: bytes[offset...])).length
        }
        self.bytes = bytes
    }

    /// Walks the validated packets; each header was checked in `init`, so
    /// this only re-reads the length and padding fields.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline var offset: Int

        @inlinable init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            self.offset = 0
        }

        @inlinable
        public mutating func next() -> RTCPPacketView? {
            // The bounds re-check costs two compares and keeps the walk safe
            // even if `bytes` were not the validated buffer. The end of the
            // buffer is a `.truncated` here, so nil.
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            guard let (length, padding) = try? rtcpPacketBounds(rest) else { return nil }
            offset += length
            return RTCPPacketView(
                unchecked: UnsafeRawBufferPointer(rebasing: rest[0..<length]), paddingLength: padding)
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}

/// A packet of a compound, by type: the `switch` helper over the typed views.
public enum RTCPPacket {
    case senderReport(SenderReportView)
    case receiverReport(ReceiverReportView)
    case sourceDescription(SourceDescriptionView)
    case goodbye(GoodbyeView)
    case genericNACK(GenericNACKView)
    case transportCCFeedback(TransportCCFeedbackView)
    case pictureLossIndication(PictureLossIndicationView)
    case fullIntraRequest(FullIntraRequestView)
    case receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrateView)
    /// APP, XR, other feedback formats: left to the caller.
    case other(RTCPPacketView)
}

extension RTCPPacketView {
    /// The typed view for this packet's PT and count/FMT, validated; throws
    /// if a known type is malformed. A PSFB FMT 15 without the "REMB"
    /// identifier (another application-layer feedback) is `.other`.
    @inlinable
    public func typed() throws(PacketError) -> RTCPPacket {
        switch (packetType, countOrFormat) {
        case (RTCPPacketType.senderReport, _):
            return .senderReport(try SenderReportView(validating: self))
        case (RTCPPacketType.receiverReport, _):
            return .receiverReport(try ReceiverReportView(validating: self))
        case (RTCPPacketType.sourceDescription, _):
            return .sourceDescription(try SourceDescriptionView(validating: self))
        case (RTCPPacketType.goodbye, _):
            return .goodbye(try GoodbyeView(validating: self))
        case (RTCPPacketType.transportFeedback, GenericNACKView.format):
            return .genericNACK(try GenericNACKView(validating: self))
        case (RTCPPacketType.transportFeedback, TransportCCFeedbackView.format):
            return .transportCCFeedback(try TransportCCFeedbackView(validating: self))
        case (RTCPPacketType.payloadFeedback, PictureLossIndicationView.format):
            return .pictureLossIndication(try PictureLossIndicationView(validating: self))
        case (RTCPPacketType.payloadFeedback, FullIntraRequestView.format):
            return .fullIntraRequest(try FullIntraRequestView(validating: self))
        case (RTCPPacketType.payloadFeedback, ReceiverEstimatedMaxBitrateView.format):
            guard ReceiverEstimatedMaxBitrateView.hasIdentifier(self) else { return .other(self) }
            return .receiverEstimatedMaxBitrate(try ReceiverEstimatedMaxBitrateView(validating: self))
        default:
            return .other(self)
        }
    }
}

/// A value that writes one RTCP packet into the caller's buffer.
public protocol RTCPPacketWriter {
    /// Bytes `write(to:)` will write.
    var encodedSize: Int { get }
    /// Writes the packet at the start of `buffer`; returns the bytes written.
    func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int
}

/// Writes RTCP packets back to back into the caller's buffer to form a
/// compound packet. Holds a raw pointer, so it is not `Sendable`.
public struct RTCPCompoundWriter {
    public let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline var _count: Int = 0
    /// Bytes written so far: the compound's size.
    @inlinable public var count: Int { _count }

    @inlinable
    public init(buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// Appends one packet; on `.bufferTooSmall` nothing is appended.
    /// Generic, not existential, so the call is specialized and allocates
    /// nothing. A writer that claims more bytes than the rest of the buffer
    /// (a bug in a conforming type outside this module) is refused with
    /// `.bufferTooSmall` rather than trusted: `count` must never pass
    /// `buffer.count`, or `written` and the next append would trap.
    @inlinable
    public mutating func append(_ packet: some RTCPPacketWriter) throws(PacketError) {
        let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[_count...])
        let written = try packet.write(to: rest)
        guard written >= 0, written <= rest.count else { throw .bufferTooSmall }
        _count += written
    }

    /// Appends what `write` writes at the end so far (it gets the rest of
    /// the buffer and returns the bytes written): for the array-free static
    /// writers, e.g. `FullIntraRequest.write(senderSSRC:entry:to:)`. The
    /// closure is non-escaping, so this allocates nothing either.
    @inlinable
    public mutating func append(
        _ write: (UnsafeMutableRawBufferPointer) throws(PacketError) -> Int
    ) throws(PacketError) {
        let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[_count...])
        let written = try write(rest)
        guard written >= 0, written <= rest.count else { throw .bufferTooSmall }
        _count += written
    }

    /// The bytes written so far.
    @inlinable
    public var written: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[0..<_count])
    }
}
