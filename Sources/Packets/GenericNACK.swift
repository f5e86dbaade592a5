/// Generic NACK: transport-layer feedback, RTPFB FMT 1 (RFC 4585 sections
/// 6.1 and 6.2.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |   PT=RTPFB=205  |          length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            PID                |             BLP               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                 more PID/BLP pairs ...                        :
/// ```
/// PID is a lost sequence number; bit i of BLP (least significant first)
/// says PID + i + 1 is lost too, so one pair covers 17 packets.
public struct GenericNACKView {
    /// FMT 1 of RTPFB.
    @inlinable public static var format: UInt8 { 1 }

    /// Header and body, padding excluded.
    public let bytes: UnsafeRawBufferPointer

    /// Validates one whole NACK packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: RTPFB FMT 1, both SSRCs, and an FCI
    /// of whole 4-byte PID/BLP pairs.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        self.bytes = try packet.feedbackBody(
            type: RTCPPacketType.transportFeedback, format: Self.format, fciMultiple: 4)
    }

    /// SSRC of the packet sender.
    @inlinable public var senderSSRC: SSRC { SSRC(bytes.u32(4)) }
    /// SSRC of the media source whose packets are lost.
    @inlinable public var mediaSSRC: SSRC { SSRC(bytes.u32(8)) }
    /// The PID/BLP pairs.
    @inlinable public var items: NACKItems { NACKItems(bytes: bytes) }
    /// Every sequence number the pairs name as lost, pair by pair.
    @inlinable public var lostSequenceNumbers: NACKLostSequenceNumbers { NACKLostSequenceNumbers(items: items) }
}

/// One PID/BLP pair.
public struct NACKItem: Equatable, Hashable, Sendable {
    /// Packet ID: a lost sequence number.
    public var packetID: UInt16
    /// Bitmask of following lost packets: bit i means `packetID + i + 1`.
    public var lostBitmask: UInt16

    @inlinable
    public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
        self.packetID = packetID
        self.lostBitmask = lostBitmask
    }
}

/// The PID/BLP pairs of a NACK packet.
public struct NACKItems: RandomAccessCollection {
    @usableFromInline let bytes: UnsafeRawBufferPointer

    @inlinable init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { (bytes.count - 12) / 4 }

    @inlinable
    public subscript(position: Int) -> NACKItem {
        precondition(position >= 0 && position < endIndex, "NACK item index out of range")
        let offset = 12 + 4 * position
        return NACKItem(packetID: bytes.u16(offset), lostBitmask: bytes.u16(offset + 2))
    }
}

/// The lost sequence numbers of a NACK, in packet order: each pair's PID,
/// then the ones its BLP bits name. Sequence numbers wrap at 65,536.
public struct NACKLostSequenceNumbers: Sequence {
    @usableFromInline let items: NACKItems

    @inlinable init(items: NACKItems) {
        self.items = items
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let items: NACKItems
        @usableFromInline var index = 0
        /// -1 for the PID itself, then 0...15 for the BLP bits.
        @usableFromInline var bit = -1

        @inlinable init(items: NACKItems) {
            self.items = items
        }

        @inlinable
        public mutating func next() -> UInt16? {
            while index < items.endIndex {
                let item = items[index]
                if bit < 0 {
                    bit = 0
                    return item.packetID
                }
                while bit < 16 {
                    let current = bit
                    bit += 1
                    if item.lostBitmask & (1 << current) != 0 {
                        return item.packetID &+ UInt16(current + 1)
                    }
                }
                index += 1
                bit = -1
            }
            return nil
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(items: items) }
}

/// A generic NACK to write.
public struct GenericNACK: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var senderSSRC: SSRC
    public var mediaSSRC: SSRC
    public var items: [NACKItem]

    @inlinable
    public init(senderSSRC: SSRC, mediaSSRC: SSRC, items: [NACKItem]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.items = items
    }

    /// Packs lost sequence numbers, sorted in RTP order (wrap-around allowed:
    /// 65534, 65535, 0, 1 is sorted), into as few pairs as a greedy pass
    /// gives: a number within 16 after the current PID becomes a BLP bit,
    /// anything else starts a new pair. Duplicates are dropped.
    /// `@inlinable` so a caller's concrete sequence type is specialized.
    @inlinable
    public init(senderSSRC: SSRC, mediaSSRC: SSRC, lostSequenceNumbers: some Sequence<UInt16>) {
        var items: [NACKItem] = []
        for sequenceNumber in lostSequenceNumbers {
            if let last = items.last {
                let distance = sequenceNumber &- last.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    items[items.count - 1].lostBitmask |= 1 << (distance - 1)
                    continue
                }
            }
            items.append(NACKItem(packetID: sequenceNumber))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, items: items)
    }

    public init(_ view: GenericNACKView) {
        self.init(senderSSRC: view.senderSSRC, mediaSSRC: view.mediaSSRC, items: Array(view.items))
    }

    @inlinable public var encodedSize: Int { 12 + 4 * items.count }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        let size = encodedSize
        try checkRTCPWrite(size: size, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: GenericNACKView.format, packetType: RTCPPacketType.transportFeedback,
            totalLength: size)
        buffer.setU32(senderSSRC.rawValue, at: 4)
        buffer.setU32(mediaSSRC.rawValue, at: 8)
        var offset = 12
        for item in items {
            buffer.setU16(item.packetID, at: offset)
            buffer.setU16(item.lostBitmask, at: offset + 2)
            offset += 4
        }
        return size
    }
}
