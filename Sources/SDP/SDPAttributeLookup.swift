// One way to pick typed values out of an attribute list, for the session
// level and media sections alike: `attributes.firstValue(SDPAttribute.setupValue)`
// or, for a named one, `attributes.setup`. Each `...Value` extracts the
// payload of one case (nil for any other case).

extension SDPAttribute {
    static func groupValue(_ a: SDPAttribute) -> SDPGroup? { if case .group(let v) = a { v } else { nil } }
    static func midValue(_ a: SDPAttribute) -> String? { if case .mid(let v) = a { v } else { nil } }
    static func msidValue(_ a: SDPAttribute) -> SDPMediaStreamID? { if case .msid(let v) = a { v } else { nil } }
    static func msidSemanticValue(_ a: SDPAttribute) -> SDPMSIDSemantic? { if case .msidSemantic(let v) = a { v } else { nil } }
    static func rtpmapValue(_ a: SDPAttribute) -> SDPRTPMap? { if case .rtpmap(let v) = a { v } else { nil } }
    static func extmapValue(_ a: SDPAttribute) -> SDPExtmap? { if case .extmap(let v) = a { v } else { nil } }
    static func ssrcValue(_ a: SDPAttribute) -> SDPSSRCAttribute? { if case .ssrc(let v) = a { v } else { nil } }
    static func ssrcGroupValue(_ a: SDPAttribute) -> SDPSSRCGroup? { if case .ssrcGroup(let v) = a { v } else { nil } }
    static func ridValue(_ a: SDPAttribute) -> SDPRID? { if case .rid(let v) = a { v } else { nil } }
    static func simulcastValue(_ a: SDPAttribute) -> SDPSimulcast? { if case .simulcast(let v) = a { v } else { nil } }
    static func iceUfragValue(_ a: SDPAttribute) -> String? { if case .iceUfrag(let v) = a { v } else { nil } }
    static func icePwdValue(_ a: SDPAttribute) -> String? { if case .icePwd(let v) = a { v } else { nil } }
    static func iceOptionsValue(_ a: SDPAttribute) -> [String]? { if case .iceOptions(let v) = a { v } else { nil } }
    static func fingerprintValue(_ a: SDPAttribute) -> SDPFingerprint? { if case .fingerprint(let v) = a { v } else { nil } }
    static func setupValue(_ a: SDPAttribute) -> SDPSetupRole? { if case .setup(let v) = a { v } else { nil } }
    static func candidateValue(_ a: SDPAttribute) -> SDPCandidate? { if case .candidate(let v) = a { v } else { nil } }
    static func directionValue(_ a: SDPAttribute) -> SDPDirection? { if case .direction(let v) = a { v } else { nil } }
    static func sctpPortValue(_ a: SDPAttribute) -> UInt16? { if case .sctpPort(let v) = a { v } else { nil } }
}

extension [SDPAttribute] {
    /// The first non-nil `extract` result, in line order.
    func firstValue<T>(_ extract: (SDPAttribute) -> T?) -> T? {
        for attribute in self {
            if let value = extract(attribute) { return value }
        }
        return nil
    }

    /// Every non-nil `extract` result, in line order.
    func allValues<T>(_ extract: (SDPAttribute) -> T?) -> [T] { compactMap(extract) }

    var mid: String? { firstValue(SDPAttribute.midValue) }
    var direction: SDPDirection? { firstValue(SDPAttribute.directionValue) }
    var msidSemantic: SDPMSIDSemantic? { firstValue(SDPAttribute.msidSemanticValue) }
    var iceUfrag: String? { firstValue(SDPAttribute.iceUfragValue) }
    var icePwd: String? { firstValue(SDPAttribute.icePwdValue) }
    var iceOptions: [String]? { firstValue(SDPAttribute.iceOptionsValue) }
    var setup: SDPSetupRole? { firstValue(SDPAttribute.setupValue) }
    var fingerprints: [SDPFingerprint] { allValues(SDPAttribute.fingerprintValue) }
}
