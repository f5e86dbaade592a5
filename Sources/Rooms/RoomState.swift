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

/// One participant session (internal). Kept after it ends, for REST reads and
/// so a late resume gets the precise code (53001, 53106, 53205, 53216).
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

    var isCurrent: Bool { status != .disconnected }

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

/// One room (internal; REST sees `RoomRecord`).
struct RoomState: Sendable {
    let sid: RoomSID
    let uniqueName: String
    var status: RoomStatus = .inProgress
    let maxParticipants: Int
    let emptyRoomTimeout: TimeInterval
    let unusedRoomTimeout: TimeInterval
    let statusCallback: String?
    let statusCallbackMethod: StatusCallbackMethod
    let dateCreated: Date
    var dateUpdated: Date
    var endTime: Date?
    /// Connected and reconnecting participants, in join order.
    var current: [ParticipantSID] = []
    /// Every session the room had, in join order (history for REST reads).
    var all: [ParticipantSID] = []
    /// When the room last became empty after someone had joined.
    var emptySince: Date?
    var everJoined = false
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
            emptyRoomTimeout: emptyRoomTimeout, unusedRoomTimeout: unusedRoomTimeout,
            statusCallback: statusCallback, statusCallbackMethod: statusCallbackMethod,
            dateCreated: dateCreated, dateUpdated: dateUpdated, endTime: endTime,
            duration: endTime.map { wholeSeconds(from: dateCreated, to: $0) })
    }
}

/// Whole seconds between two dates, never negative.
func wholeSeconds(from start: Date, to end: Date) -> Int {
    max(0, Int(end.timeIntervalSince(start).rounded(.down)))
}
