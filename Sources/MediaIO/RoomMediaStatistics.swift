import SFU
import WebRTC

/// A room's live media figures (for `GET /v1/Rooms/{RoomSid}/Stats`), read
/// on the room's media worker in one job, so every number in it is of the
/// same moment. The media plane keys them by its handles; `Node` re-keys
/// the same type by SID (`rekeyed`).
public struct RoomMediaStatistics<Participant: Hashable & Sendable, Track: Hashable & Sendable>: Sendable, Equatable {
    public var participants: [Participant: ParticipantMediaStatistics<Participant, Track>] = [:]

    public init() {}

    /// The same figures under other keys; an entry whose key has no
    /// counterpart (a participant or track gone meanwhile) is left out, and
    /// each participant's tracks are sorted by their new key.
    public func rekeyed<P: Hashable & Sendable, T: Hashable & Sendable & Comparable>(
        participant: (Participant) -> P?, track: (Track) -> T?
    ) -> RoomMediaStatistics<P, T> {
        var result = RoomMediaStatistics<P, T>()
        for (key, media) in participants {
            guard let newKey = participant(key) else { continue }
            var figures = ParticipantMediaStatistics<P, T>()
            figures.networkQuality = media.networkQuality
            figures.roundTripTime = media.roundTripTime
            figures.availableOutgoingBitrate = media.availableOutgoingBitrate
            figures.published = media.published.compactMap { entry in
                track(entry.track).map { PublishedTrackStatistics(track: $0, receiver: entry.receiver) }
            }.sorted { $0.track < $1.track }
            figures.subscribed = media.subscribed.compactMap { entry in
                track(entry.track).map {
                    SubscribedTrackStatistics(track: $0, publisher: entry.publisher.flatMap(participant), downTrack: entry.downTrack)
                }
            }.sorted { $0.track < $1.track }
            result.participants[newKey] = figures
        }
        return result
    }
}

extension RoomMediaStatistics {
    /// Adds what another worker read: a participant's subscriber side may
    /// live on another worker than its publisher side and quality monitor.
    mutating func merge(_ other: Self) {
        for (key, theirs) in other.participants {
            guard var figures = participants[key] else {
                participants[key] = theirs
                continue
            }
            figures.networkQuality = figures.networkQuality ?? theirs.networkQuality
            figures.roundTripTime = figures.roundTripTime ?? theirs.roundTripTime
            figures.availableOutgoingBitrate = figures.availableOutgoingBitrate ?? theirs.availableOutgoingBitrate
            figures.published += theirs.published
            figures.subscribed += theirs.subscribed
            participants[key] = figures
        }
    }
}

/// One participant's media: its network quality, the RTT of its subscriber
/// connection, what the server receives of each track it publishes and what
/// it sends it of each track it subscribes to.
public struct ParticipantMediaStatistics<Participant: Hashable & Sendable, Track: Hashable & Sendable>: Sendable, Equatable {
    /// The quality monitor's newest figures (`ParticipantQuality`); nil
    /// before its first rating.
    public var networkQuality: ParticipantQuality?
    /// Seconds, from the subscriber's receiver reports (RFC 3550 LSR/DLSR);
    /// nil before one echoed a sender report of ours.
    public var roundTripTime: Double?
    /// The downlink estimate of its subscriber connection, bits per second;
    /// nil before the subscriber's first transport-cc feedback or REMB.
    public var availableOutgoingBitrate: UInt64?
    public var published: [PublishedTrackStatistics<Track>] = []
    public var subscribed: [SubscribedTrackStatistics<Participant, Track>] = []

    public init() {}
}

/// One published track as the server receives it.
public struct PublishedTrackStatistics<Track: Hashable & Sendable>: Sendable, Equatable {
    public var track: Track
    public var receiver: ReceiverSnapshot
}

/// One track as the server sends it to the subscribing participant.
public struct SubscribedTrackStatistics<Participant: Hashable & Sendable, Track: Hashable & Sendable>: Sendable, Equatable {
    public var track: Track
    /// Who published it (nil when it left meanwhile).
    public var publisher: Participant?
    public var downTrack: DownTrackSnapshot
}

/// The figures as the media plane reads them, in its handles.
public typealias RoomMediaHandleStatistics = RoomMediaStatistics<ParticipantHandle, TrackHandle>

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
    /// worker once, and each other worker holding some of its subscribers
    /// once; the packet path is not touched.
    public func roomStatistics(room: RoomHandle) async -> RoomMediaHandleStatistics {
        let plans = state.withLock { state -> [RoomStatisticsPlan] in
            let home = workerIndex(for: room)
            var plan = RoomStatisticsPlan(worker: home)
            var elsewhere: [Int: RoomStatisticsPlan] = [:]
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
                let subscriberWorker = media.subscriberWorker ?? home
                let onHome = subscriberWorker == home
                plan.participants[participant] = RoomStatisticsPlan.Participant(
                    publisher: media.publisher?.transport, published: published,
                    subscriber: onHome ? media.subscriber.transport : nil, subscribed: onHome ? subscribed : [])
                if !onHome, let transport = media.subscriber.transport {
                    elsewhere[subscriberWorker, default: RoomStatisticsPlan(worker: subscriberWorker)].participants[participant] =
                        RoomStatisticsPlan.Participant(publisher: nil, published: [], subscriber: transport, subscribed: subscribed)
                }
            }
            return [plan] + elsewhere.values.sorted { $0.worker < $1.worker }
        }
        guard !plans[0].participants.isEmpty else { return RoomMediaHandleStatistics() }
        var result = RoomMediaHandleStatistics()
        for plan in plans {
            let part = await workers[plan.worker].perform { rooms in rooms.statistics(of: room, plan) }
            result.merge(part)
        }
        return result
    }
}

extension MediaWorkerRooms {
    /// Reads `plan`'s tracks off the room's router and its quality monitors.
    func statistics(of room: RoomHandle, _ plan: RoomStatisticsPlan) -> RoomMediaHandleStatistics {
        var result = RoomMediaHandleStatistics()
        let now = MediaClock.now()
        let router = routers[room]
        let monitors = signals[room]?.monitors ?? [:]
        for (participant, entry) in plan.participants {
            var figures = ParticipantMediaStatistics<ParticipantHandle, TrackHandle>()
            if let monitor = monitors[participant], monitor.current != nil {
                figures.networkQuality = ParticipantQuality(monitor)
            }
            if let router {
                if let subscriber = entry.subscriber {
                    figures.roundTripTime = router.roundTripTime(subscriber: subscriber, now: now)
                    figures.availableOutgoingBitrate = router.downlinkEstimate(subscriber: subscriber)
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
