import Packets
import SDP

/// What one m-line came to after an offer/answer: the value the lead hands
/// to the SFU (codec, SSRCs, extension IDs, feedback) for one `mid`.
public struct NegotiatedMedia: Hashable, Sendable {
    public var mid: String
    public var kind: SDP.MediaKind
    /// nil when accepted; otherwise why the m-line is rejected (port 0).
    public var rejection: NegotiationRejection?
    /// The direction the client wrote (its offer on the publisher
    /// connection, its answer on the subscriber connection), after the
    /// session-level fallback.
    public var remoteDirection: SDPDirection
    /// The codec and payload types of this connection; nil when rejected.
    public var codec: NegotiatedCodec?
    /// The SSRCs the client declared with `a=ssrc` / `a=ssrc-group:FID`.
    public var remoteSSRCs: NegotiatedSSRCs
    /// Extension IDs agreed on (all nil when rejected).
    public var headerExtensions: NegotiatedHeaderExtensions
    /// Feedback agreed on for the primary payload type (empty when rejected).
    public var feedback: NegotiatedFeedback
    /// The client's `a=msid`, if any.
    public var remoteMSID: SDPMediaStreamID?
    /// The accepted RID simulcast layers of a publish offer's video m-line
    /// (lowest first); nil when it sends one stream, including a simulcast
    /// offer that was declined (`PublishNegotiation.acceptSimulcast`). Never
    /// set on the subscriber connection.
    public var simulcast: NegotiatedSimulcast?

    public init(
        mid: String, kind: SDP.MediaKind, rejection: NegotiationRejection?, remoteDirection: SDPDirection,
        codec: NegotiatedCodec?, remoteSSRCs: NegotiatedSSRCs, headerExtensions: NegotiatedHeaderExtensions,
        feedback: NegotiatedFeedback, remoteMSID: SDPMediaStreamID?, simulcast: NegotiatedSimulcast? = nil
    ) {
        self.mid = mid
        self.kind = kind
        self.rejection = rejection
        self.remoteDirection = remoteDirection
        self.codec = codec
        self.remoteSSRCs = remoteSSRCs
        self.headerExtensions = headerExtensions
        self.feedback = feedback
        self.remoteMSID = remoteMSID
        self.simulcast = simulcast
    }

    public var isAccepted: Bool { rejection == nil }

    /// Whether the client sends media on this m-line: accepted and written
    /// `sendonly`/`sendrecv`. On the publisher connection a track whose
    /// m-line is not sending is unpublished (PROTOCOL.md section 3.2).
    public var remoteSends: Bool { isAccepted && remoteDirection.sends }
}

/// The SSRCs a client declared for one m-line (RFC 5576). On a simulcast
/// m-line they do not say which layer is which: Chromium declares none,
/// Firefox one `a=ssrc-group:FID` pair per layer with no RID, so `primary`
/// and `rtx` are only its first pair; layers are bound by the RID header
/// extension (`NegotiatedMedia.simulcast`, PROTOCOL.md section 7).
public struct NegotiatedSSRCs: Hashable, Sendable {
    /// The media SSRC: the first of an `a=ssrc-group:FID`, else of the
    /// first `a=ssrc` line; nil when none is declared (Firefox and
    /// Chromium may omit them; the SFU then learns the SSRC from the MID
    /// header extension).
    public var primary: SSRC?
    /// The RTX SSRC: the second of `a=ssrc-group:FID`.
    public var rtx: SSRC?
    /// `cname` of the primary SSRC.
    public var cname: String?
    /// Every SSRC named by an `a=ssrc` line, in order, without repeats.
    public var all: [SSRC]

    public init(primary: SSRC? = nil, rtx: SSRC? = nil, cname: String? = nil, all: [SSRC] = []) {
        self.primary = primary
        self.rtx = rtx
        self.cname = cname
        self.all = all
    }

    init(_ media: MediaDescription) {
        var all: [SSRC] = []
        for line in media.ssrcs where !all.contains(SSRC(line.ssrc)) {
            all.append(SSRC(line.ssrc))
        }
        let fid = media.ssrcGroups.first { $0.semantics == "FID" && $0.ssrcs.count == 2 }
        let primary = fid.map { SSRC($0.ssrcs[0]) } ?? all.first
        let cname = primary.flatMap { p in
            media.ssrcs.first { $0.ssrc == p.rawValue && $0.attribute == "cname" }?.value
        }
        self.init(primary: primary, rtx: fid.map { SSRC($0.ssrcs[1]) }, cname: cname, all: all)
    }
}
