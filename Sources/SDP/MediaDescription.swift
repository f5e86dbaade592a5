/// One media section (RFC 8866 section 5.14): an `m=` line and the lines up
/// to the next `m=`:
///
///     m=<media> <port>[/<number of ports>] <proto> <fmt> ...
///     i=, c=, b=, k=, then a= lines
public struct MediaDescription: Equatable, Hashable, Sendable {
    public var kind: MediaKind
    /// 0 rejects the section unless it is `a=bundle-only` (RFC 8843 section 6).
    public var port: UInt16
    public var numberOfPorts: UInt16?
    /// `UDP/TLS/RTP/SAVPF` for WebRTC media, `UDP/DTLS/SCTP` for data channels.
    public var proto: String
    /// Payload types (or `webrtc-datachannel`), in preference order.
    public var formats: [String]
    /// `i=`
    public var information: String?
    public var connection: SDPConnection?
    public var bandwidths: [SDPBandwidth]
    /// `k=` (obsolete, kept as written).
    public var encryptionKey: String?
    public var attributes: [SDPAttribute]

    public init(
        kind: MediaKind, port: UInt16, numberOfPorts: UInt16? = nil, proto: String = "UDP/TLS/RTP/SAVPF",
        formats: [String], information: String? = nil, connection: SDPConnection? = nil,
        bandwidths: [SDPBandwidth] = [], encryptionKey: String? = nil, attributes: [SDPAttribute] = []
    ) {
        self.kind = kind
        self.port = port
        self.numberOfPorts = numberOfPorts
        self.proto = proto
        self.formats = formats
        self.information = information
        self.connection = connection
        self.bandwidths = bandwidths
        self.encryptionKey = encryptionKey
        self.attributes = attributes
    }

    /// Parses the value after `m=`; the other lines are added by SessionDescription.
    init(parsingMediaLine value: Substring) throws(SDPError) {
        // RFC 8866 section 5.14: `<fmt list>` has at least one format.
        guard let fields = sdpTokens(value), fields.count >= 4 else {
            throw SDPError(line: 0, "bad m= line: expected '<media> <port> <proto> <format> ...'")
        }
        var portText = fields[1]
        var numberOfPorts: UInt16?
        if let (port, count) = portText.sdpSplitOnce(UInt8(ascii: "/")) {
            guard let count = sdpDecimal(count, as: UInt16.self) else {
                throw SDPError(line: 0, "bad m= line: bad number of ports '\(fields[1])'")
            }
            portText = port
            numberOfPorts = count
        }
        guard let port = sdpDecimal(portText, as: UInt16.self) else {
            throw SDPError(line: 0, "bad port '\(fields[1])' in m= line")
        }
        self.init(
            kind: MediaKind(String(fields[0])), port: port, numberOfPorts: numberOfPorts, proto: String(fields[2]),
            formats: fields.dropFirst(3).map(String.init))
    }

    /// The value after `m=`.
    public var mediaLine: String {
        ([kind.description, "\(port)" + (numberOfPorts.map { "/\($0)" } ?? ""), proto] + formats)
            .joined(separator: " ")
    }

    /// Appends this section's lines, each ending in CRLF.
    func write(to text: inout String) {
        text += "m=\(mediaLine)\r\n"
        if let information { text += "i=\(information)\r\n" }
        if let connection { text += "c=\(connection.value)\r\n" }
        for bandwidth in bandwidths { text += "b=\(bandwidth.text)\r\n" }
        if let encryptionKey { text += "k=\(encryptionKey)\r\n" }
        for attribute in attributes { text += "a=\(attribute.text)\r\n" }
    }
}

// MARK: - Accessors

extension MediaDescription {
    /// `a=mid:`
    public var mid: String? { attributes.mid }

    /// The media-level direction attribute; see `direction(in:)` for the effective one.
    public var direction: SDPDirection? { attributes.direction }

    public var rtpmaps: [SDPRTPMap] { attributes.allValues(SDPAttribute.rtpmapValue) }

    /// The rtpmap of `payloadType`.
    public func rtpmap(for payloadType: UInt8) -> SDPRTPMap? {
        rtpmaps.first { $0.payloadType == payloadType }
    }

    /// The first `a=fmtp:` of `payloadType`.
    public func fmtp(for payloadType: UInt8) -> SDPFormatParameters? {
        attributes.firstValue { if case .fmtp(let fmtp) = $0, fmtp.payloadType == payloadType { fmtp } else { nil } }
    }

    /// The feedback of `payloadType`, including `a=rtcp-fb:*` lines, in order.
    public func rtcpFeedback(for payloadType: UInt8) -> [SDPRTCPFeedback] {
        attributes.allValues { if case .rtcpFeedback(let fb) = $0, fb.applies(to: payloadType) { fb } else { nil } }
    }

    public var extmaps: [SDPExtmap] { attributes.allValues(SDPAttribute.extmapValue) }

    /// The extmap id of `uri`, nil when not offered.
    public func extmapID(for uri: String) -> UInt16? {
        extmaps.first { $0.uri == uri }?.id
    }

    public var ssrcs: [SDPSSRCAttribute] { attributes.allValues(SDPAttribute.ssrcValue) }

    public var ssrcGroups: [SDPSSRCGroup] { attributes.allValues(SDPAttribute.ssrcGroupValue) }

    public var candidates: [SDPCandidate] { attributes.allValues(SDPAttribute.candidateValue) }

    public var rids: [SDPRID] { attributes.allValues(SDPAttribute.ridValue) }

    public var simulcast: SDPSimulcast? { attributes.firstValue(SDPAttribute.simulcastValue) }

    /// `a=msid:`
    public var msid: SDPMediaStreamID? { attributes.firstValue(SDPAttribute.msidValue) }

    public var isBundleOnly: Bool { attributes.contains(.bundleOnly) }

    /// Port 0 without `a=bundle-only` (RFC 8843 section 6: a bundle-only
    /// section is part of its BUNDLE group, not rejected).
    public var isRejected: Bool { port == 0 && !isBundleOnly }

    public var hasRTCPMux: Bool { attributes.contains(.rtcpMux) }

    public var sctpPort: UInt16? { attributes.firstValue(SDPAttribute.sctpPortValue) }

    /// The first value of an attribute by name (typed or not), e.g. `"rtcp-xr"`;
    /// `""` for a flag.
    public func attributeValue(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }
}

// MARK: - Accessors that fall back to the session level

// Firefox puts fingerprint, ice-options and even sendrecv at session level
// (INTEROP.md); RFC 8866 lets a session-level attribute stand for every
// section that does not set its own.
extension MediaDescription {
    /// `a=ice-ufrag:` of this section, else of the session.
    public func iceUfrag(in session: SessionDescription) -> String? {
        attributes.iceUfrag ?? session.attributes.iceUfrag
    }

    /// `a=ice-pwd:` of this section, else of the session.
    public func icePwd(in session: SessionDescription) -> String? {
        attributes.icePwd ?? session.attributes.icePwd
    }

    /// The fingerprints of this section, else of the session (aiortc sends
    /// three hash functions; pick by `hashFunction`).
    public func fingerprints(in session: SessionDescription) -> [SDPFingerprint] {
        let own = attributes.fingerprints
        return own.isEmpty ? session.attributes.fingerprints : own
    }

    /// The first fingerprint of this section, else of the session.
    public func fingerprint(in session: SessionDescription) -> SDPFingerprint? {
        fingerprints(in: session).first
    }

    /// `a=setup:` of this section, else of the session.
    public func setup(in session: SessionDescription) -> SDPSetupRole? {
        attributes.setup ?? session.attributes.setup
    }

    /// `a=ice-options:` of this section, else of the session.
    public func iceOptions(in session: SessionDescription) -> [String] {
        attributes.iceOptions ?? session.attributes.iceOptions ?? []
    }

    /// The effective direction: this section's, else the session's, else
    /// `sendrecv` (RFC 8866 section 6.7.3).
    public func direction(in session: SessionDescription) -> SDPDirection {
        direction ?? session.direction ?? .sendrecv
    }

    /// Media-level ICE ufrag only (nil when it sits at session level).
    public var iceUfrag: String? { attributes.iceUfrag }
    /// Media-level ICE password only.
    public var icePwd: String? { attributes.icePwd }
    /// Media-level first fingerprint only.
    public var fingerprint: SDPFingerprint? { attributes.firstValue(SDPAttribute.fingerprintValue) }
    /// Media-level setup role only.
    public var setup: SDPSetupRole? { attributes.setup }
}
