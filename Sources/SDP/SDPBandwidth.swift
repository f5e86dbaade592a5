/// A `b=` line (RFC 8866 section 5.8): `b=<bwtype>:<bandwidth>`, e.g.
/// `b=AS:2500` (kbit/s) or `b=TIAS:2500000` (bit/s, RFC 3890).
public struct SDPBandwidth: Equatable, Hashable, Sendable {
    public var type: String
    public var value: UInt64

    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }

    /// Parses the value after `b=`.
    public init(parsing text: String) throws(SDPError) {
        try self.init(parsing: Substring(text))
    }

    init(parsing text: Substring) throws(SDPError) {
        guard let (type, number) = text.sdpSplitOnce(UInt8(ascii: ":")), !type.isEmpty,
              let value = sdpDecimal(number, as: UInt64.self)
        else { throw SDPError(line: 0, "bad b= line: expected '<type>:<number>'") }
        self.init(type: String(type), value: value)
    }

    /// The text after `b=`.
    public var text: String { "\(type):\(value)" }
}
