/// A VP8 payload descriptor to write (RFC 7741 section 4.2): the value-type
/// counterpart of `VP8PayloadDescriptor`, for packetizers and tests.
///
/// ```
///        0 1 2 3 4 5 6 7
///       +-+-+-+-+-+-+-+-+
///       |X|R|N|S|R| PID | (REQUIRED)
///       +-+-+-+-+-+-+-+-+
///  X:   |I|L|T|K| RSV   | (OPTIONAL)
///       +-+-+-+-+-+-+-+-+
///  I:   |M| PictureID   | (OPTIONAL, 1 byte with M = 0, 2 with M = 1)
///       +-+-+-+-+-+-+-+-+
///  L:   |   TL0PICIDX   | (OPTIONAL)
///       +-+-+-+-+-+-+-+-+
///  T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///       +-+-+-+-+-+-+-+-+
/// ```
///
/// The R bits are written as 0. X is written when `hasExtension` is set or
/// any optional field is present.
public struct VP8PayloadDescriptorFields: Equatable, Sendable {
    /// Write the X byte even when no optional field needs it.
    public var hasExtension: Bool
    public var nonReference: Bool
    public var startOfPartition: Bool
    /// 0-7.
    public var partitionIndex: UInt8
    /// 0-127, or 0-32767 with `pictureIDIs15Bit`.
    public var pictureID: UInt16?
    /// Ignored without a picture ID.
    public var pictureIDIs15Bit: Bool
    public var tl0PicIdx: UInt8?
    /// 0-3.
    public var temporalLayerIndex: UInt8?
    /// Needs a `temporalLayerIndex` (a reader ignores Y when T = 0).
    public var layerSync: Bool
    /// 0-31.
    public var keyIndex: UInt8?

    public init(
        hasExtension: Bool = false,
        nonReference: Bool = false,
        startOfPartition: Bool = false,
        partitionIndex: UInt8 = 0,
        pictureID: UInt16? = nil,
        pictureIDIs15Bit: Bool = false,
        tl0PicIdx: UInt8? = nil,
        temporalLayerIndex: UInt8? = nil,
        layerSync: Bool = false,
        keyIndex: UInt8? = nil
    ) {
        self.hasExtension = hasExtension
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.pictureIDIs15Bit = pictureIDIs15Bit
        self.tl0PicIdx = tl0PicIdx
        self.temporalLayerIndex = temporalLayerIndex
        self.layerSync = layerSync
        self.keyIndex = keyIndex
    }

    /// The fields a parsed descriptor carries.
    @inlinable
    public init(_ descriptor: VP8PayloadDescriptor) {
        self.init(
            hasExtension: descriptor.hasExtension,
            nonReference: descriptor.nonReference,
            startOfPartition: descriptor.startOfPartition,
            partitionIndex: descriptor.partitionIndex,
            pictureID: descriptor.pictureID,
            pictureIDIs15Bit: descriptor.pictureIDIs15Bit,
            tl0PicIdx: descriptor.tl0PicIdx,
            temporalLayerIndex: descriptor.temporalLayerIndex,
            layerSync: descriptor.layerSync,
            keyIndex: descriptor.keyIndex)
    }

    /// Equal when they encode to the same bytes: `hasExtension` only counts
    /// when no optional field forces X, `pictureIDIs15Bit` only with a
    /// picture ID.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.writesExtension == rhs.writesExtension && lhs.nonReference == rhs.nonReference
            && lhs.startOfPartition == rhs.startOfPartition && lhs.partitionIndex == rhs.partitionIndex
            && lhs.pictureID == rhs.pictureID
            && (lhs.pictureID == nil || lhs.pictureIDIs15Bit == rhs.pictureIDIs15Bit)
            && lhs.tl0PicIdx == rhs.tl0PicIdx && lhs.temporalLayerIndex == rhs.temporalLayerIndex
            && lhs.layerSync == rhs.layerSync && lhs.keyIndex == rhs.keyIndex
    }

    @inlinable
    var writesExtension: Bool {
        hasExtension || pictureID != nil || tl0PicIdx != nil || temporalLayerIndex != nil
            || keyIndex != nil
    }

    /// Descriptor bytes, 1-6.
    @inlinable
    public var encodedSize: Int {
        guard writesExtension else { return 1 }
        var size = 2
        if pictureID != nil { size &+= pictureIDIs15Bit ? 2 : 1 }
        if tl0PicIdx != nil { size &+= 1 }
        if temporalLayerIndex != nil || keyIndex != nil { size &+= 1 }
        return size
    }

    /// Writes the descriptor at the start of `buffer`; returns `encodedSize`.
    /// Throws `.valueOutOfRange` for a value wider than its field (or Y
    /// without a TID) and `.bufferTooSmall`.
    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int {
        guard partitionIndex <= 7, (temporalLayerIndex ?? 0) <= 3, (keyIndex ?? 0) <= 31,
            !layerSync || temporalLayerIndex != nil,
            (pictureID ?? 0) <= (pictureIDIs15Bit ? 0x7FFF : 0x7F)
        else { throw .valueOutOfRange }
        let size = encodedSize
        guard buffer.count >= size else { throw .bufferTooSmall }

        var first = partitionIndex
        if writesExtension { first |= 0x80 }
        if nonReference { first |= 0x20 }
        if startOfPartition { first |= 0x10 }
        buffer.setU8(first, at: 0)
        guard writesExtension else { return 1 }

        var flags: UInt8 = 0
        if pictureID != nil { flags |= 0x80 }
        if tl0PicIdx != nil { flags |= 0x40 }
        if temporalLayerIndex != nil { flags |= 0x20 }
        if keyIndex != nil { flags |= 0x10 }
        buffer.setU8(flags, at: 1)
        var offset = 2
        if let pictureID {
            if pictureIDIs15Bit {
                buffer.setU16(0x8000 | pictureID, at: offset)
                offset &+= 2
            } else {
                buffer.setU8(UInt8(truncatingIfNeeded: pictureID), at: offset)
                offset &+= 1
            }
        }
        if let tl0PicIdx {
            buffer.setU8(tl0PicIdx, at: offset)
            offset &+= 1
        }
        if temporalLayerIndex != nil || keyIndex != nil {
            var byte: UInt8 = (temporalLayerIndex ?? 0) << 6 | (keyIndex ?? 0)
            if layerSync { byte |= 0x20 }
            buffer.setU8(byte, at: offset)
            offset &+= 1
        }
        return offset
    }
}
