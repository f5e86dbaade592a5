import Packets
import SDP
import WebRTC

/// What the client reads from a server description (publish answer or
/// subscriber offer): the transport of the BUNDLE-tagged m-line and, per
/// m-line, its mid, kind, direction, codec payload type, SSRC, RTX
/// payload type and SSRC, and extension IDs.
struct ServerDescription {
    struct Media {
        var mid: String
        var kind: TrackKind?
        var direction: SDPDirection
        var isRejected: Bool
        /// The VP8 or Opus payload type.
        var payloadType: UInt8?
        /// The media SSRC (first of an FID group, else the first a=ssrc).
        var ssrc: SSRC?
        /// The RTX (RFC 4588) payload type whose `apt=` is `payloadType`
        /// (video only), and the RTX SSRC: the second of the FID group.
        var rtxPayloadType: UInt8?
        var rtxSSRC: SSRC?
        var extensions: NegotiatedHeaderExtensions
        var description: MediaDescription
    }

    var sdp: SessionDescription
    var remote: RemoteTransportParameters
    var setup: SDPSetupRole?
    /// UDP host candidates (IPv4 and IPv6) of the tagged m-line.
    var candidates: [STUNAddress]
    /// Passive ICE-TCP host candidates (RFC 6544) of the tagged m-line.
    var tcpCandidates: [STUNAddress]
    var media: [Media]

    init(parsing text: String) throws(MediaEngineError) {
        let sdp: SessionDescription
        do {
            sdp = try SessionDescription(parsing: text)
        } catch {
            throw .remoteDescription("server description does not parse: \(error)")
        }
        try self.init(sdp)
    }

    init(_ sdp: SessionDescription) throws(MediaEngineError) {
        self.sdp = sdp
        let taggedMID = sdp.bundleGroups.first?.mids.first
        guard let tagged = taggedMID.flatMap({ sdp.media(withMID: $0) }) ?? sdp.media.first(where: { !$0.isRejected })
        else { throw .remoteDescription("server description has no BUNDLE-tagged m-line") }
        guard let ufrag = tagged.iceUfrag(in: sdp), let password = tagged.icePwd(in: sdp) else {
            throw .remoteDescription("server description has no ICE credentials")
        }
        guard let fingerprint = tagged.fingerprints(in: sdp).first(where: { $0.hashFunction.lowercased() == "sha-256" })
        else { throw .remoteDescription("server description has no sha-256 fingerprint") }
        remote = RemoteTransportParameters(
            ice: ICECredentials(ufrag: ufrag, password: password), fingerprintAlgorithm: "sha-256",
            fingerprint: fingerprint.value)
        setup = tagged.setup(in: sdp)
        candidates = tagged.candidates.compactMap { candidate in
            guard candidate.isUDP, candidate.component == 1 else { return nil }
            return STUNAddress(text: candidate.address, port: candidate.port)
        }
        tcpCandidates = tagged.candidates.compactMap { candidate in
            guard candidate.transport.lowercased() == "tcp", candidate.component == 1,
                candidate.extensions.contains(where: { $0.name == "tcptype" && $0.value == "passive" })
            else { return nil }
            return STUNAddress(text: candidate.address, port: candidate.port)
        }
        media = sdp.media.map { description in
            let kind = TrackKind(description.kind)
            let name = kind == .video ? "VP8" : "opus"
            let payloadType = description.formats.compactMap { UInt8($0) }.first { pt in
                description.rtpmap(for: pt)?.isEncoding(name) ?? false
            }
            let fid = description.ssrcGroups.first { $0.semantics == "FID" }
            let ssrc = (fid?.ssrcs.first ?? description.ssrcs.first?.ssrc).map(SSRC.init(rawValue:))
            let rtxPayloadType = kind == .video ? payloadType.flatMap { pt in
                description.formats.compactMap { UInt8($0) }.first { rtx in
                    guard let map = description.rtpmap(for: rtx), map.isEncoding("rtx"), map.clockRate == 90000 else { return false }
                    return description.fmtp(for: rtx)?["apt"] == String(pt)
                }
            } : nil
            let rtxSSRC = fid.flatMap { $0.ssrcs.count == 2 ? SSRC(rawValue: $0.ssrcs[1]) : nil }
            func id(_ uri: String) -> UInt8? { description.extmapID(for: uri).flatMap { UInt8(exactly: $0) } }
            return Media(
                mid: description.mid ?? "", kind: kind, direction: description.direction(in: sdp),
                isRejected: description.isRejected, payloadType: payloadType, ssrc: ssrc,
                rtxPayloadType: rtxPayloadType, rtxSSRC: rtxPayloadType == nil ? nil : rtxSSRC,
                extensions: NegotiatedHeaderExtensions(
                    mid: id(SDPExtmap.midURI), audioLevel: id(SDPExtmap.audioLevelURI),
                    absSendTime: id(SDPExtmap.absSendTimeURI), transportCC: id(SDPExtmap.transportCCURI),
                    rid: id(SDPExtmap.ridURI), repairedRID: id(SDPExtmap.repairedRIDURI)),
                description: description)
        }
    }

    /// The UDP candidate to check: the override, else one on the bind
    /// host's address, else the first the bound socket reaches (an IPv4
    /// socket IPv4 ones; an IPv6 one IPv6 ones, and IPv4 ones too when it
    /// is the dual-stack `::`).
    func target(bindHost: String, override: STUNAddress?) throws(MediaEngineError) -> STUNAddress {
        if let override { return override }
        guard let first = Self.reachable(candidates, from: bindHost) else {
            throw .remoteDescription("server description has no IPv\(Self.isIPv6(bindHost) ? 6 : 4) UDP candidate for a socket on \(bindHost)")
        }
        return first
    }

    /// The passive TCP candidate to connect to (ICE-TCP), chosen as the UDP
    /// one is; nil when the server offers none the bind host reaches.
    func tcpTarget(bindHost: String) -> STUNAddress? {
        Self.reachable(tcpCandidates, from: bindHost)
    }

    private static func isIPv6(_ bindHost: String) -> Bool {
        STUNAddress(text: bindHost, port: 0)?.family == .ipv6
    }

    private static func reachable(_ candidates: [STUNAddress], from bindHost: String) -> STUNAddress? {
        let bound = STUNAddress(text: bindHost, port: 0)
        if let bound, let same = candidates.first(where: { var host = $0; host.port = 0; return host == bound }) {
            return same
        }
        let ipv6 = bound?.family == .ipv6
        let reachable = candidates.filter { ipv6 ? ($0.family == .ipv6 || bindHost == "::") : $0.family == .ipv4 }
        // A dual-stack socket tries IPv6 first (RFC 8421's preference).
        return reachable.first(where: { $0.family == .ipv6 }) ?? reachable.first
    }
}
