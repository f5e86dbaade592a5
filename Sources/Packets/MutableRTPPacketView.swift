/// A validated view of an RTP packet (RFC 3550 section 5.1) whose header
/// fields can be rewritten in place: the SFU's forwarding path copies a packet
/// into an egress slot, then sets SSRC, sequence number, timestamp, payload
/// type and marker there, without moving a byte of payload.
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
/// ```
///
/// No setter changes a length, so the offsets validated once stay right and
/// `view` stays valid after any number of rewrites. The setters write through
/// the caller's pointer, so they are non-mutating; not `Sendable` for the same
/// reason as `RTPPacketView`.
public struct MutableRTPPacketView {
    /// The whole packet, as given.
    public let bytes: UnsafeMutableRawBufferPointer
    /// A read-only view of the same bytes; reflects every rewrite.
    public let view: RTPPacketView

    /// Validates exactly as `RTPPacketView(validating:)` does.
    @inlinable
    public init(validating bytes: UnsafeMutableRawBufferPointer) throws(PacketError) {
        self.view = try RTPPacketView(validating: UnsafeRawBufferPointer(bytes))
        self.bytes = bytes
    }

    @inlinable public var payloadType: UInt8 { view.payloadType }
    @inlinable public var marker: Bool { view.marker }
    @inlinable public var sequenceNumber: UInt16 { view.sequenceNumber }
    @inlinable public var timestamp: UInt32 { view.timestamp }
    @inlinable public var ssrc: SSRC { view.ssrc }

    /// The payload, writable (e.g. for a VP8 picture ID rewrite).
    @inlinable
    public var payload: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(
            rebasing: bytes[view.headerLength..<(bytes.count &- view.paddingLength)])
    }

    @inlinable
    public func setSSRC(_ ssrc: SSRC) {
        bytes.setU32(ssrc.rawValue, at: 8)
    }

    @inlinable
    public func setSequenceNumber(_ sequenceNumber: UInt16) {
        bytes.setU16(sequenceNumber, at: 2)
    }

    @inlinable
    public func setTimestamp(_ timestamp: UInt32) {
        bytes.setU32(timestamp, at: 4)
    }

    /// Throws `.valueOutOfRange` above 127: the PT field is 7 bits.
    @inlinable
    public func setPayloadType(_ payloadType: UInt8) throws(PacketError) {
        guard payloadType <= 0x7F else { throw .valueOutOfRange }
        bytes.setU8((bytes[1] & 0x80) | payloadType, at: 1)
    }

    @inlinable
    public func setMarker(_ marker: Bool) {
        let second = bytes[1]
        bytes.setU8(marker ? second | 0x80 : second & 0x7F, at: 1)
    }

    /// The value of the first element with local ID `id`, writable; nil if
    /// there is none.
    @inlinable
    public func mutableExtensionValue(id: UInt8) -> UnsafeMutableRawBufferPointer? {
        guard let value = view.extensionValue(id: id) else { return nil }
        // `value` points into `bytes` (the view was built over them), so
        // dropping const here writes only memory the caller gave us mutably.
        return UnsafeMutableRawBufferPointer(mutating: value)
    }

    /// Overwrites the value of the element with local ID `id` (e.g. a
    /// transport-wide sequence number, 2 bytes). The block's layout never
    /// changes: throws `.invalidHeaderExtension` when no element has that ID
    /// and `.invalidLength` when `value` is not exactly the element's length.
    @inlinable
    public func setExtensionValue(id: UInt8, _ value: UnsafeRawBufferPointer) throws(PacketError) {
        guard let target = mutableExtensionValue(id: id) else { throw .invalidHeaderExtension }
        guard target.count == value.count else { throw .invalidLength }
        // An element of length 0 (two-byte form) has nothing to copy, and a
        // nil base address must not reach copyMemory.
        if let destination = target.baseAddress, let source = value.baseAddress {
            destination.copyMemory(from: source, byteCount: value.count)
        }
    }
}
