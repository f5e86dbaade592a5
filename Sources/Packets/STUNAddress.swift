/// A transport address carried by MAPPED-ADDRESS (RFC 5389 section 15.1) and,
/// XOR'd, by XOR-MAPPED-ADDRESS (section 15.2): family, port and 4 or 16
/// address bytes, stored inline (two words) so it is a plain value.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0 0 0 0 0 0 0|    Family     |           Port                |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                                                               |
/// |                 Address (32 bits or 128 bits)                 |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNAddress: Hashable, Sendable, CustomStringConvertible {
    /// The family byte: 0x01 IPv4, 0x02 IPv6.
    public enum Family: UInt8, Hashable, Sendable {
        case ipv4 = 0x01
        case ipv6 = 0x02
    }

    public var family: Family
    public var port: UInt16
    /// The address as a 128-bit big-endian number: for IPv6 bytes 0..<8 and
    /// 8..<16; for IPv4 `high` is 0 and the address is the low 32 bits of `low`.
    @usableFromInline var high: UInt64
    @usableFromInline var low: UInt64

    /// An IPv4 address given as its 32-bit big-endian number (192.0.2.1 is 0xC000_0201).
    @inlinable
    public init(ipv4: UInt32, port: UInt16) {
        self.family = .ipv4
        self.port = port
        self.high = 0
        self.low = UInt64(ipv4)
    }

    /// `STUNAddress(ipv4: 192, 0, 2, 1, port: 32853)`.
    @inlinable
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16) {
        self.init(ipv4: UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d), port: port)
    }

    /// An IPv6 address given as two 64-bit big-endian halves
    /// (2001:db8::1 is high 0x2001_0db8_0000_0000, low 1).
    @inlinable
    public init(ipv6High high: UInt64, low: UInt64, port: UInt16) {
        self.family = .ipv6
        self.port = port
        self.high = high
        self.low = low
    }

    /// An address from its network-order bytes: 4 for IPv4, 16 for IPv6
    /// (as in `sockaddr_in`/`sockaddr_in6`); nil for any other length.
    @inlinable
    public init?(addressBytes: UnsafeRawBufferPointer, port: UInt16) {
        switch addressBytes.count {
        case 4: self.init(ipv4: addressBytes.u32(0), port: port)
        case 16: self.init(ipv6High: addressBytes.u64(0), low: addressBytes.u64(8), port: port)
        default: return nil
        }
    }

    /// The IPv4 address as a 32-bit big-endian number, nil for IPv6.
    @inlinable
    public var ipv4: UInt32? {
        family == .ipv4 ? UInt32(truncatingIfNeeded: low) : nil
    }

    /// The IPv6 address as two 64-bit big-endian halves, nil for IPv4.
    @inlinable
    public var ipv6: (high: UInt64, low: UInt64)? {
        family == .ipv6 ? (high, low) : nil
    }

    /// 4 or 16.
    @inlinable
    public var addressByteCount: Int { family == .ipv4 ? 4 : 16 }

    /// Calls `body` with the address in network byte order (4 or 16 bytes).
    @inlinable
    public func withUnsafeAddressBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        if family == .ipv4 {
            var v = UInt32(truncatingIfNeeded: low).bigEndian
            return try withUnsafeBytes(of: &v) { (raw) throws(E) -> R in try body(raw) }
        }
        var v = (high.bigEndian, low.bigEndian)
        return try withUnsafeBytes(of: &v) { (raw) throws(E) -> R in try body(raw) }
    }

    /// Size of the attribute value: 8 for IPv4, 20 for IPv6.
    @inlinable
    var encodedSize: Int { family == .ipv4 ? 8 : 20 }

    /// Parses a (XOR-)MAPPED-ADDRESS value; nil unless the family is known
    /// and the length is exactly 8 (IPv4) or 20 (IPv6). With `xor`, undoes
    /// RFC 5389 section 15.2: the port with the cookie's high 16 bits, the
    /// address with the cookie (IPv4) or cookie + transaction ID (IPv6).
    @inlinable
    init?(attributeValue v: UnsafeRawBufferPointer, xor: STUNTransactionID?) {
        guard v.count >= 4, let family = Family(rawValue: v.u8(1)) else { return nil }
        let (maskHigh, maskLow, portMask) = STUNAddress.masks(xor)
        let port = v.u16(2) ^ portMask
        switch family {
        case .ipv4:
            guard v.count == 8 else { return nil }
            self.init(ipv4: v.u32(4) ^ UInt32(truncatingIfNeeded: maskHigh >> 32), port: port)
        case .ipv6:
            guard v.count == 20 else { return nil }
            self.init(ipv6High: v.u64(4) ^ maskHigh, low: v.u64(12) ^ maskLow, port: port)
        }
    }

    /// Writes the attribute value (8 or 20 bytes) at `offset`; the caller
    /// has checked the room.
    @inlinable
    func writeAttributeValue(to buffer: UnsafeMutableRawBufferPointer, at offset: Int, xor: STUNTransactionID?) {
        let (maskHigh, maskLow, portMask) = STUNAddress.masks(xor)
        buffer.setU8(0, at: offset)
        buffer.setU8(family.rawValue, at: offset + 1)
        buffer.setU16(port ^ portMask, at: offset + 2)
        switch family {
        case .ipv4:
            buffer.setU32(UInt32(truncatingIfNeeded: low) ^ UInt32(truncatingIfNeeded: maskHigh >> 32), at: offset + 4)
        case .ipv6:
            buffer.setU64(high ^ maskHigh, at: offset + 4)
            buffer.setU64(low ^ maskLow, at: offset + 12)
        }
    }

    /// The 128-bit XOR mask (magic cookie followed by the transaction ID) as
    /// two words, and the port mask (the cookie's top 16 bits); all zero when
    /// not XOR-ing.
    @inlinable
    static func masks(_ xor: STUNTransactionID?) -> (UInt64, UInt64, UInt16) {
        guard let id = xor else { return (0, 0, 0) }
        let cookie = UInt64(STUNMessageView.magicCookie)
        return (cookie << 32 | id.high >> 32, id.high << 32 | UInt64(id.low), UInt16(truncatingIfNeeded: cookie >> 16))
    }

    /// "192.0.2.1:32853" or "[2001:db8::1]:32853" (RFC 5952 text form). For logs.
    public var description: String {
        switch family {
        case .ipv4:
            let a = UInt32(truncatingIfNeeded: low)
            return "\(a >> 24).\((a >> 16) & 0xFF).\((a >> 8) & 0xFF).\(a & 0xFF):\(port)"
        case .ipv6:
            return "[\(ipv6Text)]:\(port)"
        }
    }

    /// RFC 5952 section 4: lowercase hex, no leading zeros, the longest run
    /// of two or more zero groups (the first such run on a tie) as "::".
    private var ipv6Text: String {
        var groups: [UInt16] = []
        for i in 0..<8 {
            let word = i < 4 ? high : low
            groups.append(UInt16(truncatingIfNeeded: word >> (48 - 16 * UInt64(i % 4))))
        }
        var bestStart = -1
        var bestLength = 1
        var i = 0
        while i < 8 {
            guard groups[i] == 0 else {
                i += 1
                continue
            }
            var j = i
            while j < 8, groups[j] == 0 { j += 1 }
            if j - i > bestLength {
                bestStart = i
                bestLength = j - i
            }
            i = j
        }
        func hex(_ range: Range<Int>) -> String {
            groups[range].map { String($0, radix: 16) }.joined(separator: ":")
        }
        guard bestStart >= 0 else { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }
}
