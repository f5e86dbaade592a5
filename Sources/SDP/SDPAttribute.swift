/// One `a=` line (RFC 8866 section 5.13), typed for the attributes WebRTC
/// uses (PROTOCOL.md section 5), `.other` for everything else.
///
/// Parsing guarantees that `text` reproduces the source line byte for byte:
/// a line whose typed form would be written differently (a leading zero,
/// two spaces, a flag with a value) is kept as `.other` instead, so unknown
/// spellings survive a parse/serialize round trip untouched. Odd spacing
/// (a leading, trailing or doubled space between the fields a typed form
/// parses) never makes a line an error, and never types a field with a
/// stray space in it: such a line is `.other`.
public enum SDPAttribute: Equatable, Hashable, Sendable {
    case group(SDPGroup)
    case mid(String)
    case msid(SDPMediaStreamID)
    case msidSemantic(SDPMSIDSemantic)
    case rtpmap(SDPRTPMap)
    case fmtp(SDPFormatParameters)
    case rtcpFeedback(SDPRTCPFeedback)
    case extmap(SDPExtmap)
    case extmapAllowMixed
    case ssrc(SDPSSRCAttribute)
    case ssrcGroup(SDPSSRCGroup)
    case rid(SDPRID)
    case simulcast(SDPSimulcast)
    case iceUfrag(String)
    case icePwd(String)
    case iceOptions([String])
    case iceLite
    case fingerprint(SDPFingerprint)
    case setup(SDPSetupRole)
    case candidate(SDPCandidate)
    case endOfCandidates
    case rtcpMux
    case rtcpRsize
    /// `a=rtcp:9 IN IP4 0.0.0.0` (RFC 3605), value kept as written.
    case rtcp(String)
    case direction(SDPDirection)
    /// RFC 8843 section 6: an m-line with port 0 that belongs to a BUNDLE group.
    case bundleOnly
    /// `a=sctp-port:5000` (RFC 8841).
    case sctpPort(UInt16)
    /// `a=max-message-size:262144` (RFC 8841).
    case maxMessageSize(UInt64)
    /// Any other attribute: `a=<name>` (value nil) or `a=<name>:<value>`.
    case other(name: String, value: String?)

    /// The attribute's name, as written before the colon.
    public var name: String {
        switch self {
        case .group: "group"
        case .mid: "mid"
        case .msid: "msid"
        case .msidSemantic: "msid-semantic"
        case .rtpmap: "rtpmap"
        case .fmtp: "fmtp"
        case .rtcpFeedback: "rtcp-fb"
        case .extmap: "extmap"
        case .extmapAllowMixed: "extmap-allow-mixed"
        case .ssrc: "ssrc"
        case .ssrcGroup: "ssrc-group"
        case .rid: "rid"
        case .simulcast: "simulcast"
        case .iceUfrag: "ice-ufrag"
        case .icePwd: "ice-pwd"
        case .iceOptions: "ice-options"
        case .iceLite: "ice-lite"
        case .fingerprint: "fingerprint"
        case .setup: "setup"
        case .candidate: "candidate"
        case .endOfCandidates: "end-of-candidates"
        case .rtcpMux: "rtcp-mux"
        case .rtcpRsize: "rtcp-rsize"
        case .rtcp: "rtcp"
        case .direction(let direction): direction.rawValue
        case .bundleOnly: "bundle-only"
        case .sctpPort: "sctp-port"
        case .maxMessageSize: "max-message-size"
        case .other(let name, _): name
        }
    }

    /// The text after the colon; nil for a flag attribute.
    public var value: String? {
        switch self {
        case .group(let group): group.value
        case .mid(let mid): mid
        case .msid(let msid): msid.value
        case .msidSemantic(let semantic): semantic.value
        case .rtpmap(let rtpmap): rtpmap.value
        case .fmtp(let fmtp): fmtp.value
        case .rtcpFeedback(let feedback): feedback.value
        case .extmap(let extmap): extmap.value
        case .ssrc(let ssrc): ssrc.text
        case .ssrcGroup(let group): group.value
        case .rid(let rid): rid.value
        case .simulcast(let simulcast): simulcast.value
        case .iceUfrag(let ufrag): ufrag
        case .icePwd(let pwd): pwd
        case .iceOptions(let options): options.joined(separator: " ")
        case .fingerprint(let fingerprint): fingerprint.text
        case .setup(let role): role.rawValue
        case .candidate(let candidate): candidate.value
        case .rtcp(let value): value
        case .sctpPort(let port): String(port)
        case .maxMessageSize(let size): String(size)
        case .other(_, let value): value
        case .extmapAllowMixed, .iceLite, .endOfCandidates, .rtcpMux, .rtcpRsize, .direction, .bundleOnly: nil
        }
    }

    /// The line without `a=` and without the line ending.
    public var text: String {
        value.map { "\(name):\($0)" } ?? name
    }

    /// Parses the text after `a=`. Throws for a known attribute whose value is
    /// malformed (an rtpmap without a clock rate, a candidate without `typ`);
    /// the error's line is 0 (SessionDescription sets it).
    public init(parsing text: String) throws(SDPError) {
        try self.init(parsing: Substring(text))
    }

    init(parsing text: Substring) throws(SDPError) {
        let (nameText, valueText) = text.sdpSplitOnce(UInt8(ascii: ":")).map { ($0.0, Optional($0.1)) } ?? (text, nil)
        let typed = try SDPAttribute.typed(name: nameText, value: valueText)
        if let typed, sdpSameBytes(typed.text, text) {
            self = typed
        } else {
            self = .other(name: String(nameText), value: valueText.map(String.init))
        }
    }

    private static func typed(name: Substring, value: Substring?) throws(SDPError) -> SDPAttribute? {
        // Flags: a value makes the line `.other` through the exact-text check.
        switch name {
        case "extmap-allow-mixed": return .extmapAllowMixed
        case "ice-lite": return .iceLite
        case "end-of-candidates": return .endOfCandidates
        case "rtcp-mux": return .rtcpMux
        case "rtcp-rsize": return .rtcpRsize
        case "bundle-only": return .bundleOnly
        case "sendrecv": return .direction(.sendrecv)
        case "sendonly": return .direction(.sendonly)
        case "recvonly": return .direction(.recvonly)
        case "inactive": return .direction(.inactive)
        default: break
        }
        guard let value else { return nil }
        if Self.isTokensOnly(name), sdpHasOddSpacing(value) { return nil }
        switch name {
        case "group": return .group(try SDPGroup(parsing: value))
        case "mid":
            guard !value.isEmpty else { throw SDPError(line: 0, "bad mid attribute: empty") }
            return .mid(String(value))
        case "msid": return .msid(try SDPMediaStreamID(parsing: value))
        case "msid-semantic": return try SDPMSIDSemantic(parsing: value).map(SDPAttribute.msidSemantic)
        case "rtpmap": return .rtpmap(try SDPRTPMap(parsing: value))
        case "fmtp":
            // Old data-channel drafts wrote `a=fmtp:webrtc-datachannel ...`: not an error.
            guard let first = value.utf8.first, first >= 0x30, first <= 0x39 else { return nil }
            return .fmtp(try SDPFormatParameters(parsing: value))
        case "rtcp-fb": return try SDPRTCPFeedback(parsing: value).map(SDPAttribute.rtcpFeedback)
        case "extmap": return try SDPExtmap(parsing: value).map(SDPAttribute.extmap)
        case "ssrc": return try SDPSSRCAttribute(parsing: value).map(SDPAttribute.ssrc)
        case "ssrc-group": return .ssrcGroup(try SDPSSRCGroup(parsing: value))
        case "rid": return .rid(try SDPRID(parsing: value))
        case "simulcast": return SDPSimulcast(value: String(value)).map(SDPAttribute.simulcast)
        case "ice-ufrag": return .iceUfrag(String(value))
        case "ice-pwd": return .icePwd(String(value))
        case "ice-options": return .iceOptions(value.sdpSplit(0x20).map(String.init))  // "" when the value is empty
        case "fingerprint": return .fingerprint(try SDPFingerprint(parsing: value))
        case "setup":
            guard let role = SDPSetupRole(rawValue: String(value)) else {
                throw SDPError(line: 0, "bad setup attribute: '\(value)' is not actpass, active, passive or holdconn")
            }
            return .setup(role)
        case "candidate": return .candidate(try SDPCandidate(parsing: value))
        case "rtcp": return .rtcp(String(value))
        case "sctp-port":
            guard let port = sdpDecimal(value, as: UInt16.self) else {
                throw SDPError(line: 0, "bad sctp-port attribute: '\(value)'")
            }
            return .sctpPort(port)
        case "max-message-size":
            guard let size = sdpDecimal(value, as: UInt64.self) else {
                throw SDPError(line: 0, "bad max-message-size attribute: '\(value)'")
            }
            return .maxMessageSize(size)
        default: return nil
        }
    }

    /// Attributes whose value is space-separated tokens only, with no free
    /// text at the end: any odd spacing (`a=setup: actpass`,
    /// `a=candidate:1  1 udp ...`, `a=msid:s  t`) keeps the line `.other`
    /// before the parser runs. rtcp-fb, extmap, ssrc and msid-semantic end in
    /// (or start with) text that may hold spaces and check their own tokens;
    /// fmtp parameters, rtcp and simulcast (which refuses any odd spacing
    /// itself) are not listed.
    private static func isTokensOnly(_ name: Substring) -> Bool {
        switch name {
        case "group", "mid", "msid", "rtpmap", "ssrc-group", "rid", "ice-ufrag", "ice-pwd", "ice-options",
             "fingerprint", "setup", "candidate", "sctp-port", "max-message-size":
            true
        default: false
        }
    }
}
