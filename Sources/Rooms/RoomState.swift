import Foundation

/// A publication inside the service (internal; REST sees `PublishedTrackRecord`).
struct Publication: Sendable {
    let sid: TrackSID
    var mid: String
    let name: String
    let kind: TrackKind
    var publisherEnabled: Bool
    let dateCreated: Date
    var dateUpdated: Date
}

/// One live participant session (internal): connected or reconnecting. The
/// service forgets it when it ends; its last record is in the history
/// (Persistence) and, for a while, an `EndedSession` answers a late resume.
struct ParticipantState: Sendable {
    let sid: ParticipantSID
    let roomSID: RoomSID
    let identity: String
    let name: String?
    var status: ParticipantStatus = .connected
    let dateCreated: Date
    var dateUpdated: Date
    var endTime: Date?
    var endReason: ParticipantEndReason?
    var reconnectDeadline: Date?
    var publications: [Publication] = []
    var rules: [SubscribeRule]
    var rulesDateUpdated: Date
    /// Always equal to the evaluation of `rules` over the room's other
    /// participants' publications (kept current on every change).
    var subscribed: [TrackSID] = []
    /// `subscribed` when the participant dropped, to tell on resume whether
    /// a fresh offer is due.
    var subscribedAtDrop: [TrackSID]?
    var cameraInterrupted = false
    var audioInterrupted = false
    /// Times of accepted messages still inside the rolling window.
    var acceptedMessageTimes: [Date] = []
    var nextSequenceNumber = 0
    /// The same two for server messages addressed to this participant.
    var serverMessageTimes: [Date] = []
    var nextServerSequenceNumber = 0
    var sessionToken: SessionToken
    /// Taken over from another node (`RoomService.adopt`): its token is
    /// not known here (the database keeps a hash), so a resume checked
    /// against the database comes in through `resume(adopted:)`.
    var adopted = false

    var isCurrent: Bool { status != .disconnected }

    var session: SessionRecord {
        SessionRecord(
            participantSID: sid, roomSID: roomSID, identity: identity, token: sessionToken, rules: rules,
            rulesDateUpdated: rulesDateUpdated)
    }

    func isInterrupted(_ kind: TrackKind) -> Bool {
        switch kind {
        case .video: cameraInterrupted
        case .audio: audioInterrupted
        }
    }

    /// Enabled by the publisher AND not interrupted (PROTOCOL.md section 3.3).
    func isEffectivelyEnabled(_ publication: Publication) -> Bool {
        publication.publisherEnabled && !isInterrupted(publication.kind)
    }

    func trackInfo(_ publication: Publication) -> TrackInfo {
        TrackInfo(sid: publication.sid, name: publication.name, kind: publication.kind, enabled: isEffectivelyEnabled(publication))
    }

    var info: ParticipantInfo {
        ParticipantInfo(sid: sid, identity: identity, name: name, status: status, tracks: publications.map(trackInfo))
    }

    var record: ParticipantRecord {
        ParticipantRecord(
            sid: sid, roomSID: roomSID, identity: identity, name: name, status: status,
            dateCreated: dateCreated, dateUpdated: dateUpdated, startTime: dateCreated,
            endTime: endTime, duration: endTime.map { wholeSeconds(from: dateCreated, to: $0) },
            endReason: endReason)
    }

    func publishedRecord(_ publication: Publication) -> PublishedTrackRecord {
        PublishedTrackRecord(
            sid: publication.sid, participantSID: sid, roomSID: roomSID, name: publication.name,
            kind: publication.kind, enabled: isEffectivelyEnabled(publication),
            publisherEnabled: publication.publisherEnabled, mid: publication.mid,
            dateCreated: publication.dateCreated, dateUpdated: publication.dateUpdated)
    }
}

/// One room in progress (internal; REST sees `RoomRecord`). The service
/// forgets it when it completes; its last record is in the history.
struct RoomState: Sendable {
    let sid: RoomSID
    let uniqueName: String
    var status: RoomStatus = .inProgress
    let maxParticipants: Int
    /// The empty-room timer (seconds: configuration may make it shorter than
    /// the minute REST counts in).
    let emptyRoomTimeout: TimeInterval
    /// The unused-room timer (seconds, as above).
    let unusedRoomTimeout: TimeInterval
    let statusCallback: String?
    let statusCallbackMethod: StatusCallbackMethod
    let dateCreated: Date
    var dateUpdated: Date
    var endTime: Date?
    /// Connected and reconnecting participants, in join order. Ended
    /// sessions are not kept: REST reads them from the history.
    var current: [ParticipantSID] = []
    /// When the room last became empty after someone had joined.
    var emptySince: Date?
    var everJoined = false
    /// Taken over from another node with participants, none of whom has
    /// resumed here yet (and nobody new joined): when the last one's
    /// reconnect window ends, the room ends `failed` (PROTOCOL.md section 8).
    var awaitingResume = false
    var nextCallbackSequence = 0

    /// When a room timeout completes it, if one is running.
    var timeoutDeadline: Date? {
        guard status == .inProgress, current.isEmpty else { return nil }
        if let emptySince { return emptySince.addingTimeInterval(emptyRoomTimeout) }
        if !everJoined { return dateCreated.addingTimeInterval(unusedRoomTimeout) }
        return nil
    }

    var record: RoomRecord {
        RoomRecord(
            sid: sid, uniqueName: uniqueName, status: status, maxParticipants: maxParticipants,
            emptyRoomTimeout: RoomRecord.minutes(emptyRoomTimeout),
            unusedRoomTimeout: RoomRecord.minutes(unusedRoomTimeout),
            statusCallback: statusCallback, statusCallbackMethod: statusCallbackMethod,
            dateCreated: dateCreated, dateUpdated: dateUpdated, endTime: endTime,
            duration: endTime.map { wholeSeconds(from: dateCreated, to: $0) })
    }
}

/// What the service remembers of a session that ended other than by `leave`
/// or an expired window, so that a resume arriving after it still gets the
/// precise code (PROTOCOL.md 3.6: 53106 room ended, 53205 replaced, 53216
/// removed by REST) instead of 53001. Kept for one reconnect window after
/// the end: a participant that was reconnecting when its session ended had
/// at most that long left to resume (its own window), and one that was
/// connected was told over its socket. After that a resume gets 53001, as
/// for any unknown token.
struct EndedSession: Sendable {
    let identity: String
    let roomSID: RoomSID
    let reason: ParticipantEndReason
    /// When it is forgotten (end + reconnect window).
    let forgetAt: Date
}

/// Whole seconds between two dates, never negative.
func wholeSeconds(from start: Date, to end: Date) -> Int {
    max(0, Int(end.timeIntervalSince(start).rounded(.down)))
}
