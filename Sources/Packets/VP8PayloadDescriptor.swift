/// A validated, zero-copy view of the VP8 payload descriptor at the start of
/// an RTP payload (RFC 7741 section 4.2), plus the first bytes of the VP8
/// payload header (RFC 7741 section 4.3, RFC 6386 section 9.1) needed to
/// tell a keyframe and its size.
///
/// ```
///        0 1 2 3 4 5 6 7                      0 1 2 3 4 5 6 7
///       +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
///       |X|R|N|S|R| PID | (REQUIRED)        |X|R|N|S|R| PID | (REQUIRED)
///       +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
///  X:   |I|L|T|K| RSV   | (OPTIONAL)   X:   |I|L|T|K| RSV   | (OPTIONAL)
///       +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
///  I:   |M| PictureID   | (OPTIONAL)   I:   |M| PictureID   | (OPTIONAL)
///       +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
///  L:   |   TL0PICIDX   | (OPTIONAL)        |   PictureID   |
///       +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
///  T/K: |TID|Y| KEYIDX  | (OPTIONAL)   L:   |   TL0PICIDX   | (OPTIONAL)
///       +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
///                                      T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///                                           +-+-+-+-+-+-+-+-+
/// ```
///
/// The VP8 payload header of the first packet of a frame (S = 1, PID = 0),
/// then, on a keyframe, the start code and the dimensions:
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|   P = 0: keyframe
/// +-+-+-+-+-+-+-+-+
/// |     Size1     |
/// +-+-+-+-+-+-+-+-+
/// |     Size2     |
/// +-+-+-+-+-+-+-+-+
/// | 0x9d 0x01 0x2a|   start code, 3 bytes
/// +-+-+-+-+-+-+-+-+
/// | width, 16 bits little-endian: 14-bit width, 2-bit scale   |
/// | height, 16 bits little-endian: 14-bit height, 2-bit scale |
/// ```
///
/// The SFU reads this to find keyframes and layers and rewrites the picture
/// ID and TL0PICIDX in place (`rewrite`) when it switches streams, so a
/// subscriber sees continuous values.
public struct VP8PayloadDescriptor {
    /// The RTP payload, as given (descriptor + VP8 payload).
    public let payload: UnsafeRawBufferPointer
    /// Descriptor bytes, 1-6: where the VP8 payload starts.
    public let length: Int
    /// Offset of the picture ID field, 0 when absent (offset 0 is always the
    /// required byte, so it cannot be a field's).
    @usableFromInline let pictureIDOffset: Int
    @usableFromInline let tl0PicIdxOffset: Int
    @usableFromInline let tidKeyIdxOffset: Int

    /// Validates the descriptor at the start of `payload`. Throws
    /// `.truncated` when the payload is empty or ends inside a field the
    /// flags announce. A descriptor with no VP8 bytes after it is accepted
    /// (an SFU only needs the descriptor); `isKeyframe` is then false.
    @inlinable
    public init(validating payload: UnsafeRawBufferPointer) throws(PacketError) {
        let count = payload.count
        guard count >= 1 else { throw .truncated }
        var offset = 1
        var pictureIDOffset = 0
        var tl0PicIdxOffset = 0
        var tidKeyIdxOffset = 0
        if payload.u8(0) & 0x80 != 0 {
            guard count >= 2 else { throw .truncated }
            let flags = payload.u8(1)
            offset = 2
            if flags & 0x80 != 0 {
                guard offset < count else { throw .truncated }
                pictureIDOffset = offset
                offset &+= payload.u8(offset) & 0x80 != 0 ? 2 : 1
            }
            if flags & 0x40 != 0 {
                guard offset < count else { throw .truncated }
                tl0PicIdxOffset = offset
                offset &+= 1
            }
            if flags & 0x30 != 0 {
                guard offset < count else { throw .truncated }
                tidKeyIdxOffset = offset
                offset &+= 1
            }
            guard offset <= count else { throw .truncated }
        }
        self.payload = payload
        self.length = offset
        self.pictureIDOffset = pictureIDOffset
        self.tl0PicIdxOffset = tl0PicIdxOffset
        self.tidKeyIdxOffset = tidKeyIdxOffset
    }

    @inlinable var flags: UInt8 { hasExtension ? payload.u8(1) : 0 }

    /// X: the extension byte (I/L/T/K) is present.
    @inlinable public var hasExtension: Bool { payload.u8(0) & 0x80 != 0 }
    /// N: no other frame references this one; it can be dropped.
    @inlinable public var nonReference: Bool { payload.u8(0) & 0x20 != 0 }
    /// S: this packet starts a VP8 partition.
    @inlinable public var startOfPartition: Bool { payload.u8(0) & 0x10 != 0 }
    /// PID: the partition index, 0-7.
    @inlinable public var partitionIndex: UInt8 { payload.u8(0) & 0x07 }

    /// The picture ID (7 or 15 bits), nil when I = 0.
    @inlinable
    public var pictureID: UInt16? {
        guard pictureIDOffset != 0 else { return nil }
        let high = payload.u8(pictureIDOffset)
        guard high & 0x80 != 0 else { return UInt16(high) }
        return UInt16(high & 0x7F) << 8 | UInt16(payload.u8(pictureIDOffset &+ 1))
    }

    /// M: the picture ID has 15 bits (libwebrtc always sends 15).
    @inlinable
    public var pictureIDIs15Bit: Bool {
        pictureIDOffset != 0 && payload.u8(pictureIDOffset) & 0x80 != 0
    }

    /// TL0PICIDX, nil when L = 0.
    @inlinable
    public var tl0PicIdx: UInt8? {
        tl0PicIdxOffset != 0 ? payload.u8(tl0PicIdxOffset) : nil
    }

    /// TID, 0-3, nil when T = 0.
    @inlinable
    public var temporalLayerIndex: UInt8? {
        flags & 0x20 != 0 ? payload.u8(tidKeyIdxOffset) >> 6 : nil
    }

    /// Y: a receiver can switch up to this temporal layer here. RFC 7741
    /// says to ignore it when T = 0, so it reads false then.
    @inlinable
    public var layerSync: Bool {
        flags & 0x20 != 0 && payload.u8(tidKeyIdxOffset) & 0x20 != 0
    }

    /// KEYIDX, 0-31, nil when K = 0.
    @inlinable
    public var keyIndex: UInt8? {
        flags & 0x10 != 0 ? payload.u8(tidKeyIdxOffset) & 0x1F : nil
    }

    /// The VP8 bytes after the descriptor.
    @inlinable
    public var vp8Payload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: payload[length...])
    }

    /// True for the first packet of a keyframe: S = 1, PID = 0 and the VP8
    /// payload header's P bit (its lowest bit) is 0.
    @inlinable
    public var isKeyframe: Bool {
        payload.u8(0) & 0x17 == 0x10 && length < payload.count && payload.u8(length) & 0x01 == 0
    }

    /// The width and height of a keyframe (RFC 6386 section 9.1: start code
    /// 9d 01 2a, then two little-endian 16-bit fields whose low 14 bits are
    /// the size and high 2 bits the scaling); nil unless `isKeyframe`, at
    /// least 10 VP8 bytes follow and the start code matches.
    @inlinable
    public var keyframeSize: (width: UInt16, height: UInt16)? {
        guard isKeyframe, payload.count &- length >= 10 else { return nil }
        let base = length
        guard payload.u8(base &+ 3) == 0x9D, payload.u8(base &+ 4) == 0x01, payload.u8(base &+ 5) == 0x2A
        else { return nil }
        let width = UInt16(payload.u8(base &+ 7)) << 8 | UInt16(payload.u8(base &+ 6))
        let height = UInt16(payload.u8(base &+ 9)) << 8 | UInt16(payload.u8(base &+ 8))
        return (width & 0x3FFF, height & 0x3FFF)
    }

    /// Rewrites the picture ID and TL0PICIDX of the descriptor at the start
    /// of `payload`, in place, keeping every field's width: a 7-bit picture
    /// ID gets the low 7 bits of `pictureID`, a 15-bit one the low 15 bits
    /// (the M bit stays set). A nil argument leaves that field alone.
    /// Throws what `init(validating:)` throws, or `.invalidField` when asked
    /// to write a field the descriptor does not have; nothing is written then.
    @inlinable
    public static func rewrite(
        _ payload: UnsafeMutableRawBufferPointer, pictureID: UInt16?, tl0PicIdx: UInt8?
    ) throws(PacketError) {
        let descriptor = try VP8PayloadDescriptor(validating: UnsafeRawBufferPointer(payload))
        try descriptor.rewrite(in: payload, pictureID: pictureID, tl0PicIdx: tl0PicIdx)
    }

    /// As the static `rewrite`, for a descriptor already parsed from
    /// `payload` (the same bytes, or a copy of them at the same offsets).
    @inlinable
    public func rewrite(
        in payload: UnsafeMutableRawBufferPointer, pictureID: UInt16?, tl0PicIdx: UInt8?
    ) throws(PacketError) {
        guard payload.count >= length else { throw .truncated }
        if pictureID != nil, pictureIDOffset == 0 { throw .invalidField }
        if tl0PicIdx != nil, tl0PicIdxOffset == 0 { throw .invalidField }
        if let pictureID {
            if pictureIDIs15Bit {
                payload.setU16(0x8000 | (pictureID & 0x7FFF), at: pictureIDOffset)
            } else {
                payload.setU8(UInt8(truncatingIfNeeded: pictureID) & 0x7F, at: pictureIDOffset)
            }
        }
        if let tl0PicIdx {
            payload.setU8(tl0PicIdx, at: tl0PicIdxOffset)
        }
    }
}
