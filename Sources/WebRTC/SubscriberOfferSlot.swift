import Packets
import SDP

/// One m-line of a subscriber connection: its mid and kind are fixed for
/// the connection's life (RFC 3264 section 8); the track it carries may
/// change. A removed track's slot stays, `a=inactive`, and may be reused
/// later by a track of the same kind with a new SSRC (PROTOCOL.md 3.4, 5).
public struct SubscriberOfferSlot: Hashable, Sendable {
    public var mid: String
    /// `.audio` or `.video`.
    public var kind: SDP.MediaKind
    /// The track sent on this m-line; nil for an inactive slot.
    public var track: SubscriberOfferTrack?

    public init(mid: String, kind: SDP.MediaKind, track: SubscriberOfferTrack? = nil) {
        self.mid = mid
        self.kind = kind
        self.track = track
    }
}

/// A published track as one subscriber receives it: the SFU's DownTrack
/// SSRCs for this subscriber, named by the publisher's SIDs.
public struct SubscriberOfferTrack: Hashable, Sendable {
    /// The publisher's participant SID (`PA…`): msid stream id and CNAME.
    public var participantSID: String
    /// The track SID (`MT…`): msid track id.
    public var trackSID: String
    public var ssrc: SSRC
    /// The SSRC NACK repairs are sent on when the subscriber accepts RTX
    /// (video only; ignored on audio). nil: RTX is not offered.
    public var rtxSSRC: SSRC?

    public init(participantSID: String, trackSID: String, ssrc: SSRC, rtxSSRC: SSRC? = nil) {
        self.participantSID = participantSID
        self.trackSID = trackSID
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }
}
