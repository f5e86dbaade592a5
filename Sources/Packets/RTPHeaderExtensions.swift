/// RTP header extension elements (RFC 8285), read from the extension block of
/// an RTP packet (RFC 3550 section 5.3.1).
///
/// One-byte form, profile 0xBEDE (RFC 8285 section 4.2): each element is a
/// byte with a 4-bit ID (1-14) and a 4-bit length L meaning L+1 bytes (1-16).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0xBE    |    0xDE       |           length=3            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | L=0   |     data      |  ID   |  L=1  |   data...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       ...data   |    0 (pad)    |    0 (pad)    |  ID   | L=3   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                          data                                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Two-byte form, profile 0x100 + appbits (RFC 8285 section 4.3): an 8-bit
/// ID (1-255) and an 8-bit length (0-255 bytes).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0x10    |    0x00       |           length=3            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      ID       |     L=0       |     ID        |     L=1       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       data    |    0 (pad)    |       ID      |      L=4      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                          data                                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// In both forms ID 0 is padding: one byte, skipped (in the one-byte form
/// whatever its length nibble says, as libwebrtc does).
public enum RTPHeaderExtensionForm: Equatable, Hashable, Sendable {
    /// Profile 0xBEDE: IDs 1-14, values 1-16 bytes.
    case oneByte
    /// Profile 0x1000-0x100F: IDs 1-255, values 0-255 bytes.
    case twoByte

    /// The "defined by profile" value 0xBEDE of the one-byte form.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The two-byte form's profile with appbits 0 (RFC 8285 section 4.3).
    public static let twoByteProfile: UInt16 = 0x1000

    /// The form a profile value names, or nil for any other profile (which
    /// RFC 3550 allows, and which we carry without reading its elements).
    @inlinable
    public init?(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == Self.twoByteProfile {
            self = .twoByte
        } else {
            return nil
        }
    }
}

/// One header extension element: its local ID (negotiated by `a=extmap`)
/// and its value, a view into the packet's bytes.
public struct RTPHeaderExtensionElement {
    public let id: UInt8
    public let value: UnsafeRawBufferPointer

    @inlinable
    init(id: UInt8, value: UnsafeRawBufferPointer) {
        self.id = id
        self.value = value
    }
}

/// The elements of one extension block, in order. A `Sequence` over the raw
/// block so that walking it allocates nothing.
public struct RTPHeaderExtensions: Sequence {
    /// The extension data after the 4-byte profile/length word.
    @usableFromInline let data: UnsafeRawBufferPointer
    /// nil for an unknown profile or no extension: the sequence is empty.
    @usableFromInline let form: RTPHeaderExtensionForm?

    @inlinable
    init(data: UnsafeRawBufferPointer, form: RTPHeaderExtensionForm?) {
        self.data = data
        self.form = form
    }

    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(data: data, form: form)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let data: UnsafeRawBufferPointer
        @usableFromInline let form: RTPHeaderExtensionForm?
        @usableFromInline var offset: Int
        /// Set when an element runs past the block; `RTPPacketView` refuses
        /// such packets, so a validated view never sets it.
        @usableFromInline var malformed: Bool

        @inlinable
        init(data: UnsafeRawBufferPointer, form: RTPHeaderExtensionForm?) {
            self.data = data
            self.form = form
            self.offset = 0
            self.malformed = false
        }

        @inlinable
        public mutating func next() -> RTPHeaderExtensionElement? {
            guard let form else { return nil }
            let end = data.count
            // The bounds checks below are what validation runs too, so they
            // cost nothing extra and keep the iterator safe on its own.
            while offset < end {
                let first = data[offset]
                // ID 0 is padding; libwebrtc skips one byte whatever a
                // one-byte header's length nibble says, and so do we.
                if first == 0 || (form == .oneByte && first >> 4 == 0) {
                    offset &+= 1
                    continue
                }
                let id: UInt8
                let length: Int
                let valueStart: Int
                switch form {
                case .oneByte:
                    id = first >> 4
                    // RFC 8285 section 4.2: ID 15 ends processing of the block.
                    if id == 15 {
                        offset = end
                        return nil
                    }
                    length = Int(first & 0x0F) &+ 1
                    valueStart = offset &+ 1
                case .twoByte:
                    guard offset &+ 2 <= end else {
                        malformed = true
                        offset = end
                        return nil
                    }
                    id = first
                    length = Int(data[offset &+ 1])
                    valueStart = offset &+ 2
                }
                let valueEnd = valueStart &+ length
                guard valueEnd <= end else {
                    malformed = true
                    offset = end
                    return nil
                }
                offset = valueEnd
                return RTPHeaderExtensionElement(
                    id: id, value: UnsafeRawBufferPointer(rebasing: data[valueStart..<valueEnd]))
            }
            return nil
        }
    }

    /// Whether every element lies inside the block.
    @inlinable
    static func isWellFormed(_ data: UnsafeRawBufferPointer, form: RTPHeaderExtensionForm?) -> Bool {
        var iterator = Iterator(data: data, form: form)
        while iterator.next() != nil {}
        return !iterator.malformed
    }
}
