/// The 96-bit STUN transaction ID (RFC 5389 section 6, RFC 8489 section 5),
/// held inline as 8 + 4 big-endian bytes so it can key a dictionary of
/// pending ICE checks without a heap allocation.
///
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                                                               |
/// |                     Transaction ID (96 bits)                  |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// Bytes 0..<8 of the ID, big-endian (message bytes 8..<16).
    public var high: UInt64
    /// Bytes 8..<12 of the ID, big-endian (message bytes 16..<20).
    public var low: UInt32

    @inlinable
    public init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
    }

    /// The ID in `bytes`, which must be exactly 12 bytes long.
    @inlinable
    public init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 12 else { return nil }
        self.init(high: bytes.u64(0), low: bytes.u32(8))
    }

    /// The ID in a STUN header (message bytes 8..<20); `header` holds at
    /// least the 20-byte header, which the view and the writer check first.
    @inlinable
    init(header: UnsafeRawBufferPointer) {
        self.init(high: header.u64(8), low: header.u32(16))
    }

    /// A fresh ID. RFC 5389 section 6 asks for a cryptographically random
    /// one: the system generator reads the kernel's CSPRNG (getrandom).
    public static func random() -> STUNTransactionID {
        var g = SystemRandomNumberGenerator()
        return random(using: &g)
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> STUNTransactionID {
        STUNTransactionID(high: generator.next(), low: generator.next())
    }

    /// Writes the 12 bytes at `offset`; the caller has checked the room.
    @inlinable
    func write(to buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer.setU64(high, at: offset)
        buffer.setU32(low, at: offset + 8)
    }

    /// 24 lowercase hex digits.
    public var description: String {
        let h = String(high, radix: 16)
        let l = String(low, radix: 16)
        return String(repeating: "0", count: 16 - h.count) + h + String(repeating: "0", count: 8 - l.count) + l
    }
}
