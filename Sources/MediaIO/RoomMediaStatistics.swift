import SFU
import WebRTC

/// A room's live media figures (for `GET /v1/Rooms/{RoomSid}/Stats`), read
/// on the room's media worker in one job, so every number in it is of the
/// same moment.
public struct RoomMediaStatistics: Sendable, Equatable {
    public var participants: [ParticipantHandle: ParticipantMediaStatistics] = [:]

    public init() {}
}

/// One participant's media: its network quality, the RTT of its subscriber
/// connection, what the server receives of each track it publishes and what
/// it sends it of each track it subscribes to.
public struct ParticipantMediaStatistics: Sendable, Equatable {
    /// The quality monitor's newest figures (`ParticipantQuality`); nil
    /// before its first rating.
    public var networkQuality: ParticipantQuality?
    /// Seconds, from the subscriber's receiver reports (RFC 3550 LSR/DLSR);
    /// nil before one echoed a sender report of ours.
    public var roundTripTime: Double?
    public var published: [PublishedTrackStatistics] = []
    public var subscribed: [SubscribedTrackStatistics] = []

    public init() {}
}

/// One published track as the server receives it.
public struct PublishedTrackStatistics: Sendable, Equatable {
    public var track: TrackHandle
    public var receiver: ReceiverSnapshot
}

/// One track as the server sends it to the subscribing participant.
public struct SubscribedTrackStatistics: Sendable, Equatable {
    public var track: TrackHandle
    /// Who published it (nil when it left meanwhile).
    public var publisher: ParticipantHandle?
    public var downTrack: DownTrackSnapshot
}

/// What the control plane knows of a room's participants, for the job that
/// reads their figures on the worker.
struct RoomStatisticsPlan: Sendable {
    struct Participant: Sendable {
        var publisher: TransportID?
        var published: [TrackHandle]
        var subscriber: TransportID?
        var subscribed: [(track: TrackHandle, publisher: ParticipantHandle?)]
    }

    var worker: Int
    var participants: [ParticipantHandle: Participant] = [:]
}

extension MediaPlane {
    /// The live media figures of `room`'s participants (those with media:
    /// one that never negotiated a connection is absent). Asks the room's
    /// worker once; the packet path is not touched.
    public func roomStatistics(room: RoomHandle) async -> RoomMediaStatistics {
        let plan = state.withLock { state -> RoomStatisticsPlan in
            var plan = RoomStatisticsPlan(worker: workerIndex(for: room))
            var publisherOf: [TrackHandle: ParticipantHandle] = [:]
            for (participant, media) in state.participants where media.room == room {
                for track in media.publisher.map({ Array($0.tracks.values) }) ?? [] { publisherOf[track.handle] = participant }
            }
            for (participant, media) in state.participants where media.room == room {
                let published = (media.publisher?.tracks.values).map { tracks in
                    tracks.map(\.handle).sorted { $0.rawValue < $1.rawValue }
                } ?? []
                let subscribed = media.subscriber.applied.keys.sorted { $0.rawValue < $1.rawValue }.map {
                    (track: $0, publisher: publisherOf[$0])
                }
                plan.participants[participant] = RoomStatisticsPlan.Participant(
                    publisher: media.publisher?.transport, published: published,
                    subscriber: media.subscriber.transport, subscribed: subscribed)
            }
            return plan
        }
        guard !plan.participants.isEmpty else { return RoomMediaStatistics() }
        return await workers[plan.worker].perform { rooms in rooms.statistics(of: room, plan) }
    }
}

extension MediaWorkerRooms {
    /// Reads `plan`'s tracks off the room's router and its quality monitors.
    func statistics(of room: RoomHandle, _ plan: RoomStatisticsPlan) -> RoomMediaStatistics {
        var result = RoomMediaStatistics()
        let now = MediaClock.now()
        let router = routers[room]
        let monitors = signals[room]?.monitors ?? [:]
        for (participant, entry) in plan.participants {
            var figures = ParticipantMediaStatistics()
            if let monitor = monitors[participant], monitor.current != nil {
                figures.networkQuality = ParticipantQuality(monitor)
            }
            if let router {
                if let subscriber = entry.subscriber {
                    figures.roundTripTime = router.roundTripTime(subscriber: subscriber, now: now)
                    for track in entry.subscribed {
                        guard let snapshot = router.downTrackSnapshot(track: track.track.trackID, subscriber: subscriber, now: now)
                        else { continue }
                        figures.subscribed.append(
                            SubscribedTrackStatistics(track: track.track, publisher: track.publisher, downTrack: snapshot))
                    }
                }
                for track in entry.published {
                    guard let snapshot = router.receiverSnapshot(track: track.trackID, now: now) else { continue }
                    figures.published.append(PublishedTrackStatistics(track: track, receiver: snapshot))
                }
            }
            result.participants[participant] = figures
        }
        return result
    }
}
