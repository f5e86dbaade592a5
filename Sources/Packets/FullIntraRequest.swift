/// FIR: Full Intra Request, payload-specific feedback PSFB FMT 4 (RFC 5104
/// section 4.3.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=4  |   PT=PSFB=206 |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             SSRC of media source (unused, 0)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                              SSRC                             |  FCI
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  entry,
/// | Seq nr.       |    Reserved                                   |  repeated
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The sequence number is per target SSRC and grows by one for each new
/// request (a repeat of the same request keeps it).
public struct FullIntraRequestView {
    /// FMT 4 of PSFB.
    @inlinable public static var format: UInt8 { 4 }

    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole FIR packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PSFB FMT 4, both SSRCs and an FCI
    /// of whole 8-byte entries.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        self.bytes = try packet.feedbackBody(
            type: RTCPPacketType.payloadFeedback, format: Self.format, fciMultiple: 8)
    }

    /// SSRC of the packet sender.
    @inlinable public var senderSSRC: SSRC { SSRC(bytes.u32(4)) }
    /// SSRC of the media source: 0 by RFC 5104, the targets are in the FCI.
    @inlinable public var mediaSSRC: SSRC { SSRC(bytes.u32(8)) }
    /// The requests, one per target stream.
    @inlinable public var entries: FIREntries { FIREntries(bytes: bytes) }
}

/// One FCI entry: which stream must send a keyframe, and the request's
/// sequence number.
public struct FIREntry: Equatable, Hashable, Sendable {
    public var ssrc: SSRC
    public var sequenceNumber: UInt8

    @inlinable
    public init(ssrc: SSRC, sequenceNumber: UInt8) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
    }
}

/// The FCI entries of a FIR packet.
public struct FIREntries: RandomAccessCollection {
    @usableFromInline let bytes: UnsafeRawBufferPointer

    @inlinable init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { (bytes.count - 12) / 8 }

    @inlinable
    public subscript(position: Int) -> FIREntry {
        precondition(position >= 0 && position < endIndex, "FIR entry index out of range")
        let offset = 12 + 8 * position
        return FIREntry(ssrc: SSRC(bytes.u32(offset)), sequenceNumber: bytes.u8(offset + 4))
    }
}

/// A FIR to write. For the common one-target request on the packet path,
/// use the array-free `write(senderSSRC:entry:to:)`.
public struct FullIntraRequest: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var senderSSRC: SSRC
    /// 0 by RFC 5104 section 4.3.1.
    public var mediaSSRC: SSRC
    public var entries: [FIREntry]

    public init(senderSSRC: SSRC, mediaSSRC: SSRC = SSRC(0), entries: [FIREntry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public init(_ view: FullIntraRequestView) {
        self.init(senderSSRC: view.senderSSRC, mediaSSRC: view.mediaSSRC, entries: Array(view.entries))
    }

    /// The size of a FIR with one entry: 20 bytes.
    @inlinable public static var singleEntrySize: Int { 20 }

    @inlinable public var encodedSize: Int { 12 + 8 * entries.count }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        Self.writeHeader(buffer, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, size: size)
        var offset = 12
        for entry in entries {
            Self.writeEntry(entry, to: buffer, at: offset)
            offset += 8
        }
        return size
    }

    /// Writes a one-entry FIR (20 bytes) without building an array.
    @inlinable
    public static func write(
        senderSSRC: SSRC, mediaSSRC: SSRC = SSRC(0), entry: FIREntry, to buffer: UnsafeMutableRawBufferPointer
    ) throws(PacketError) -> Int {
        try checkRTCPWrite(size: 20, into: buffer)
        writeHeader(buffer, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, size: 20)
        writeEntry(entry, to: buffer, at: 12)
        return 20
    }

    @inlinable
    static func writeHeader(_ buffer: UnsafeMutableRawBufferPointer, senderSSRC: SSRC, mediaSSRC: SSRC, size: Int) {
        writeRTCPHeader(
            buffer, countOrFormat: FullIntraRequestView.format, packetType: RTCPPacketType.payloadFeedback,
            totalLength: size)
        buffer.setU32(senderSSRC.rawValue, at: 4)
        buffer.setU32(mediaSSRC.rawValue, at: 8)
    }

    @inlinable
    static func writeEntry(_ entry: FIREntry, to buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer.setU32(entry.ssrc.rawValue, at: offset)
        // Sequence number, then 24 reserved bits that must be zero.
        buffer.setU32(UInt32(entry.sequenceNumber) << 24, at: offset + 4)
    }
}
