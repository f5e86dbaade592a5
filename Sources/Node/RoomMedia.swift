import MediaIO
import Rooms
import Synchronization

/// The control face of this node's media plane, in the rooms' SIDs
/// (DESIGN.md, "Control path"): Signaling's negotiations and the media side
/// of room events go through it to `MediaPlane`, which speaks in handles.
/// It keeps the `MediaDirectory` between the two, and turns the media
/// plane's events back into SIDs.
public final class RoomMedia: Sendable {
    public let plane: MediaPlane
    private let directory = Mutex(MediaDirectory())

    public init(plane: MediaPlane) {
        self.plane = plane
    }

    /// The UDP port of each media worker.
    public var ports: [UInt16] { plane.ports }

    // MARK: - Publisher connection

    /// Checks a publish offer and answers it without changing anything
    /// (`MediaPlane.answerPublish`): 53300 when `trackMIDs` does not name
    /// each sending m-line once, 53402/53403 for an unusable offer (one
    /// whose m-line kind contradicts `trackKinds` too), 53404 for a track
    /// without Opus or VP8.
    public func answerPublish(
        participant: ParticipantSID, room: RoomSID, offer: String, trackMIDs: [String], trackKinds: [String]? = nil
    ) throws(MediaError) -> PendingPublish {
        let (handle, roomHandle) = directory.withLock { $0.handles(participant: participant, room: room) }
        return try plane.answerPublish(
            participant: handle, room: roomHandle, offer: offer, trackMIDs: trackMIDs, trackKinds: trackKinds)
    }

    /// Applies an answer the room accepted, with the room's track SIDs;
    /// 53401 when the server cannot set up its side.
    /// `requests` are the `tracks` entries of the `publish`, for each
    /// track's priority and simulcast layer sizes.
    public func applyPublish(
        participant: ParticipantSID, room: RoomSID, _ pending: PendingPublish, tracks: [PublishedTrackAssignment],
        requests: [TrackRequest] = []
    ) async throws(MediaError) {
        let (handle, roomHandle, media) = directory.withLock { directory in
            let (handle, roomHandle) = directory.handles(participant: participant, room: room)
            let handles = directory.setPublished(tracks.map(\.sid), by: participant)
            let media = tracks.compactMap { track in
                handles[track.sid].map { trackHandle in
                    let request = requests.first { $0.mid == track.mid }
                    return PublishedTrackMedia(
                        mid: track.mid, handle: trackHandle, kind: track.kind == .audio ? .audio : .video,
                        enabled: track.enabled, priority: MediaTrackPriority(request?.priority ?? .standard),
                        layerHints: (request?.layers ?? []).map {
                            MediaSimulcastLayer(rid: $0.rid, width: $0.width, height: $0.height)
                        })
                }
            }
            return (handle, roomHandle, media)
        }
        try await plane.applyPublish(participant: handle, room: roomHandle, pending, tracks: media)
    }

    /// A track unpublished by `unpublish` (not by a renegotiation).
    public func unpublish(participant: ParticipantSID, track: TrackSID) async {
        let handles = directory.withLock { directory -> (ParticipantHandle, TrackHandle)? in
            guard let handle = directory.participantHandle(participant),
                let trackHandle = directory.removeTrack(track, of: participant)
            else { return nil }
            return (handle, trackHandle)
        }
        guard let (handle, trackHandle) = handles else { return }
        await plane.unpublish(participant: handle, track: trackHandle)
    }

    // MARK: - What a subscriber asks for the video it receives (PROTOCOL.md 7)

    /// Applies `change` to `subscriber`'s preferences for `track`, which
    /// `publisher` published in `room`; kept until its DownTrack exists.
    public func updatePreferences(
        subscriber: ParticipantSID, room: RoomSID, track: TrackSID, publisher: ParticipantSID,
        _ change: @escaping @Sendable (inout DownTrackPreferences) -> Void
    ) {
        let (handle, roomHandle, trackHandle) = directory.withLock { directory in
            let (handle, roomHandle) = directory.handles(participant: subscriber, room: room)
            return (handle, roomHandle, directory.subscribedTrackHandle(track, publisher: publisher, room: room))
        }
        plane.updatePreferences(participant: handle, room: roomHandle, track: trackHandle, change)
    }

    /// The bandwidth profile `participant` joined `room` with.
    public func setAllocationProfile(participant: ParticipantSID, room: RoomSID, _ profile: MediaAllocationProfile) {
        let (handle, roomHandle) = handles(participant: participant, room: room)
        plane.setAllocationProfile(participant: handle, room: roomHandle, profile)
    }

    // MARK: - Subscriber connection

    /// The subscriber offer for `slots`, or nil for a connection with no
    /// m-line at all (`MediaPlane.subscriberOffer`). A track whose publish
    /// is not applied yet gets its handle now; its DownTrack waits for the
    /// receiver.
    public func subscriberOffer(
        participant: ParticipantSID, room: RoomSID, slots: [SubscriberSlotRequest]
    ) throws(MediaError) -> String? {
        let (handle, roomHandle, media) = directory.withLock { directory in
            let (handle, roomHandle) = directory.handles(participant: participant, room: room)
            let media = slots.map { slot in
                SubscriberMediaSlot(
                    mid: slot.mid, kind: slot.kind == .audio ? .audio : .video,
                    track: slot.track.map { track in
                        SubscriberSlotTrack(
                            handle: directory.subscribedTrackHandle(track.sid, publisher: track.publisher, room: room),
                            streamLabel: track.publisher.rawValue, trackLabel: track.sid.rawValue)
                    })
            }
            return (handle, roomHandle, media)
        }
        return try plane.subscriberOffer(participant: handle, room: roomHandle, slots: media)
    }

    /// The next subscriber offer carries new ICE credentials (`restartIce`).
    public func restartSubscriberICE(participant: ParticipantSID) {
        guard let handle = directory.withLock({ $0.participantHandle(participant) }) else { return }
        plane.restartSubscriberICE(participant: handle)
    }

    /// Applies the client's answer to the offer in flight.
    public func applySubscriberAnswer(participant: ParticipantSID, sdp: String) async throws(MediaError) {
        guard let handle = directory.withLock({ $0.participantHandle(participant) }) else {
            throw .serverRemoteDescFailed("a subscribeAnswer without a subscribeOffer in flight")
        }
        try await plane.applySubscriberAnswer(participant: handle, sdp: sdp)
    }

    // MARK: - Room events

    /// The media side of room events: forwarding on/off (a PLI when on),
    /// remote audio paused, a participant gone for good.
    public func handle(_ events: [RoomEvent]) {
        for event in events {
            switch event {
            case .trackForwarding(let room, _, let track, let forwarded):
                let handles = directory.withLock { directory in
                    directory.roomHandle(room).flatMap { room in directory.trackHandle(track).map { (room, $0) } }
                }
                guard let (roomHandle, trackHandle) = handles else { continue }
                plane.setForwarding(room: roomHandle, track: trackHandle, forwarded: forwarded)
            case .remoteAudioPaused(let room, let participant, let paused):
                // Also before the participant has media: its subscriber
                // connection then starts paused (PROTOCOL.md 3.3).
                let (handle, roomHandle) = directory.withLock { $0.handles(participant: participant, room: room) }
                plane.setRemoteAudioPaused(participant: handle, room: roomHandle, paused: paused)
            case .participantRemoved(_, let participant, _):
                remove(participant: participant)
            default:
                continue
            }
        }
    }

    /// Ends both connections of a participant and forgets its handles.
    public func remove(participant: ParticipantSID) {
        guard let handle = directory.withLock({ $0.removeParticipant(participant) }) else { return }
        plane.remove(participant: handle)
    }

    // MARK: - Events and figures

    /// A media event in SIDs; nil for one whose participant or room is gone.
    public func translate(_ event: MediaEvent) -> RoomMediaEvent? {
        directory.withLock { directory -> RoomMediaEvent? in
            switch event {
            case .connected(let participant, let connection):
                return directory.participant(participant).map { .connected(participant: $0, connection: connection) }
            case .failed(let participant, let connection, let code, let message):
                return directory.participant(participant).map {
                    .failed(participant: $0, connection: connection, code: code, message: message)
                }
            case .networkQuality(let room, let participant, let level, let warnings):
                guard let roomSID = directory.room(room), let participantSID = directory.participant(participant) else { return nil }
                return .networkQuality(
                    room: roomSID, participant: participantSID, level: level,
                    warnings: warnings.compactMap { NetworkQualityWarning(rawValue: $0.rawValue) })
            case .dominantSpeaker(let room, let participant):
                guard let roomSID = directory.room(room) else { return nil }
                return .dominantSpeaker(room: roomSID, participant: participant.flatMap { directory.participant($0) })
            case .trackSwitchedOff(_, let subscriber, let track, let reason):
                guard let subscriberSID = directory.participant(subscriber), let trackSID = directory.track(track),
                    let reason = TrackSwitchOffReason(rawValue: reason.rawValue)
                else { return nil }
                return .trackSwitchedOff(subscriber: subscriberSID, track: trackSID, reason: reason)
            case .trackSwitchedOn(_, let subscriber, let track):
                guard let subscriberSID = directory.participant(subscriber), let trackSID = directory.track(track) else {
                    return nil
                }
                return .trackSwitchedOn(subscriber: subscriberSID, track: trackSID)
            case .publisherLayers(_, let track, let active):
                guard let trackSID = directory.track(track), let publisher = directory.publisher(of: trackSID) else {
                    return nil
                }
                return .publisherLayers(publisher: publisher, track: trackSID, active: active)
            }
        }
    }

    /// The live media figures of `room`'s participants, by SID (those with
    /// media: one that never negotiated a connection is absent).
    public func roomStatistics(room: RoomSID) async -> RoomMediaFigures {
        guard let handle = directory.withLock({ $0.roomHandle(room) }) else { return RoomMediaFigures() }
        let statistics = await plane.roomStatistics(room: handle)
        return directory.withLock { directory in
            statistics.rekeyed(participant: { directory.participant($0) }, track: { directory.track($0) })
        }
    }

    /// The workers' counters (for `/metrics`).
    public func statistics() async -> MediaStatistics { await plane.statistics() }

    /// The node's participants by network quality level (for `/metrics`).
    public func networkQualityCensus() async -> NetworkQualityCensus { await plane.networkQualityCensus() }

    /// The media plane's handles of `participant` and `room`, made on first
    /// use (tests reach the plane itself with them).
    func handles(participant: ParticipantSID, room: RoomSID) -> (participant: ParticipantHandle, room: RoomHandle) {
        directory.withLock { $0.handles(participant: participant, room: room) }
    }

    /// The media plane's handle of `track`, if it has one (tests).
    func trackHandle(_ track: TrackSID) -> TrackHandle? {
        directory.withLock { $0.trackHandle(track) }
    }

    /// Entries in the SID/handle directory (bounded by the live participants).
    public var directorySize: Int { directory.withLock { $0.count } }
}

/// One m-line of a subscriber offer as Signaling asks for it (PROTOCOL.md
/// 3.4): its mid and kind, and the track it carries, if any.
public struct SubscriberSlotRequest: Sendable, Hashable {
    public var mid: String
    public var kind: TrackKind
    public var track: SubscribedTrackRef?

    public init(mid: String, kind: TrackKind, track: SubscribedTrackRef?) {
        self.mid = mid
        self.kind = kind
        self.track = track
    }
}

/// A track on a subscriber connection: its SID and its publisher's.
public struct SubscribedTrackRef: Sendable, Hashable {
    public var sid: TrackSID
    public var publisher: ParticipantSID

    public init(sid: TrackSID, publisher: ParticipantSID) {
        self.sid = sid
        self.publisher = publisher
    }
}

extension MediaTrackPriority {
    /// The media plane's priority for the rooms' one (the same names).
    init(_ priority: TrackPriority) {
        switch priority {
        case .low: self = .low
        case .standard: self = .standard
        case .high: self = .high
        }
    }
}
