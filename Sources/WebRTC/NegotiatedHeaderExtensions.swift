import SDP

/// The RTP header-extension IDs (RFC 8285) of one m-line that both sides
/// agreed on, for the four extensions the server uses (PROTOCOL.md section
/// 5); nil when not negotiated. IDs are per connection: the SFU rewrites
/// them when forwarding.
public struct NegotiatedHeaderExtensions: Hashable, Sendable {
    /// `urn:ietf:params:rtp-hdrext:sdes:mid`
    public var mid: UInt8?
    /// `urn:ietf:params:rtp-hdrext:ssrc-audio-level`
    public var audioLevel: UInt8?
    /// `http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time`
    public var absSendTime: UInt8?
    /// `http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01`
    public var transportCC: UInt8?
    /// `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id` (simulcast, RFC
    /// 8852): set only on a publish m-line whose simulcast was accepted
    /// (`NegotiatedMedia.simulcast`), nil otherwise.
    public var rid: UInt8?
    /// `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id`: the RID of
    /// the layer an RTX packet repairs; set with `rid` when offered, and
    /// RTX is negotiated on a simulcast m-line only when it is.
    public var repairedRID: UInt8?

    public init(
        mid: UInt8? = nil, audioLevel: UInt8? = nil, absSendTime: UInt8? = nil, transportCC: UInt8? = nil,
        rid: UInt8? = nil, repairedRID: UInt8? = nil
    ) {
        self.mid = mid
        self.audioLevel = audioLevel
        self.absSendTime = absSendTime
        self.transportCC = transportCC
        self.rid = rid
        self.repairedRID = repairedRID
    }

    /// The URIs kept when offered, in the order the server writes them.
    static let keptURIs = [
        SDPExtmap.audioLevelURI, SDPExtmap.absSendTimeURI, SDPExtmap.transportCCURI, SDPExtmap.midURI,
    ]

    /// The IDs of the kept extensions in `media`. The caller has checked
    /// every ID is 1...255 (`NegotiationChecks`).
    init(_ media: MediaDescription) {
        func id(_ uri: String) -> UInt8? { media.extmapID(for: uri).flatMap { UInt8(exactly: $0) } }
        self.init(
            mid: id(SDPExtmap.midURI), audioLevel: id(SDPExtmap.audioLevelURI),
            absSendTime: id(SDPExtmap.absSendTimeURI), transportCC: id(SDPExtmap.transportCCURI))
    }

    /// The server's own IDs in its subscriber offers, the numbers Chromium
    /// uses (INTEROP.md): 1 audio level, 2 abs-send-time, 3 transport-cc,
    /// 4 mid; all one-byte (1...14), the same on every m-line of the BUNDLE.
    public static func subscriberOffer(for kind: MediaKind) -> NegotiatedHeaderExtensions {
        NegotiatedHeaderExtensions(mid: 4, audioLevel: kind == .audio ? 1 : nil, absSendTime: 2, transportCC: 3)
    }

    /// The `a=extmap` lines for these IDs.
    var extmaps: [SDPExtmap] {
        var lines: [SDPExtmap] = []
        if let audioLevel { lines.append(SDPExtmap(id: UInt16(audioLevel), uri: SDPExtmap.audioLevelURI)) }
        if let absSendTime { lines.append(SDPExtmap(id: UInt16(absSendTime), uri: SDPExtmap.absSendTimeURI)) }
        if let transportCC { lines.append(SDPExtmap(id: UInt16(transportCC), uri: SDPExtmap.transportCCURI)) }
        if let mid { lines.append(SDPExtmap(id: UInt16(mid), uri: SDPExtmap.midURI)) }
        return lines
    }
}
