/// A validated, zero-copy view of an RTP packet (RFC 3550 section 5.1) with
/// its CSRC list, padding and header extension (RFC 3550 section 5.3.1,
/// RFC 8285).
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
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      defined by profile       |           length              |  (X = 1)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                        header extension                       |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                            payload                            |
/// |                               +-------------------------------+
/// |                               | padding ...   | padding count |  (P = 1)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// `init(validating:)` checks every length once; after that each accessor is
/// a load at a fixed offset. The view borrows the caller's bytes: it must not
/// outlive them, which is also why it is not `Sendable`.
public struct RTPPacketView {
    /// The whole packet, as given.
    public let bytes: UnsafeRawBufferPointer
    /// Fixed header + CSRCs + extension block, in bytes: where the payload starts.
    public let headerLength: Int
    /// Padding bytes at the end, including the count byte; 0 when P = 0.
    public let paddingLength: Int
    /// Offset of the extension data (after the profile/length word), 0 if X = 0.
    @usableFromInline let extensionDataOffset: Int
    /// Length of the extension data in bytes (the length field times 4).
    @usableFromInline let extensionDataLength: Int

    /// The fixed header is 12 bytes: V/P/X/CC, M/PT, sequence, timestamp, SSRC.
    public static let fixedHeaderLength = 12

    /// Validates `bytes` as one RTP packet.
    ///
    /// Throws `.truncated` when the fixed header, CSRC list or extension
    /// profile/length word runs past the end; `.invalidVersion` unless V = 2;
    /// `.invalidLength` when the extension length runs past the end;
    /// `.invalidHeaderExtension` when a one- or two-byte element runs past
    /// the extension block; `.invalidPadding` when P = 1 and the padding count
    /// is 0 or larger than the bytes after the header.
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        let count = bytes.count
        guard count >= Self.fixedHeaderLength else { throw .truncated }
        let first = bytes.u8(0)
        guard first >> 6 == 2 else { throw .invalidVersion }
        var offset = Self.fixedHeaderLength &+ Int(first & 0x0F) &* 4
        guard offset <= count else { throw .truncated }

        var extensionDataOffset = 0
        var extensionDataLength = 0
        if first & 0x10 != 0 {
            guard offset &+ 4 <= count else { throw .truncated }
            let profile = bytes.u16(offset)
            // At most 65535 * 4 bytes: no overflow in Int.
            extensionDataLength = Int(bytes.u16(offset &+ 2)) &* 4
            extensionDataOffset = offset &+ 4
            offset = extensionDataOffset &+ extensionDataLength
            guard offset <= count else { throw .invalidLength }
            let data = UnsafeRawBufferPointer(
                rebasing: bytes[extensionDataOffset..<offset])
            guard RTPHeaderExtensions.isWellFormed(data, form: RTPHeaderExtensionForm(profile: profile))
            else { throw .invalidHeaderExtension }
        }

        var paddingLength = 0
        if first & 0x20 != 0 {
            paddingLength = Int(bytes.u8(count &- 1))
            guard paddingLength >= 1, paddingLength <= count &- offset else { throw .invalidPadding }
        }

        self.bytes = bytes
        self.headerLength = offset
        self.paddingLength = paddingLength
        self.extensionDataOffset = extensionDataOffset
        self.extensionDataLength = extensionDataLength
    }

    /// Always 2 in a validated view.
    @inlinable public var version: UInt8 { bytes.u8(0) >> 6 }
    /// The P bit: the packet ends with `paddingLength` bytes of padding.
    @inlinable public var hasPadding: Bool { bytes.u8(0) & 0x20 != 0 }
    /// The X bit: a header extension block follows the CSRCs.
    @inlinable public var hasExtension: Bool { bytes.u8(0) & 0x10 != 0 }
    /// Number of CSRCs, 0-15.
    @inlinable public var csrcCount: Int { Int(bytes.u8(0) & 0x0F) }
    /// The M bit (for video: last packet of a frame).
    @inlinable public var marker: Bool { bytes.u8(1) & 0x80 != 0 }
    /// 0-127.
    @inlinable public var payloadType: UInt8 { bytes.u8(1) & 0x7F }
    @inlinable public var sequenceNumber: UInt16 { bytes.u16(2) }
    @inlinable public var timestamp: UInt32 { bytes.u32(4) }
    @inlinable public var ssrc: SSRC { SSRC(bytes.u32(8)) }

    /// The CSRC at `index`, which must be below `csrcCount` (a caller's bug
    /// otherwise, not a malformed packet, so it traps).
    @inlinable
    public func csrc(at index: Int) -> SSRC {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return SSRC(bytes.u32(Self.fixedHeaderLength &+ index &* 4))
    }

    /// The payload: after the header, before the padding. Empty for a
    /// padding-only packet (which browsers send as bandwidth probes).
    @inlinable
    public var payload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[headerLength..<(bytes.count &- paddingLength)])
    }

    /// The extension block's "defined by profile" field, nil when X = 0.
    @inlinable
    public var extensionProfile: UInt16? {
        hasExtension ? bytes.u16(extensionDataOffset &- 4) : nil
    }

    /// The RFC 8285 form of the extension block; nil when X = 0 or the
    /// profile is neither 0xBEDE nor 0x100X.
    @inlinable
    public var extensionForm: RTPHeaderExtensionForm? {
        extensionProfile.flatMap { RTPHeaderExtensionForm(profile: $0) }
    }

    /// The extension data after the profile/length word (empty when X = 0).
    @inlinable
    public var extensionData: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
            rebasing: bytes[extensionDataOffset..<(extensionDataOffset &+ extensionDataLength)])
    }

    /// The RFC 8285 elements, in order; empty without an extension or with an
    /// unknown profile.
    @inlinable
    public var headerExtensions: RTPHeaderExtensions {
        RTPHeaderExtensions(data: extensionData, form: extensionForm)
    }

    /// The value of the first element with local ID `id`, or nil.
    @inlinable
    public func extensionValue(id: UInt8) -> UnsafeRawBufferPointer? {
        for element in headerExtensions where element.id == id {
            return element.value
        }
        return nil
    }
}
