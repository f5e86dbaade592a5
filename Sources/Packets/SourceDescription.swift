/// SDES: Source Description RTCP packet (RFC 3550 section 6.5).
///
/// ```
///         0                   1                   2                   3
///         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// header |V=2|P|    SC   |  PT=SDES=202  |             length            |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// chunk  |                          SSRC/CSRC_1                          |
///   1    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                           SDES items                          |
///        |                              ...                              |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// chunk  |                          SSRC/CSRC_2                          |
///   2    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                           SDES items                          |
///        |                              ...                              |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///
/// An item (section 6.5.1, CNAME shown):
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |    CNAME=1    |     length    | user and domain name        ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// A chunk's item list ends with a null octet (item type 0, no length),
/// followed by more null octets up to the next 32-bit boundary.
public struct SourceDescriptionView {
    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole SDES packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: PT 202 and SC chunks, each with its
    /// items, terminating null octet and alignment inside the body. Bytes
    /// after the last chunk are ignored.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        guard packet.packetType == RTCPPacketType.sourceDescription else { throw .invalidType }
        let bytes = packet.unpadded
        var offset = rtcpHeaderSize
        for _ in 0..<Int(packet.countOrFormat) {
            guard let end = sdesChunkEnd(bytes, from: offset) else { throw .invalidField }
            offset = end
        }
        self.bytes = bytes
    }

    /// SC: the number of chunks.
    @inlinable public var chunkCount: Int { Int(bytes.u8(0) & 0x1F) }
    /// The chunks, in order.
    @inlinable public var chunks: SDESChunks { SDESChunks(bytes: bytes, count: chunkCount) }
}

/// Where the chunk starting at `start` (a 4-aligned offset) ends, or nil if
/// its items, null octet or alignment run past `bytes`. Used both to
/// validate and to iterate, so the two cannot disagree.
@inlinable
func sdesChunkEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    var offset = start + 4
    while true {
        guard offset < bytes.count else { return nil }
        if bytes.u8(offset) == 0 { break }
        guard offset + 2 <= bytes.count else { return nil }
        offset += 2 + Int(bytes.u8(offset + 1))
    }
    // The null octet at `offset`, then null octets to the 32-bit boundary.
    let end = (offset + 4) & ~3
    guard end <= bytes.count else { return nil }
    return end
}

/// SDES item types (RFC 3550 section 12.2).
public enum SDESItemType {
    @inlinable public static var end: UInt8 { 0 }
    @inlinable public static var cname: UInt8 { 1 }
    @inlinable public static var name: UInt8 { 2 }
    @inlinable public static var email: UInt8 { 3 }
    @inlinable public static var phone: UInt8 { 4 }
    @inlinable public static var location: UInt8 { 5 }
    @inlinable public static var tool: UInt8 { 6 }
    @inlinable public static var note: UInt8 { 7 }
    @inlinable public static var priv: UInt8 { 8 }
}

/// The chunks of an SDES packet.
public struct SDESChunks: Sequence {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    public let count: Int

    @inlinable init(bytes: UnsafeRawBufferPointer, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline var offset: Int
        @usableFromInline var remaining: Int

        @inlinable init(bytes: UnsafeRawBufferPointer, count: Int) {
            self.bytes = bytes
            self.offset = rtcpHeaderSize
            self.remaining = count
        }

        @inlinable
        public mutating func next() -> SDESChunkView? {
            guard remaining > 0, let end = sdesChunkEnd(bytes, from: offset) else { return nil }
            let chunk = SDESChunkView(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            offset = end
            remaining -= 1
            return chunk
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(bytes: bytes, count: count) }
    @inlinable public var underestimatedCount: Int { count }
}

/// One chunk: a source and its items.
public struct SDESChunkView {
    /// The chunk's bytes, SSRC to the last null octet.
    public let bytes: UnsafeRawBufferPointer

    @inlinable init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The SSRC or CSRC the items describe.
    @inlinable public var source: SSRC { SSRC(bytes.u32(0)) }
    /// The items before the null octet.
    @inlinable public var items: SDESItems { SDESItems(bytes: bytes) }
}

/// One item of a chunk.
public struct SDESItemView {
    /// `SDESItemType` (never 0 here).
    public let type: UInt8
    /// The item's text: UTF-8 by the RFC, not checked.
    public let text: UnsafeRawBufferPointer

    @inlinable init(type: UInt8, text: UnsafeRawBufferPointer) {
        self.type = type
        self.text = text
    }
}

/// The items of a chunk.
public struct SDESItems: Sequence {
    @usableFromInline let bytes: UnsafeRawBufferPointer

    @inlinable init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline var offset = 4

        @inlinable init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        @inlinable
        public mutating func next() -> SDESItemView? {
            guard offset + 2 <= bytes.count else { return nil }
            let type = bytes.u8(offset)
            let end = offset + 2 + Int(bytes.u8(offset + 1))
            guard type != 0, end <= bytes.count else { return nil }
            let item = SDESItemView(type: type, text: UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<end]))
            offset = end
            return item
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}

/// An SDES packet to write. Built off the packet path (an RTCP sender
/// builds its CNAME chunk once); `write` allocates nothing.
public struct SourceDescription: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public struct Item: Equatable, Hashable, Sendable {
        /// `SDESItemType`, 1...255.
        public var type: UInt8
        /// At most 255 bytes.
        public var text: [UInt8]

        public init(type: UInt8, text: [UInt8]) {
            self.type = type
            self.text = text
        }

        public init(type: UInt8, text: String) {
            self.init(type: type, text: Array(text.utf8))
        }
    }

    public struct Chunk: Equatable, Hashable, Sendable {
        public var source: SSRC
        public var items: [Item]

        public init(source: SSRC, items: [Item]) {
            self.source = source
            self.items = items
        }

        /// Bytes of this chunk: SSRC, items, a null octet, aligned to 4.
        @inlinable var encodedSize: Int {
            var size = 4
            for item in items { size += 2 + item.text.count }
            return (size + 4) & ~3
        }
    }

    /// At most 31 (the 5-bit SC field).
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// The usual SDES: one chunk with the CNAME (RFC 3550 section 6.5.1).
    public init(source: SSRC, cname: String) {
        self.init(chunks: [Chunk(source: source, items: [Item(type: SDESItemType.cname, text: cname)])])
    }

    public init(_ view: SourceDescriptionView) {
        var chunks: [Chunk] = []
        for chunk in view.chunks {
            var items: [Item] = []
            for item in chunk.items { items.append(Item(type: item.type, text: Array(item.text))) }
            chunks.append(Chunk(source: chunk.source, items: items))
        }
        self.init(chunks: chunks)
    }

    @inlinable public var encodedSize: Int {
        var size = rtcpHeaderSize
        for chunk in chunks { size += chunk.encodedSize }
        return size
    }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard chunks.count <= 31 else { throw .valueOutOfRange }
        for chunk in chunks {
            for item in chunk.items where item.type == 0 || item.text.count > 255 { throw .valueOutOfRange }
        }
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: UInt8(chunks.count), packetType: RTCPPacketType.sourceDescription,
            totalLength: size)
        var offset = rtcpHeaderSize
        for chunk in chunks {
            let end = offset + chunk.encodedSize
            buffer.setU32(chunk.source.rawValue, at: offset)
            offset += 4
            for item in chunk.items {
                buffer.setU8(item.type, at: offset)
                buffer.setU8(UInt8(item.text.count), at: offset + 1)
                offset += 2
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + item.text.count)])
                    .copyBytes(from: item.text)
                offset += item.text.count
            }
            // The null item type and the alignment octets.
            while offset < end {
                buffer.setU8(0, at: offset)
                offset += 1
            }
        }
        return size
    }
}
