/// `a=rtcp-fb:<payload type or *> <type> [<parameter>]` (RFC 4585 section
/// 4.2), e.g. `a=rtcp-fb:96 nack pli`, `a=rtcp-fb:96 ccm fir`,
/// `a=rtcp-fb:96 goog-remb`, `a=rtcp-fb:* transport-cc`.
public struct SDPRTCPFeedback: Equatable, Hashable, Sendable {
    /// nil for `*` (every payload type of the m-line).
    public var payloadType: UInt8?
    /// `nack`, `ccm`, `goog-remb`, `transport-cc`, `trr-int`, ...
    public var type: String
    /// Everything after the type: `pli`, `fir`, `tmmbr smaxpr=120`; nil when absent.
    public var parameter: String?

    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    /// Whether this feedback applies to `payloadType` (directly or through `*`).
    public func applies(to payloadType: UInt8) -> Bool {
        self.payloadType == nil || self.payloadType == payloadType
    }

    /// nil when spacing leaves the payload type or the type empty
    /// (`96  nack`, `96 `, ` 96 nack`): the line is then kept as `.other`.
    /// The parameter is free text and kept as written.
    init?(parsing value: Substring) throws(SDPError) {
        guard let (format, rest) = value.sdpSplitOnce(0x20) else {
            throw SDPError(line: 0, "bad rtcp-fb attribute: expected '<payload type> <type>'")
        }
        let (type, parameter) = rest.sdpSplitOnce(0x20) ?? (rest, nil)
        guard !format.isEmpty, !type.isEmpty else { return nil }
        var payloadType: UInt8?
        if !sdpSameBytes(format, "*") {
            guard let pt = sdpDecimal(format, as: UInt8.self), pt < 128 else {
                throw SDPError(line: 0, "bad rtcp-fb attribute: payload type must be 0-127 or *")
            }
            payloadType = pt
        }
        self.init(payloadType: payloadType, type: String(type), parameter: parameter.map(String.init))
    }

    /// The text after `a=rtcp-fb:`.
    public var value: String {
        (payloadType.map { String($0) } ?? "*") + " " + type + (parameter.map { " \($0)" } ?? "")
    }
}
