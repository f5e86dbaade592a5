import Packets
import SFU
import WebRTC

/// The control plane's view of one participant's media (kept by
/// `MediaPlane`, under its lock): which worker, which connections, what was
/// negotiated. The worker holds the live state; this is what the next
/// offer or answer is built from.
struct ParticipantMedia: Sendable {
    var room: RoomHandle
    /// The room's home worker: the publisher connection's.
    var worker: Int
    /// The subscriber connection's worker, once placed (`MediaPlane.placeSubscriber`).
    var subscriberWorker: Int?
    var publisher: PublisherMedia?
    var subscriber: SubscriberMedia
    /// The remote audio forwarded to this participant is paused (an audio
    /// interruption, PROTOCOL.md 3.3); applied to the subscriber connection
    /// whenever it exists, also when it is created after the interruption began.
    var remoteAudioPaused = false
    /// The bandwidth profile of its join, for its subscriber connection.
    var allocationProfile = AllocationProfile()

    init(room: RoomHandle, worker: Int) {
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
    var handle: TrackHandle
    var kind: MediaTrackKind
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
    var ssrcs: [TrackHandle: SubscriberSSRCs] = [:]
    /// The offer in flight, if any, and the tracks of its slots.
    var offer: SubscriberOffer?
    var offeredTracks: [String: TrackHandle] = [:]
    var answer: SubscriberAnswer?
    /// DownTracks in place on the worker, by track.
    var applied: [TrackHandle: DownTrackPlan] = [:]
}

struct SubscriberSSRCs: Sendable, Hashable {
    var primary: SSRC
    var rtx: SSRC?
}

/// One m-line of a subscriber offer as the control plane asks for it: its
/// mid and kind, and the track it carries, if any.
public struct SubscriberMediaSlot: Sendable, Hashable {
    public var mid: String
    public var kind: MediaTrackKind
    public var track: SubscriberSlotTrack?

    public init(mid: String, kind: MediaTrackKind, track: SubscriberSlotTrack?) {
        self.mid = mid
        self.kind = kind
        self.track = track
    }
}

/// The track a subscriber slot carries: its handle, and the labels its
/// `a=msid` and CNAME show the subscriber (the publisher's and the track's
/// SIDs, PROTOCOL.md section 5; opaque text to the media plane).
public struct SubscriberSlotTrack: Sendable, Hashable {
    public var handle: TrackHandle
    public var streamLabel: String
    public var trackLabel: String

    public init(handle: TrackHandle, streamLabel: String, trackLabel: String) {
        self.handle = handle
        self.streamLabel = streamLabel
        self.trackLabel = trackLabel
    }
}

/// One track a publish offer describes (PROTOCOL.md 3.2): its m-line.
public struct PublishedTrackMedia: Sendable, Hashable {
    public var mid: String
    public var handle: TrackHandle
    public var kind: MediaTrackKind
    public var enabled: Bool
    /// The publisher's priority for it (PROTOCOL.md 7).
    public var priority: MediaTrackPriority
    /// What the `tracks` entry says of its simulcast layers (sizes by RID);
    /// the layers themselves come from the offer's `a=simulcast`.
    public var layerHints: [MediaSimulcastLayer]

    public init(
        mid: String, handle: TrackHandle, kind: MediaTrackKind, enabled: Bool, priority: MediaTrackPriority = .standard,
        layerHints: [MediaSimulcastLayer] = []
    ) {
        self.mid = mid
        self.handle = handle
        self.kind = kind
        self.enabled = enabled
        self.priority = priority
        self.layerHints = layerHints
    }
}
