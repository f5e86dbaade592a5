/// `a=group:<semantics> <mid> ...` (RFC 5888), e.g. `a=group:BUNDLE 0 1`
/// (RFC 8843): the m-lines whose mids are listed share one transport.
public struct SDPGroup: Equatable, Hashable, Sendable {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    /// A BUNDLE group of `mids`.
    public static func bundle(_ mids: [String]) -> SDPGroup { SDPGroup(semantics: "BUNDLE", mids: mids) }

    public var isBundle: Bool { semantics == "BUNDLE" }

    init(parsing value: Substring) throws(SDPError) {
        let fields = sdpFields(value)
        guard let semantics = fields.first, !semantics.isEmpty else {
            throw SDPError(line: 0, "bad group attribute: no semantics")
        }
        self.init(semantics: String(semantics), mids: fields.dropFirst().map(String.init))
    }

    /// The text after `a=group:`.
    public var value: String { ([semantics] + mids).joined(separator: " ") }
}
