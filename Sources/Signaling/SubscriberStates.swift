import Foundation
import Node
import Rooms
import Synchronization

/// The server-offered (subscriber) connection of a participant, which
/// outlives any one socket: a resume on a new WebSocket keeps its m-lines
/// and re-sends an offer that was in flight (PROTOCOL.md 3.4 and 3.6).
struct SubscriberConnectionState: Sendable {
    var slots: [SubscriberSlot] = []
    var offerInFlight: (message: ServerMessage, sentAt: Date)?
    /// The subscriptions changed while an offer was in flight: offer again
    /// once it is answered (never two offers before an answer).
    var offerWanted = false
    /// The `bandwidthProfile` of the participant's join (a resume that
    /// carries one replaces it).
    var bandwidthProfile = BandwidthProfile()
}

/// Every participant's `SubscriberConnectionState`, shared by the sessions.
final class SubscriberStates: Sendable {
    private let states = Mutex<[ParticipantSID: SubscriberConnectionState]>([:])

    func withState<R>(_ participant: ParticipantSID, _ body: (inout SubscriberConnectionState) -> R) -> R {
        states.withLock { all in body(&all[participant, default: SubscriberConnectionState()]) }
    }

    func remove(_ participant: ParticipantSID) {
        _ = states.withLock { $0.removeValue(forKey: participant) }
    }

    /// Forgets participants that are gone for good (a reconnect window
    /// that expired leaves no other trace here).
    func keepOnly(_ current: Set<ParticipantSID>) {
        states.withLock { all in all = all.filter { current.contains($0.key) } }
    }

    var count: Int { states.withLock { $0.count } }
}

/// One m-line of a subscriber connection: a removed track's m-line stays,
/// inactive, and may be reused by a later track of the same kind.
struct SubscriberSlot: Sendable, Equatable {
    var mid: String
    var kind: TrackKind
    var track: (sid: String, publisher: String)?

    static func == (lhs: SubscriberSlot, rhs: SubscriberSlot) -> Bool {
        lhs.mid == rhs.mid && lhs.kind == rhs.kind && lhs.track?.sid == rhs.track?.sid
            && lhs.track?.publisher == rhs.track?.publisher
    }

    /// The slot as the media plane builds the offer from it.
    var request: SubscriberSlotRequest {
        SubscriberSlotRequest(
            mid: mid, kind: kind,
            track: track.map { SubscribedTrackRef(sid: TrackSID(unchecked: $0.sid), publisher: ParticipantSID(unchecked: $0.publisher)) })
    }
}
