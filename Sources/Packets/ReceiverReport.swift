/// RR: Receiver Report RTCP packet (RFC 3550 section 6.4.2), and the
/// reception report block it shares with SR (section 6.4.1).
///
/// ```
///         0                   1                   2                   3
///         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// header |V=2|P|    RC   |   PT=RR=201   |             length            |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                     SSRC of packet sender                     |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// report |                 SSRC_1 (SSRC of first source)                 |
/// block  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///   1    | fraction lost |       cumulative number of packets lost       |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |           extended highest sequence number received           |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                      interarrival jitter                      |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                         last SR (LSR)                         |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                   delay since last SR (DLSR)                  |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                 SSRC_2 (SSRC of second source)                |
///        :                               ...                             :
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                  profile-specific extensions                  |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct ReceiverReportView {
    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole RR packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PT 201, and the sender SSRC plus
    /// RC report blocks inside the body.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        self.bytes = try packet.countedBody(type: RTCPPacketType.receiverReport, fixedSize: 8, itemSize: 24)
    }

    /// SSRC of the packet sender.
    @inlinable public var ssrc: SSRC { SSRC(bytes.u32(4)) }
    /// RC: the number of report blocks.
    @inlinable public var reportCount: Int { Int(bytes.u8(0) & 0x1F) }
    /// The report blocks.
    @inlinable public var reports: ReceptionReports {
        ReceptionReports(bytes: bytes, offset: 8, count: reportCount)
    }
    /// Bytes after the report blocks (RFC 3550 profile-specific extension).
    @inlinable public var profileExtension: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(8 + 24 * reportCount)...])
    }
}

/// One 24-byte reception report block inside an SR or RR.
public struct ReceptionReportView {
    /// The 24 bytes of the block.
    public let bytes: UnsafeRawBufferPointer

    /// Validates that `bytes` holds at least one 24-byte block.
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        guard bytes.count >= 24 else { throw .truncated }
        self.bytes = UnsafeRawBufferPointer(rebasing: bytes[0..<24])
    }

    @inlinable init(unchecked bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// SSRC of the source this block reports on.
    @inlinable public var ssrc: SSRC { SSRC(bytes.u32(0)) }
    /// Fraction of packets lost since the last report, in 1/256.
    @inlinable public var fractionLost: UInt8 { bytes.u8(4) }
    /// Cumulative number of packets lost: 24-bit signed (duplicates can
    /// make it negative).
    @inlinable public var cumulativeLost: Int32 { Int32(bitPattern: bytes.u32(4) << 8) >> 8 }
    /// Cycles count (high 16 bits) and highest sequence number received.
    @inlinable public var extendedHighestSequence: UInt32 { bytes.u32(8) }
    /// Interarrival jitter, in RTP timestamp units.
    @inlinable public var jitter: UInt32 { bytes.u32(12) }
    /// Middle 32 bits of the NTP timestamp of the last SR received.
    @inlinable public var lastSR: UInt32 { bytes.u32(16) }
    /// Delay since that SR, in 1/65536 s.
    @inlinable public var delaySinceLastSR: UInt32 { bytes.u32(20) }
}

/// The report blocks of an SR or RR, over the packet's bytes.
public struct ReceptionReports: RandomAccessCollection {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let offset: Int
    public let count: Int

    /// `bytes` must hold `count` blocks from `offset` (the views check it).
    @inlinable init(bytes: UnsafeRawBufferPointer, offset: Int, count: Int) {
        self.bytes = bytes
        self.offset = offset
        self.count = count
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable
    public subscript(position: Int) -> ReceptionReportView {
        precondition(position >= 0 && position < count, "report block index out of range")
        let start = offset + 24 * position
        return ReceptionReportView(unchecked: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + 24)]))
    }
}

/// A reception report block to write (or read out of a view).
public struct ReceptionReport: Equatable, Hashable, Sendable {
    public var ssrc: SSRC
    public var fractionLost: UInt8
    /// 24-bit signed: -8,388,608...8,388,607, else the writer throws
    /// `.valueOutOfRange` (RFC 3550 A.3 has the sender clamp it).
    public var cumulativeLost: Int32
    public var extendedHighestSequence: UInt32
    public var jitter: UInt32
    public var lastSR: UInt32
    public var delaySinceLastSR: UInt32

    public init(
        ssrc: SSRC, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequence: UInt32 = 0,
        jitter: UInt32 = 0, lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSR = lastSR
        self.delaySinceLastSR = delaySinceLastSR
    }

    @inlinable
    public init(_ view: ReceptionReportView) {
        self.init(
            ssrc: view.ssrc, fractionLost: view.fractionLost, cumulativeLost: view.cumulativeLost,
            extendedHighestSequence: view.extendedHighestSequence, jitter: view.jitter,
            lastSR: view.lastSR, delaySinceLastSR: view.delaySinceLastSR)
    }

    /// 24 bytes.
    @inlinable public static var encodedSize: Int { 24 }

    /// Writes the 24-byte block; the buffer is known to hold it.
    @inlinable
    func writeUnchecked(to buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(PacketError) {
        guard cumulativeLost >= -0x80_0000, cumulativeLost <= 0x7F_FFFF else { throw .valueOutOfRange }
        buffer.setU32(ssrc.rawValue, at: offset)
        buffer.setU32(
            UInt32(fractionLost) << 24 | UInt32(bitPattern: cumulativeLost) & 0xFF_FFFF, at: offset + 4)
        buffer.setU32(extendedHighestSequence, at: offset + 8)
        buffer.setU32(jitter, at: offset + 12)
        buffer.setU32(lastSR, at: offset + 16)
        buffer.setU32(delaySinceLastSR, at: offset + 20)
    }
}

/// An RR to write. The array is built off the packet path; `write` itself
/// allocates nothing.
public struct ReceiverReport: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var ssrc: SSRC
    /// At most 31 (the 5-bit RC field).
    public var reports: [ReceptionReport]

    public init(ssrc: SSRC, reports: [ReceptionReport] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }

    public init(_ view: ReceiverReportView) {
        self.init(ssrc: view.ssrc, reports: view.reports.map(ReceptionReport.init))
    }

    @inlinable public var encodedSize: Int { 8 + 24 * reports.count }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard reports.count <= 31 else { throw .valueOutOfRange }
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: UInt8(reports.count), packetType: RTCPPacketType.receiverReport,
            totalLength: size)
        buffer.setU32(ssrc.rawValue, at: 4)
        var offset = 8
        for report in reports {
            try report.writeUnchecked(to: buffer, at: offset)
            offset += 24
        }
        return size
    }
}
