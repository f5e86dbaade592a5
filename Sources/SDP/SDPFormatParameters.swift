/// `a=fmtp:<payload type> <parameters>` (RFC 8866 section 6.15), e.g.
/// `a=fmtp:111 minptime=10;useinbandfec=1`, `a=fmtp:97 apt=96`,
/// `a=fmtp:63 111/111` (RED), `a=fmtp:101 0-15` (telephone-event).
public struct SDPFormatParameters: Equatable, Hashable, Sendable {
    public var payloadType: UInt8
    /// The parameter text exactly as written.
    public var parameters: String

    public init(payloadType: UInt8, parameters: String) {
        self.payloadType = payloadType
        self.parameters = parameters
    }

    /// Builds `key=value;key=value` from ordered pairs (a nil value writes the bare key).
    public init(payloadType: UInt8, pairs: [SDPFormatParameter]) {
        self.init(payloadType: payloadType, parameters: pairs.map(\.text).joined(separator: ";"))
    }

    init(parsing value: Substring) throws(SDPError) {
        guard let (pt, rest) = value.sdpSplitOnce(0x20), let payloadType = sdpDecimal(pt, as: UInt8.self),
              payloadType < 128
        else { throw SDPError(line: 0, "bad fmtp attribute: expected '<payload type 0-127> <parameters>'") }
        self.init(payloadType: payloadType, parameters: String(rest))
    }

    /// The text after `a=fmtp:`.
    public var value: String { "\(payloadType) \(parameters)" }

    /// The parameters split at `;` into ordered pairs, each at its first `=`;
    /// spaces around a pair are trimmed (RFC 4855 allows `a=b; c=d`). A piece
    /// without `=` (`0-15`, `111/111`) is a key with a nil value.
    public var pairs: [SDPFormatParameter] {
        Substring(parameters).sdpSplit(UInt8(ascii: ";")).compactMap { piece in
            let trimmed = piece.sdpTrimmingSpaces()
            guard !trimmed.isEmpty else { return nil }
            if let (key, value) = trimmed.sdpSplitOnce(UInt8(ascii: "=")) {
                return SDPFormatParameter(key: String(key), value: String(value))
            }
            return SDPFormatParameter(key: String(trimmed), value: nil)
        }
    }

    /// The value of the first parameter named `key` (ASCII case-insensitive,
    /// RFC 4855 section 3), nil when absent or bare.
    public subscript(key: String) -> String? {
        let wanted = key.lowercased()
        return pairs.first { $0.key.lowercased() == wanted }?.value
    }
}

/// One `key=value` (or bare `key`) of an fmtp parameter list.
public struct SDPFormatParameter: Equatable, Hashable, Sendable {
    public var key: String
    public var value: String?

    public init(key: String, value: String?) {
        self.key = key
        self.value = value
    }

    var text: String { value.map { "\(key)=\($0)" } ?? key }
}

extension Substring {
    func sdpTrimmingSpaces() -> Substring {
        var result = self
        while result.utf8.first == 0x20 { result = result[result.utf8.index(after: result.utf8.startIndex)...] }
        while result.utf8.last == 0x20 { result = result[..<result.utf8.index(before: result.utf8.endIndex)] }
        return result
    }
}
