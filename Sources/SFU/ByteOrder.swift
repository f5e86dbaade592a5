// Big-endian loads and stores on raw buffers for the SFU's own writers (the
// ones in Packets are internal to it). Callers check bounds first.

extension UnsafeRawBufferPointer {
    @inline(__always)
    func sfuU16(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func sfuSetU16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inline(__always)
    func sfuSetU32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }
}
