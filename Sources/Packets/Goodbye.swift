/// BYE: Goodbye RTCP packet (RFC 3550 section 6.6).
///
/// ```
///        0                   1                   2                   3
///        0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       |V=2|P|    SC   |   PT=BYE=203  |             length            |
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       |                           SSRC/CSRC                           |
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       :                              ...                              :
///       +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// (opt) |     length    |               reason for leaving            ...
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The reason is padded with null octets to the next 32-bit boundary.
public struct GoodbyeView {
    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole BYE packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PT 203, SC sources inside the
    /// body, and if bytes follow them, a reason whose length fits.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        let bytes = try packet.countedBody(type: RTCPPacketType.goodbye, fixedSize: rtcpHeaderSize, itemSize: 4)
        let reasonOffset = rtcpHeaderSize + 4 * Int(packet.countOrFormat)
        if bytes.count > reasonOffset {
            guard reasonOffset + 1 + Int(bytes.u8(reasonOffset)) <= bytes.count else { throw .invalidField }
        }
        self.bytes = bytes
    }

    /// SC: the number of sources.
    @inlinable public var sourceCount: Int { Int(bytes.u8(0) & 0x1F) }
    /// The SSRC/CSRCs leaving.
    @inlinable public var sources: RTCPSSRCList { RTCPSSRCList(bytes: bytes, offset: rtcpHeaderSize, count: sourceCount) }
    /// The reason for leaving (UTF-8 by the RFC, not checked), or nil when
    /// the packet ends after the sources.
    @inlinable public var reason: UnsafeRawBufferPointer? {
        let offset = rtcpHeaderSize + 4 * sourceCount
        guard bytes.count > offset else { return nil }
        let start = offset + 1
        return UnsafeRawBufferPointer(rebasing: bytes[start..<(start + Int(bytes.u8(offset)))])
    }
}

/// A list of 32-bit SSRCs over a packet's bytes (BYE sources, REMB
/// feedback SSRCs).
public struct RTCPSSRCList: RandomAccessCollection {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let offset: Int
    public let count: Int

    /// `bytes` must hold `count` SSRCs from `offset` (the views check it).
    @inlinable init(bytes: UnsafeRawBufferPointer, offset: Int, count: Int) {
        self.bytes = bytes
        self.offset = offset
        self.count = count
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable
    public subscript(position: Int) -> SSRC {
        precondition(position >= 0 && position < count, "SSRC index out of range")
        return SSRC(bytes.u32(offset + 4 * position))
    }
}

/// A BYE to write.
public struct Goodbye: Equatable, Hashable, Sendable, RTCPPacketWriter {
    /// At most 31 (the 5-bit SC field).
    public var sources: [SSRC]
    /// At most 255 bytes; nil writes no reason field at all.
    public var reason: [UInt8]?

    public init(sources: [SSRC], reason: [UInt8]? = nil) {
        self.sources = sources
        self.reason = reason
    }

    public init(sources: [SSRC], reason: String) {
        self.init(sources: sources, reason: Array(reason.utf8))
    }

    public init(_ view: GoodbyeView) {
        self.init(sources: Array(view.sources), reason: view.reason.map { Array($0) })
    }

    @inlinable public var encodedSize: Int {
        let size = rtcpHeaderSize + 4 * sources.count
        guard let reason else { return size }
        return size + ((1 + reason.count + 3) & ~3)
    }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard sources.count <= 31, (reason?.count ?? 0) <= 255 else { throw .valueOutOfRange }
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: UInt8(sources.count), packetType: RTCPPacketType.goodbye, totalLength: size)
        var offset = rtcpHeaderSize
        for source in sources {
            buffer.setU32(source.rawValue, at: offset)
            offset += 4
        }
        if let reason {
            buffer.setU8(UInt8(reason.count), at: offset)
            offset += 1
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + reason.count)]).copyBytes(from: reason)
            offset += reason.count
            while offset < size {
                buffer.setU8(0, at: offset)
                offset += 1
            }
        }
        return size
    }
}
