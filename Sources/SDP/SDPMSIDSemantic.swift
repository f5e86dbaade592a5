/// `a=msid-semantic:` (draft-ietf-mmusic-msid, still sent by Chromium and
/// aiortc). Chromium writes `a=msid-semantic: WMS <stream id>` with a space
/// after the colon, aiortc `a=msid-semantic:WMS *`; both are kept exactly.
public struct SDPMSIDSemantic: Equatable, Hashable, Sendable {
    /// Whether a space follows the colon (Chromium's spelling).
    public var spaceAfterColon: Bool
    /// `WMS` in practice.
    public var semantic: String
    /// Stream ids, or `*`.
    public var identifiers: [String]

    public init(semantic: String = "WMS", identifiers: [String], spaceAfterColon: Bool = false) {
        self.semantic = semantic
        self.identifiers = identifiers
        self.spaceAfterColon = spaceAfterColon
    }

    /// nil when, past Chromium's one space after the colon, spacing leaves
    /// an empty token (`  WMS`, `WMS  x`, `WMS `): kept as `.other`.
    init?(parsing value: Substring) throws(SDPError) {
        var rest = value
        let space = rest.utf8.first == 0x20
        if space { rest = rest[rest.utf8.index(after: rest.utf8.startIndex)...] }
        if sdpHasOddSpacing(rest) { return nil }
        let fields = rest.sdpSplit(0x20)
        guard let semantic = fields.first, !semantic.isEmpty else {
            throw SDPError(line: 0, "bad msid-semantic attribute: no semantic")
        }
        self.init(semantic: String(semantic), identifiers: fields.dropFirst().map(String.init), spaceAfterColon: space)
    }

    /// The text after `a=msid-semantic:`.
    public var value: String {
        (spaceAfterColon ? " " : "") + ([semantic] + identifiers).joined(separator: " ")
    }
}
