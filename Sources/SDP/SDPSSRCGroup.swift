/// `a=ssrc-group:<semantics> <ssrc> ...` (RFC 5576 section 4.2), e.g.
/// `a=ssrc-group:FID 894581214 625799870`: the second SSRC carries RTX for
/// the first (RFC 4588). `SIM` lists simulcast layers.
public struct SDPSSRCGroup: Equatable, Hashable, Sendable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    init(parsing value: Substring) throws(SDPError) {
        let fields = sdpFields(value)
        guard let semantics = fields.first, !semantics.isEmpty else {
            throw SDPError(line: 0, "bad ssrc-group attribute: no semantics")
        }
        var ssrcs: [UInt32] = []
        for field in fields.dropFirst() {
            guard let ssrc = sdpDecimal(field, as: UInt32.self) else {
                throw SDPError(line: 0, "bad ssrc-group attribute: bad ssrc '\(field)'")
            }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(semantics), ssrcs: ssrcs)
    }

    /// The text after `a=ssrc-group:`.
    public var value: String { ([semantics] + ssrcs.map { String($0) }).joined(separator: " ") }
}
