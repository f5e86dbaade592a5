/// `a=fingerprint:<hash function> <hex bytes separated by colons>` (RFC 8122
/// section 5), e.g. `a=fingerprint:sha-256 0A:5D:...:38`. aiortc sends
/// sha-256, sha-384 and sha-512 lines; Firefox puts its one at session level.
public struct SDPFingerprint: Equatable, Hashable, Sendable {
    /// `sha-256` etc., as written (compare case-insensitively).
    public var hashFunction: String
    /// Upper-case hex pairs joined by `:`, as written.
    public var value: String

    public init(hashFunction: String, value: String) {
        self.hashFunction = hashFunction
        self.value = value
    }

    /// Formats `digest` as colon-separated upper-case hex.
    public init(hashFunction: String, digest: [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        let text = digest.map { String(decoding: [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]], as: UTF8.self) }
        self.init(hashFunction: hashFunction, value: text.joined(separator: ":"))
    }

    /// The digest bytes, nil when the value is not colon-separated hex pairs.
    public var digest: [UInt8]? {
        var bytes: [UInt8] = []
        for pair in Substring(value).sdpSplit(UInt8(ascii: ":")) {
            guard pair.utf8.count == 2, let high = hexValue(pair.utf8.first), let low = hexValue(pair.utf8.last)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    init(parsing text: Substring) throws(SDPError) {
        let fields = sdpFields(text)
        guard fields.count == 2 else {
            throw SDPError(line: 0, "bad fingerprint attribute: expected '<hash function> <hex>'")
        }
        self.init(hashFunction: String(fields[0]), value: String(fields[1]))
    }

    /// The text after `a=fingerprint:`.
    public var text: String { "\(hashFunction) \(value)" }
}

private func hexValue(_ byte: UInt8?) -> UInt8? {
    switch byte {
    case .some(let b) where b >= 0x30 && b <= 0x39: b &- 0x30
    case .some(let b) where b >= 0x41 && b <= 0x46: b &- 0x41 &+ 10
    case .some(let b) where b >= 0x61 && b <= 0x66: b &- 0x61 &+ 10
    default: nil
    }
}
