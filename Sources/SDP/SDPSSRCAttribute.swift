/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 section 4.1), e.g.
/// `a=ssrc:1016036625 cname:lzh9ppUL14GTrV4T` or
/// `a=ssrc:894581214 msid:<stream> <track>`.
///
/// The SSRC is a bare UInt32 here: the SDP module sits beside Packets, not
/// above it, so it cannot use Packets' `SSRC`; WebRTC converts at the seam.
public struct SDPSSRCAttribute: Equatable, Hashable, Sendable {
    public var ssrc: UInt32
    /// `cname`, `msid`, `label`, `mslabel`, ...
    public var attribute: String
    public var value: String?

    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    /// nil when spacing leaves the ssrc or the attribute name empty or
    /// starting with a space (`1  cname:x`, `1 `, ` 1 cname:x`): typed, such a
    /// line would name its attribute `" cname"` and every `cname` lookup
    /// would miss it, so it is kept as `.other`. The value is free text
    /// (`msid:<stream> <track>`) and kept as written.
    init?(parsing text: Substring) throws(SDPError) {
        let expected = SDPError(line: 0, "bad ssrc attribute: expected '<ssrc 0-4294967295> <attribute>'")
        guard let (number, rest) = text.sdpSplitOnce(0x20) else { throw expected }
        guard !number.isEmpty, !rest.isEmpty, rest.utf8.first != 0x20 else { return nil }
        guard let ssrc = sdpDecimal(number, as: UInt32.self) else { throw expected }
        let (name, value) = rest.sdpSplitOnce(UInt8(ascii: ":")) ?? (rest, nil)
        guard !name.isEmpty else { throw SDPError(line: 0, "bad ssrc attribute: empty attribute name") }
        self.init(ssrc: ssrc, attribute: String(name), value: value.map(String.init))
    }

    /// The text after `a=ssrc:` (named `text`: `value` is the attribute's value).
    public var text: String { "\(ssrc) \(attribute)" + (value.map { ":\($0)" } ?? "") }
}
