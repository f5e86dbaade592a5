/// Transport-wide congestion control feedback, RTPFB FMT 15
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      SSRC of media source                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      base sequence number     |      packet status count      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 reference time                | fb pkt. count |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          packet chunk         |         packet chunk          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// .                                                               .
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         packet chunk          |  recv delta   |  recv delta   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// .                                                               .
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           recv delta          |  recv delta   | zero padding  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Run length chunk (T=0):           Status vector chunk (T=1):
///  0                   1             0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |T| S |       Run Length        | |T|S|       symbol list         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Symbols: 00 not received, 01 received with a 1-byte delta (unsigned,
/// 0...63.75 ms), 10 received with a 2-byte signed delta, 11 reserved. A
/// vector chunk holds 14 one-bit symbols (S=0: 0 not received, 1 small
/// delta) or 7 two-bit symbols (S=1). Deltas are in 250 us units, the
/// reference time (24-bit signed) in 64 ms units. The last chunk may cover
/// more symbols than the status count: the extra ones are ignored. A status
/// count of 0 is refused: libwebrtc's parser rejects it ("Empty feedback
/// messages not allowed") and never sends one.
///
/// Padding: libwebrtc sets the P bit and a pad count when the deltas end
/// off a 32-bit boundary; other senders just zero-fill. Both parse, since
/// anything after the last delta is ignored.
public struct TransportCCFeedbackView {
    /// FMT 15 of RTPFB.
    @inlinable public static var format: UInt8 { 15 }

    /// Header and body, padding (from the P bit) excluded.
    public let bytes: UnsafeRawBufferPointer
    /// Where the receive deltas start, after the last chunk.
    @usableFromInline let deltasOffset: Int

    /// Validates one whole transport-cc feedback packet (header included).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        try self.init(validating: RTCPPacketView(validating: bytes))
    }

    /// Validates a packet of a compound: RTPFB FMT 15, the 20-byte fixed
    /// part, a status count of at least 1 (`.invalidField` otherwise, as in
    /// libwebrtc), enough chunks inside the body to cover it, no
    /// reserved symbol among the counted statuses, and every receive delta
    /// those statuses call for inside the body.
    @inlinable
    public init(validating packet: RTCPPacketView) throws(PacketError) {
        let bytes = try packet.feedbackBody(
            type: RTCPPacketType.transportFeedback, format: Self.format, minimumSize: 20)
        let statusCount = Int(bytes.u16(14))
        guard statusCount > 0 else { throw .invalidField }
        var offset = 20
        var covered = 0
        var deltaBytes = 0
        while covered < statusCount {
            guard offset + 2 <= bytes.count else { throw .truncated }
            let chunk = bytes.u16(offset)
            offset += 2
            let remaining = statusCount - covered
            if chunk & 0x8000 == 0 {
                let used = min(Int(chunk & 0x1FFF), remaining)
                switch chunk >> 13 {
                case 0: break
                case 1: deltaBytes += used
                case 2: deltaBytes += 2 * used
                default: throw .invalidField
                }
                covered += used
            } else if chunk & 0x4000 == 0 {
                let used = min(14, remaining)
                // The first symbol is the most significant of the 14 bits.
                deltaBytes += ((chunk & 0x3FFF) >> (14 - used)).nonzeroBitCount
                covered += used
            } else {
                let used = min(7, remaining)
                for index in 0..<used {
                    switch (chunk >> (12 - 2 * index)) & 3 {
                    case 0: break
                    case 1: deltaBytes += 1
                    case 2: deltaBytes += 2
                    default: throw .invalidField
                    }
                }
                covered += used
            }
        }
        guard offset + deltaBytes <= bytes.count else { throw .truncated }
        self.bytes = bytes
        self.deltasOffset = offset
    }

    /// SSRC of the packet sender.
    @inlinable public var senderSSRC: SSRC { SSRC(bytes.u32(4)) }
    /// SSRC of the media source (libwebrtc writes the first media SSRC; the
    /// sequence numbers are transport-wide, across all streams).
    @inlinable public var mediaSSRC: SSRC { SSRC(bytes.u32(8)) }
    /// Transport-wide sequence number of the first packet reported.
    @inlinable public var baseSequenceNumber: UInt16 { bytes.u16(12) }
    /// How many packets are reported, from the base on.
    @inlinable public var packetStatusCount: Int { Int(bytes.u16(14)) }
    /// 24-bit signed reference time, in 64 ms units, sign-extended.
    /// libwebrtc's sender writes it modulo 2^24 (a wrapping counter, about
    /// 12.4 days per cycle), so compare two reference times modulo 2^24, e.g.
    /// `(a &- b) << 8 >> 8`, not with `<`.
    @inlinable public var referenceTime: Int32 { Int32(bitPattern: bytes.u32(16)) >> 8 }
    /// Counts feedback packets (mod 256) so the sender can detect lost ones.
    @inlinable public var feedbackPacketCount: UInt8 { bytes.u8(19) }
    /// Every reported packet in order: sequence number, status, delta.
    @inlinable public var packets: TransportCCPacketStatuses {
        TransportCCPacketStatuses(bytes: bytes, deltasOffset: deltasOffset)
    }
}

/// A packet status symbol.
public enum TransportCCStatus: UInt8, Equatable, Hashable, Sendable {
    case notReceived = 0
    /// Received; delta in one unsigned byte (0...255 * 250 us).
    case receivedSmallDelta = 1
    /// Received; delta in two signed bytes (negative or above 63.75 ms).
    case receivedLargeDelta = 2

    /// The symbol a delta is written with: nil is not received.
    @inlinable
    public init(delta: Int16?) {
        guard let delta else {
            self = .notReceived
            return
        }
        self = (0...255).contains(delta) ? .receivedSmallDelta : .receivedLargeDelta
    }
}

/// One reported packet.
public struct TransportCCPacketResult: Equatable, Hashable, Sendable {
    public var sequenceNumber: UInt16
    public var status: TransportCCStatus
    /// Receive time minus the previous packet's (or, for the first, minus
    /// the reference time), in 250 us units; nil when not received.
    public var delta: Int16?

    @inlinable
    public init(sequenceNumber: UInt16, status: TransportCCStatus, delta: Int16?) {
        self.sequenceNumber = sequenceNumber
        self.status = status
        self.delta = delta
    }
}

/// The reported packets of a transport-cc feedback, decoded chunk by chunk
/// without allocation.
public struct TransportCCPacketStatuses: Sequence {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let deltasOffset: Int

    @inlinable init(bytes: UnsafeRawBufferPointer, deltasOffset: Int) {
        self.bytes = bytes
        self.deltasOffset = deltasOffset
    }

    @inlinable public var underestimatedCount: Int { Int(bytes.u16(14)) }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline let statusCount: Int
        @usableFromInline let base: UInt16
        @usableFromInline var index = 0
        @usableFromInline var chunkOffset = 20
        @usableFromInline var symbolIndex = 0
        @usableFromInline var deltaOffset: Int

        @inlinable init(bytes: UnsafeRawBufferPointer, deltasOffset: Int) {
            self.bytes = bytes
            self.statusCount = Int(bytes.u16(14))
            self.base = bytes.u16(12)
            self.deltaOffset = deltasOffset
        }

        @inlinable
        public mutating func next() -> TransportCCPacketResult? {
            guard index < statusCount else { return nil }
            // The view validated every chunk and delta; the bounds checks
            // here are a few compares that keep the walk safe regardless.
            var symbol: UInt16
            while true {
                guard chunkOffset + 2 <= bytes.count else { return nil }
                let chunk = bytes.u16(chunkOffset)
                if chunk & 0x8000 == 0 {
                    if symbolIndex < Int(chunk & 0x1FFF) {
                        symbol = chunk >> 13
                        break
                    }
                } else if chunk & 0x4000 == 0 {
                    if symbolIndex < 14 {
                        symbol = (chunk >> (13 - symbolIndex)) & 1
                        break
                    }
                } else if symbolIndex < 7 {
                    symbol = (chunk >> (12 - 2 * symbolIndex)) & 3
                    break
                }
                chunkOffset += 2
                symbolIndex = 0
            }
            symbolIndex += 1
            let status: TransportCCStatus
            let delta: Int16?
            switch symbol {
            case 0:
                status = .notReceived
                delta = nil
            case 1:
                guard deltaOffset + 1 <= bytes.count else { return nil }
                status = .receivedSmallDelta
                delta = Int16(bytes.u8(deltaOffset))
                deltaOffset += 1
            case 2:
                guard deltaOffset + 2 <= bytes.count else { return nil }
                status = .receivedLargeDelta
                delta = Int16(bitPattern: bytes.u16(deltaOffset))
                deltaOffset += 2
            default:
                return nil
            }
            let sequenceNumber = base &+ UInt16(truncatingIfNeeded: index)
            index += 1
            return TransportCCPacketResult(sequenceNumber: sequenceNumber, status: status, delta: delta)
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(bytes: bytes, deltasOffset: deltasOffset) }
}

/// A transport-cc feedback to write. The delta list is built as packets
/// arrive (off the send path); `write` and `encodedSize` allocate nothing.
///
/// Chunks: a run of 7 or more equal statuses becomes a run length chunk
/// (up to 8,191); otherwise a 1-bit vector of 14 when the next 14 statuses
/// are only not-received/small, else a 2-bit vector of 7. A final vector may
/// be partial. 7 is where a run chunk starts to beat a 2-bit vector.
public struct TransportCCFeedback: Equatable, Hashable, Sendable, RTCPPacketWriter {
    public var senderSSRC: SSRC
    public var mediaSSRC: SSRC
    public var baseSequenceNumber: UInt16
    /// In 64 ms units. Written modulo 2^24 as libwebrtc does (the field is
    /// a wrapping 24-bit counter): any value is accepted, and a view reads
    /// back the low 24 bits sign-extended (-8,388,608...8,388,607).
    public var referenceTime: Int32
    public var feedbackPacketCount: UInt8
    /// One entry per packet from the base sequence number on: the receive
    /// delta in 250 us units, nil if not received. 1...65,535 entries: an
    /// empty feedback is refused by libwebrtc's parser, so `write` throws
    /// `.valueOutOfRange` for it.
    public var deltas: [Int16?]

    public init(
        senderSSRC: SSRC, mediaSSRC: SSRC, baseSequenceNumber: UInt16, referenceTime: Int32,
        feedbackPacketCount: UInt8, deltas: [Int16?]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.deltas = deltas
    }

    public init(_ view: TransportCCFeedbackView) {
        var deltas: [Int16?] = []
        deltas.reserveCapacity(view.packetStatusCount)
        for packet in view.packets { deltas.append(packet.delta) }
        self.init(
            senderSSRC: view.senderSSRC, mediaSSRC: view.mediaSSRC, baseSequenceNumber: view.baseSequenceNumber,
            referenceTime: view.referenceTime, feedbackPacketCount: view.feedbackPacketCount, deltas: deltas)
    }

    /// The chunk that encodes statuses from `start` on, and how many it covers.
    @inlinable
    func chunk(from start: Int) -> (chunk: UInt16, covered: Int) {
        let remaining = deltas.count - start
        let first = TransportCCStatus(delta: deltas[start]).rawValue
        var run = 1
        while run < remaining, run < 0x1FFF, TransportCCStatus(delta: deltas[start + run]).rawValue == first {
            run += 1
        }
        if run >= 7 { return (UInt16(first) << 13 | UInt16(run), run) }
        let oneBit = min(14, remaining)
        var chunk: UInt16 = 0x8000
        for index in 0..<oneBit {
            let symbol = TransportCCStatus(delta: deltas[start + index]).rawValue
            if symbol > 1 {
                let twoBit = min(7, remaining)
                chunk = 0xC000
                for index in 0..<twoBit {
                    let symbol = TransportCCStatus(delta: deltas[start + index]).rawValue
                    chunk |= UInt16(symbol) << (12 - 2 * index)
                }
                return (chunk, twoBit)
            }
            chunk |= UInt16(symbol) << (13 - index)
        }
        return (chunk, oneBit)
    }

    /// Size without padding: fixed part, chunks, deltas.
    @inlinable var unpaddedSize: Int {
        var size = 20
        var start = 0
        while start < deltas.count {
            size += 2
            start += chunk(from: start).covered
        }
        for delta in deltas {
            switch TransportCCStatus(delta: delta) {
            case .notReceived: break
            case .receivedSmallDelta: size += 1
            case .receivedLargeDelta: size += 2
            }
        }
        return size
    }

    @inlinable public var encodedSize: Int { (unpaddedSize + 3) & ~3 }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard !deltas.isEmpty, deltas.count <= 0xFFFF else { throw .valueOutOfRange }
        let unpadded = unpaddedSize
        let size = (unpadded + 3) & ~3
        try checkRTCPWrite(size: size, into: buffer)
        writeRTCPHeader(
            buffer, countOrFormat: TransportCCFeedbackView.format, packetType: RTCPPacketType.transportFeedback,
            padding: size != unpadded, totalLength: size)
        buffer.setU32(senderSSRC.rawValue, at: 4)
        buffer.setU32(mediaSSRC.rawValue, at: 8)
        buffer.setU16(baseSequenceNumber, at: 12)
        buffer.setU16(UInt16(deltas.count), at: 14)
        let wrappedReferenceTime = UInt32(bitPattern: referenceTime) & 0xFF_FFFF
        buffer.setU32(wrappedReferenceTime << 8 | UInt32(feedbackPacketCount), at: 16)
        var offset = 20
        var start = 0
        while start < deltas.count {
            let (chunk, covered) = chunk(from: start)
            buffer.setU16(chunk, at: offset)
            offset += 2
            start += covered
        }
        for delta in deltas {
            guard let delta else { continue }
            if (0...255).contains(delta) {
                buffer.setU8(UInt8(delta), at: offset)
                offset += 1
            } else {
                buffer.setU16(UInt16(bitPattern: delta), at: offset)
                offset += 2
            }
        }
        // libwebrtc's padding: zeros, then the pad count with the P bit set.
        while offset < size {
            buffer.setU8(offset == size - 1 ? UInt8(size - unpadded) : 0, at: offset)
            offset += 1
        }
        return size
    }
}
