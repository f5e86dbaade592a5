/// SR: Sender Report RTCP packet (RFC 3550 section 6.4.1).
///
/// ```
///         0                   1                   2                   3
///         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// header |V=2|P|    RC   |   PT=SR=200   |             length            |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                         SSRC of sender                        |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// sender |              NTP timestamp, most significant word             |
/// info   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |             NTP timestamp, least significant word             |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                         RTP timestamp                         |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                     sender's packet count                     |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                      sender's octet count                     |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// report |                 SSRC_1 (SSRC of first source)                 |
/// block  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///   1    :              (24 bytes, see ReceptionReportView)              :
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        :                    report blocks 2 ... RC                     :
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                  profile-specific extensions                  |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct SenderReportView {
    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole SR packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PT 200, the 24 bytes of SSRC and
    /// sender info, and RC report blocks inside the body.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        self.bytes = try packet.countedBody(type: RTCPPacketType.senderReport, fixedSize: 28, itemSize: 24)
    }

    /// SSRC of the sender.
    @inlinable public var ssrc: SSRC { SSRC(bytes.u32(4)) }
    /// NTP timestamp (RFC 3550 section 4): seconds since 1900 in the high
    /// word, fraction in the low word.
    @inlinable public var ntpTimestamp: UInt64 { bytes.u64(8) }
    /// The same instant in the stream's RTP clock.
    @inlinable public var rtpTimestamp: UInt32 { bytes.u32(16) }
    /// RTP data packets sent since the start of transmission.
    @inlinable public var packetCount: UInt32 { bytes.u32(20) }
    /// Payload octets sent since the start of transmission.
    @inlinable public var octetCount: UInt32 { bytes.u32(24) }
    /// RC: the number of report blocks.
    @inlinable public var reportCount: Int { Int(bytes.u8(0) & 0x1F) }
    /// The report blocks.
    @inlinable public var reports: ReceptionReports {
        ReceptionReports(bytes: bytes, offset: 28, count: reportCount)
    }
    /// Bytes after the report blocks (RFC 3550 profile-specific extension).
    @inlinable public var profileExtension: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(28 + 24 * reportCount)...])
    }
}

/// An SR to write. The array is built off the packet path (and is empty for
/// a sender that receives nothing); `write` itself allocates nothing.
public struct SenderReport: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var ssrc: SSRC
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    /// At most 31 (the 5-bit RC field).
    public var reports: [ReceptionReport]

    public init(
        ssrc: SSRC, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [ReceptionReport] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    public init(_ view: SenderReportView) {
        self.init(
            ssrc: view.ssrc, ntpTimestamp: view.ntpTimestamp, rtpTimestamp: view.rtpTimestamp,
            packetCount: view.packetCount, octetCount: view.octetCount,
            reports: view.reports.map(ReceptionReport.init))
    }

    @inlinable public var encodedSize: Int { 28 + 24 * reports.count }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard reports.count <= 31 else { throw .valueOutOfRange }
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: UInt8(reports.count), packetType: RTCPPacketType.senderReport,
            totalLength: size)
        buffer.setU32(ssrc.rawValue, at: 4)
        buffer.setU64(ntpTimestamp, at: 8)
        buffer.setU32(rtpTimestamp, at: 16)
        buffer.setU32(packetCount, at: 20)
        buffer.setU32(octetCount, at: 24)
        var offset = 28
        for report in reports {
            try report.writeUnchecked(to: buffer, at: offset)
            offset += 24
        }
        return size
    }
}
