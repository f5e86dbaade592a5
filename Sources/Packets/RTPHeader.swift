/// An RTP header to write (RFC 3550 section 5.1, extensions per RFC 8285):
/// the value-type counterpart of `RTPPacketView`, for packetizers, tests
/// and round trips. It holds arrays, so build it off the packet path; the
/// write itself allocates nothing.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  0xBEDE or 0x1000             |     length in 32-bit words    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  elements, then 0 bytes up to a multiple of 4                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTPHeader: Equatable, Sendable {
    /// One header extension element to write.
    public struct Extension: Equatable, Sendable {
        /// 1-14 in the one-byte form, 1-255 in the two-byte form.
        public var id: UInt8
        /// 1-16 bytes in the one-byte form, 0-255 in the two-byte form.
        public var value: [UInt8]

        public init(id: UInt8, value: [UInt8]) {
            self.id = id
            self.value = value
        }
    }

    public var marker: Bool
    /// 0-127.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: SSRC
    /// At most 15.
    public var csrcs: [SSRC]
    /// How `extensions` are encoded; ignored when `extensions` is empty.
    public var extensionForm: RTPHeaderExtensionForm
    /// Written in order; no extension block at all when empty.
    public var extensions: [Extension]
    /// Padding the whole packet ends with, count byte included: 0 (P = 0)
    /// or 1-255. `write(to:)` sets the P bit; `writePacket` writes the bytes.
    public var paddingLength: Int

    public init(
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: SSRC,
        csrcs: [SSRC] = [],
        extensionForm: RTPHeaderExtensionForm = .oneByte,
        extensions: [Extension] = [],
        paddingLength: Int = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensionForm = extensionForm
        self.extensions = extensions
        self.paddingLength = paddingLength
    }

    /// The header a view describes. Elements after a one-byte ID 15 are not
    /// kept (RFC 8285 says to stop there); an extension block with an
    /// unknown profile, the two-byte form's appbits and the padding bytes'
    /// contents are not kept either, so writing this back gives the same
    /// fields, not always the same bytes.
    public init(_ view: RTPPacketView) {
        var csrcs: [SSRC] = []
        csrcs.reserveCapacity(view.csrcCount)
        for index in 0..<view.csrcCount {
            csrcs.append(view.csrc(at: index))
        }
        var extensions: [Extension] = []
        for element in view.headerExtensions {
            extensions.append(Extension(id: element.id, value: Array(element.value)))
        }
        self.init(
            marker: view.marker,
            payloadType: view.payloadType,
            sequenceNumber: view.sequenceNumber,
            timestamp: view.timestamp,
            ssrc: view.ssrc,
            csrcs: csrcs,
            extensionForm: view.extensionForm ?? .oneByte,
            extensions: extensions,
            paddingLength: view.paddingLength)
    }

    /// Field by field, except that `extensionForm` only counts when there
    /// are extensions to encode (without them no block is written).
    public static func == (lhs: RTPHeader, rhs: RTPHeader) -> Bool {
        lhs.marker == rhs.marker && lhs.payloadType == rhs.payloadType
            && lhs.sequenceNumber == rhs.sequenceNumber && lhs.timestamp == rhs.timestamp
            && lhs.ssrc == rhs.ssrc && lhs.csrcs == rhs.csrcs
            && (lhs.extensions.isEmpty || lhs.extensionForm == rhs.extensionForm)
            && lhs.extensions == rhs.extensions && lhs.paddingLength == rhs.paddingLength
    }

    /// Bytes of the elements, before padding the block to 4 bytes.
    @inlinable
    var extensionElementsLength: Int {
        let perElement = extensionForm == .oneByte ? 1 : 2
        var total = 0
        for element in extensions {
            total &+= perElement &+ element.value.count
        }
        return total
    }

    /// Bytes of the extension block including its 4-byte profile/length
    /// word; 0 without extensions.
    @inlinable
    var extensionBlockLength: Int {
        guard !extensions.isEmpty else { return 0 }
        return 4 &+ (extensionElementsLength &+ 3) / 4 &* 4
    }

    /// Bytes `write(to:)` writes: fixed header, CSRCs, extension block.
    @inlinable
    public var encodedSize: Int {
        RTPPacketView.fixedHeaderLength &+ csrcs.count &* 4 &+ extensionBlockLength
    }

    /// Throws `.valueOutOfRange` for a field that does not fit its bits.
    @inlinable
    func validate() throws(PacketError) {
        guard payloadType <= 0x7F, csrcs.count <= 15, (0...255).contains(paddingLength)
        else { throw .valueOutOfRange }
        for element in extensions {
            switch extensionForm {
            case .oneByte:
                // ID 15 is reserved (RFC 8285 section 4.2); lengths are L+1.
                guard (1...14).contains(element.id), (1...16).contains(element.value.count)
                else { throw .valueOutOfRange }
            case .twoByte:
                guard element.id != 0, element.value.count <= 255 else { throw .valueOutOfRange }
            }
        }
        // The length field counts 32-bit words in 16 bits.
        guard (extensionElementsLength &+ 3) / 4 <= 0xFFFF else { throw .valueOutOfRange }
    }

    /// Writes the header (with the P bit set when `paddingLength > 0`) at
    /// the start of `buffer` and returns `encodedSize`. Throws
    /// `.valueOutOfRange` for a field that does not fit and
    /// `.bufferTooSmall` when `buffer` is shorter than `encodedSize`.
    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        try validate()
        let size = encodedSize
        guard buffer.count >= size else { throw .bufferTooSmall }
        var first: UInt8 = 0x80 | UInt8(truncatingIfNeeded: csrcs.count)
        if paddingLength > 0 { first |= 0x20 }
        if !extensions.isEmpty { first |= 0x10 }
        buffer.setU8(first, at: 0)
        buffer.setU8((marker ? 0x80 : 0) | payloadType, at: 1)
        buffer.setU16(sequenceNumber, at: 2)
        buffer.setU32(timestamp, at: 4)
        buffer.setU32(ssrc.rawValue, at: 8)
        var offset = RTPPacketView.fixedHeaderLength
        for csrc in csrcs {
            buffer.setU32(csrc.rawValue, at: offset)
            offset &+= 4
        }
        guard !extensions.isEmpty else { return offset }

        let blockEnd = offset &+ extensionBlockLength
        buffer.setU16(
            extensionForm == .oneByte
                ? RTPHeaderExtensionForm.oneByteProfile : RTPHeaderExtensionForm.twoByteProfile,
            at: offset)
        buffer.setU16(UInt16(truncatingIfNeeded: (blockEnd &- offset &- 4) / 4), at: offset &+ 2)
        offset &+= 4
        for element in extensions {
            let count = element.value.count
            switch extensionForm {
            case .oneByte:
                buffer.setU8(element.id << 4 | UInt8(truncatingIfNeeded: count &- 1), at: offset)
                offset &+= 1
            case .twoByte:
                buffer.setU8(element.id, at: offset)
                buffer.setU8(UInt8(truncatingIfNeeded: count), at: offset &+ 1)
                offset &+= 2
            }
            element.value.withUnsafeBytes { value in
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset &+ count)])
                    .copyMemory(from: value)
            }
            offset &+= count
        }
        while offset < blockEnd {
            buffer.setU8(0, at: offset)
            offset &+= 1
        }
        return blockEnd
    }

    /// Bytes `writePacket` writes for a payload of `payloadCount` bytes.
    @inlinable
    public func packetSize(payloadCount: Int) -> Int {
        encodedSize &+ payloadCount &+ paddingLength
    }

    /// Writes a whole packet: `header`, `payload`, then `header.paddingLength`
    /// bytes of padding (zeros, the last one the count, RFC 3550 section
    /// 5.1). Returns the packet's length.
    @inlinable
    public static func writePacket(
        _ header: RTPHeader, payload: UnsafeRawBufferPointer, to buffer: UnsafeMutableRawBufferPointer
    ) throws(PacketError) -> Int {
        try header.validate()
        let total = header.packetSize(payloadCount: payload.count)
        guard buffer.count >= total else { throw .bufferTooSmall }
        var offset = try header.write(to: buffer)
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset &+ payload.count)])
            .copyMemory(from: payload)
        offset &+= payload.count
        if header.paddingLength > 0 {
            let paddingEnd = offset &+ header.paddingLength
            while offset < paddingEnd &- 1 {
                buffer.setU8(0, at: offset)
                offset &+= 1
            }
            buffer.setU8(UInt8(truncatingIfNeeded: header.paddingLength), at: offset)
            offset &+= 1
        }
        return offset
    }
}
