// Big-endian loads and stores on raw buffers. Callers validate bounds once
// (see each view's `init(validating:)`); these helpers then read at fixed
// offsets without further checks, which is what keeps the accessors cheap.

extension UnsafeRawBufferPointer {
    @inlinable @inline(__always)
    func u8(_ offset: Int) -> UInt8 {
        self[offset]
    }

    @inlinable @inline(__always)
    func u16(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inlinable @inline(__always)
    func u24(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inlinable @inline(__always)
    func u32(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inlinable @inline(__always)
    func u64(_ offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    @inlinable @inline(__always)
    func setU8(_ value: UInt8, at offset: Int) {
        self[offset] = value
    }

    @inlinable @inline(__always)
    func setU16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inlinable @inline(__always)
    func setU24(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 2] = UInt8(truncatingIfNeeded: value)
    }

    @inlinable @inline(__always)
    func setU32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inlinable @inline(__always)
    func setU64(_ value: UInt64, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }
}
