import Packets
import Rooms
import SFU
import WebRTC

/// The control plane's view of one participant's media (kept by
/// `MediaPlane`, under its lock): which worker, which connections, what was
/// negotiated. The worker holds the live state; this is what the next
/// offer or answer is built from.
struct ParticipantMedia: Sendable {
    var room: RoomSID
    var worker: Int
    var publisher: PublisherMedia?
    var subscriber: SubscriberMedia

    init(room: RoomSID, worker: Int) {
        self.room = room
        self.worker = worker
        self.subscriber = SubscriberMedia(local: .random())
    }
}

/// The publisher connection: the client offers, the server answers.
struct PublisherMedia: Sendable {
    var transport: TransportID
    var local: ICECredentials
    var answer: PublishAnswer
    var sessionVersion: UInt64
    /// Published tracks by mid.
    var tracks: [String: PublishedMediaTrack]
}

struct PublishedMediaTrack: Sendable, Hashable {
    var sid: TrackSID
    var id: TrackID
    var kind: SFU.MediaKind
}

/// The subscriber connection: the server offers, the client answers.
struct SubscriberMedia: Sendable {
    var transport: TransportID?
    /// The credentials the next offer carries (new ones after `restartIce`).
    var local: ICECredentials
    /// The credentials the worker's transport uses now.
    var transportLocal: ICECredentials?
    var sessionVersion: UInt64 = 0
    /// The SSRCs this subscriber receives each track on (kept while the
    /// track stays subscribed; a track placed again gets new ones).
    var ssrcs: [TrackSID: SubscriberSSRCs] = [:]
    /// The offer in flight, if any, and the tracks of its slots.
    var offer: SubscriberOffer?
    var offeredTracks: [String: TrackSID] = [:]
    var answer: SubscriberAnswer?
    /// DownTracks in place on the worker, by track.
    var applied: [TrackSID: DownTrackPlan] = [:]
    /// An audio interruption pauses the audio forwarded to this participant
    /// (PROTOCOL.md 3.3). Kept here too, so that a connection created after
    /// the interruption began starts paused.
    var remoteAudioPaused = false
}

struct SubscriberSSRCs: Sendable, Hashable {
    var primary: SSRC
    var rtx: SSRC?
}

/// One m-line of a subscriber offer as the control plane asks for it.
public struct SubscriberMediaSlot: Sendable, Hashable {
    public var mid: String
    public var kind: TrackKind
    public var track: (sid: TrackSID, publisher: ParticipantSID)?

    public init(mid: String, kind: TrackKind, track: (sid: TrackSID, publisher: ParticipantSID)?) {
        self.mid = mid
        self.kind = kind
        self.track = track
    }

    public static func == (lhs: SubscriberMediaSlot, rhs: SubscriberMediaSlot) -> Bool {
        lhs.mid == rhs.mid && lhs.kind == rhs.kind && lhs.track?.sid == rhs.track?.sid && lhs.track?.publisher == rhs.track?.publisher
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mid)
        hasher.combine(kind)
        hasher.combine(track?.sid)
    }
}
