/// CRC-32 as IEEE 802.3 defines it (ITU-T V.42): reflected, polynomial
/// 0x04C11DB7 (0xEDB88320 reflected), initial value and final XOR 0xFFFFFFFF.
/// STUN's FINGERPRINT (RFC 5389 section 15.5, RFC 8489 section 14.7) is this
/// CRC XOR 0x5354554e. Check value: `CRC32.checksum("123456789") == 0xCBF43926`.
///
/// Byte-at-a-time with a 256-entry table: STUN messages are under 600 bytes
/// and arrive a few times per second per peer, so slicing-by-8 would buy
/// nothing measurable.
public enum CRC32 {
    /// The CRC-32 of `bytes`.
    @inlinable
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(0, with: bytes)
    }

    /// Continues a running CRC: `update(checksum(a), with: b) == checksum(a + b)`.
    /// Start from 0.
    @inlinable
    public static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        // Indexing the table with a masked UInt8 stays within its 256 entries.
        table.withUnsafeBufferPointer { t in
            for byte in bytes {
                c = t[Int(UInt8(truncatingIfNeeded: c) ^ byte)] ^ (c >> 8)
            }
        }
        return ~c
    }

    /// Entry `n` is the CRC of the single byte `n` without the pre/post
    /// inversion. Built once, on first use (a lazily initialised global).
    @usableFromInline
    static let table: [UInt32] = (0..<256).map { (n: UInt32) -> UInt32 in
        var c = n
        for _ in 0..<8 {
            c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
        }
        return c
    }
}
