import Foundation

extension RoomService {
    // MARK: - REST operations (PROTOCOL.md section 6)

    /// `POST /v1/Rooms`. `uniqueName` nil: the room's SID is its name, as in
    /// Twilio. Checks in order: the name (53100-53102), `MaxParticipants` in
    /// 1...`maxParticipantsLimit` (53107), each timeout in 1...60 minutes
    /// (53109), no in-progress room of that name (53113). Nil values take
    /// the configured defaults. Emits the room record and `room-created`.
    public mutating func createRoom(
        uniqueName: String? = nil, maxParticipants: Int? = nil,
        emptyRoomTimeoutMinutes: Int? = nil, unusedRoomTimeoutMinutes: Int? = nil,
        statusCallback: String? = nil, statusCallbackMethod: StatusCallbackMethod? = nil, now: Date
    ) throws(RoomError) -> RoomOutcome<RoomRecord> {
        if let uniqueName { try NameValidation.validateRoomName(uniqueName) }
        let maxParticipants = maxParticipants ?? configuration.defaultMaxParticipants
        guard maxParticipants >= 1, maxParticipants <= configuration.maxParticipantsLimit else {
            throw .roomMaxParticipantsOutOfRange
        }
        for minutes in [emptyRoomTimeoutMinutes, unusedRoomTimeoutMinutes] {
            if let minutes, !(1...60).contains(minutes) { throw .roomTimeoutOutOfRange }
        }
        if let uniqueName, inProgressByName[uniqueName] != nil { throw .roomExists }
        var events: [RoomEvent] = []
        let sid = makeRoom(
            uniqueName: uniqueName, maxParticipants: maxParticipants,
            emptyRoomTimeout: emptyRoomTimeoutMinutes.map { TimeInterval($0 * 60) } ?? configuration.emptyRoomTimeout,
            unusedRoomTimeout: unusedRoomTimeoutMinutes.map { TimeInterval($0 * 60) } ?? configuration.unusedRoomTimeout,
            statusCallback: statusCallback, statusCallbackMethod: statusCallbackMethod ?? .post,
            now: now, events: &events)
        return RoomOutcome(value: rooms[sid]!.record, events: events)
    }

    /// `POST /v1/Rooms/{RoomSid}` with `Status=completed`: every participant
    /// gets `disconnected` 53118, then the room ends. 53106 when no room of
    /// that name or SID is in progress (the service forgets completed rooms;
    /// REST answers 53112 for those from the history).
    public mutating func completeRoom(_ roomRef: String, now: Date) throws(RoomError) -> RoomOutcome<RoomRecord> {
        let room = try roomState(roomRef)
        var events: [RoomEvent] = []
        guard let record = completeRoom(room.sid, at: now, events: &events) else { throw .roomStatusInvalid }
        return RoomOutcome(value: record, events: events)
    }

    /// `POST …/Participants/{ParticipantSid}` with `Status=disconnected`: it
    /// gets `disconnected` 53216; others see `participantDisconnected`.
    /// 53106 unknown room; 53204 unknown participant or one already gone.
    public mutating func removeParticipant(room roomRef: String, participant participantRef: String, now: Date) throws(RoomError) -> RoomOutcome<ParticipantRecord> {
        let participant = try participantState(room: roomRef, participantRef)
        var events: [RoomEvent] = []
        guard let record = endParticipant(participant.sid, reason: .removedByAdmin, at: now, events: &events) else {
            throw .participantNotFound
        }
        return RoomOutcome(value: record, events: events)
    }

    /// `POST …/SubscribeRules`: replaces a current participant's rules.
    public mutating func setSubscribeRules(room roomRef: String, participant participantRef: String, rules: [SubscribeRule], now: Date) throws(RoomError) -> RoomOutcome<SubscribeRulesRecord> {
        let participant = try participantState(room: roomRef, participantRef)
        guard participant.isCurrent else { throw .participantNotFound }
        let events = try updateSubscriptions(participant: participant.sid, rules: rules, now: now)
        return RoomOutcome(value: try subscribeRules(room: roomRef, participant: participant.sid.rawValue), events: events)
    }

    // MARK: - REST reads (what is live; history is Persistence's)

    /// The rooms in progress, in creation order.
    public func allRooms() -> [RoomRecord] {
        roomOrder.compactMap { rooms[$0]?.record }
    }

    /// The room in progress with this unique name or SID; 53106 when none
    /// (a completed room is history's).
    public func room(_ roomRef: String) throws(RoomError) -> RoomRecord {
        try roomState(roomRef).record
    }

    /// A room's connected and reconnecting participants, in join order.
    public func participants(inRoom roomRef: String) throws(RoomError) -> [ParticipantRecord] {
        try roomState(roomRef).current.compactMap { participants[$0]?.record }
    }

    /// One connected or reconnecting participant by SID or identity. 53106
    /// unknown room, 53204 no such current participant (an ended one is
    /// history's).
    public func participant(room roomRef: String, _ participantRef: String) throws(RoomError) -> ParticipantRecord {
        try participantState(room: roomRef, participantRef).record
    }

    /// A current participant's publications.
    public func publishedTracks(room roomRef: String, participant participantRef: String) throws(RoomError) -> [PublishedTrackRecord] {
        let participant = try participantState(room: roomRef, participantRef)
        return participant.publications.map(participant.publishedRecord)
    }

    /// What a current participant receives now (with `publisherSID`).
    public func subscribedTracks(room roomRef: String, participant participantRef: String) throws(RoomError) -> [SubscribedTrackRecord] {
        subscribedTracks(of: try participantState(room: roomRef, participantRef).sid)
    }

    /// A current participant's subscribe rules.
    public func subscribeRules(room roomRef: String, participant participantRef: String) throws(RoomError) -> SubscribeRulesRecord {
        let participant = try participantState(room: roomRef, participantRef)
        return SubscribeRulesRecord(
            participantSID: participant.sid, roomSID: participant.roomSID, rules: participant.rules,
            dateCreated: participant.dateCreated, dateUpdated: participant.rulesDateUpdated)
    }

    // MARK: - Reads for Signaling and the media layer

    /// A connected or reconnecting participant's record by SID.
    public func participantRecord(_ sid: ParticipantSID) -> ParticipantRecord? {
        participants[sid]?.record
    }

    /// A room in progress's record by SID.
    public func roomRecord(_ sid: RoomSID) -> RoomRecord? {
        rooms[sid]?.record
    }

    /// A current participant's publications.
    public func publications(of sid: ParticipantSID) -> [PublishedTrackRecord] {
        guard let participant = participants[sid] else { return [] }
        return participant.publications.map(participant.publishedRecord)
    }

    /// Whether the remote audio forwarded to this participant is paused (audio interruption).
    public func isRemoteAudioPaused(for sid: ParticipantSID) -> Bool {
        participants[sid].map { $0.isCurrent && $0.audioInterrupted } ?? false
    }

    /// Connected and reconnecting participants on the node (for `/healthz` and metrics).
    public var participantCount: Int { currentParticipantCount }

    /// Rooms in progress on the node.
    public var inProgressRoomCount: Int { inProgressByName.count }

    /// Sessions the service holds in memory: the current ones plus those
    /// ended within the last reconnect window that may still get a precise
    /// resume answer (`EndedSession`). It follows the live participants,
    /// never the number that came and went.
    public var retainedSessionCount: Int { participants.count + endedSessions.count }

    // MARK: - Lookup internals

    func roomState(_ roomRef: String) throws(RoomError) -> RoomState {
        if let sid = inProgressByName[roomRef], let room = rooms[sid] { return room }
        if let sid = RoomSID(validating: roomRef), let room = rooms[sid] { return room }
        throw .roomNotFound
    }

    func participantState(room roomRef: String, _ participantRef: String) throws(RoomError) -> ParticipantState {
        let room = try roomState(roomRef)
        if let sid = ParticipantSID(validating: participantRef), let participant = participants[sid], participant.roomSID == room.sid {
            return participant
        }
        if let participant = room.current.lazy.compactMap({ participants[$0] }).first(where: { $0.identity == participantRef }) {
            return participant
        }
        throw .participantNotFound
    }
}
