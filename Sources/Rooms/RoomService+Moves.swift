import Foundation

extension RoomService {
    /// Forgets a room in progress that another node takes over (a drain):
    /// the room and its current participants go without any event, since
    /// the room goes on elsewhere with the same records. Returns those
    /// participants (empty for a room that is not here).
    public mutating func release(room sid: RoomSID) -> [ParticipantSID] {
        guard let room = rooms[sid] else { return [] }
        for participant in room.current {
            if let state = participants.removeValue(forKey: participant) { tokens[state.sessionToken] = nil }
            reconnecting.remove(participant)
            currentParticipantCount -= 1
        }
        rooms[sid] = nil
        roomOrder.removeAll { $0 == sid }
        if inProgressByName[room.uniqueName] == sid { inProgressByName[room.uniqueName] = nil }
        return room.current
    }

    /// Takes over a room in progress from another node (PROTOCOL.md
    /// section 8: a dead node's room moves with the first resume; a
    /// draining node's rooms move with `reconnect`): the same room and
    /// participant SIDs, publications and subscribe rules. Every
    /// participant is `reconnecting` with a full reconnect window from
    /// `now`, as after a drop: each resumes here (`resume(adopted:)`, its
    /// token checked against the database by the caller), or its window
    /// ends it. Media starts again as each one renegotiates.
    ///
    /// When nobody resumes before every window ends, the room ends
    /// `failed`, as the dead node's room it is.
    ///
    /// No effect (no events) when the room is already here. 53106 for a
    /// room that is not in progress, or whose name is taken here by
    /// another room in progress.
    public mutating func adopt(_ snapshot: RoomSnapshot, now: Date) throws(RoomError) -> [RoomEvent] {
        let record = snapshot.room
        if rooms[record.sid] != nil { return [] }
        guard record.status == .inProgress, inProgressByName[record.uniqueName] == nil else { throw .roomNotFound }
        forgetEndedSessions(now: now)
        var room = RoomState(
            sid: record.sid, uniqueName: record.uniqueName, maxParticipants: record.maxParticipants,
            // The record keeps the timeouts in whole minutes (REST's unit).
            emptyRoomTimeout: TimeInterval(record.emptyRoomTimeout * 60),
            unusedRoomTimeout: TimeInterval(record.unusedRoomTimeout * 60),
            statusCallback: record.statusCallback, statusCallbackMethod: record.statusCallbackMethod,
            dateCreated: record.dateCreated, dateUpdated: now)
        room.everJoined = true
        var events: [RoomEvent] = []
        let deadline = now.addingTimeInterval(configuration.reconnectWindow)
        for adopted in snapshot.participants where adopted.record.status != .disconnected {
            let sid = adopted.record.sid
            guard participants[sid] == nil else { continue }
            var participant = ParticipantState(
                sid: sid, roomSID: record.sid, identity: adopted.record.identity, name: adopted.record.name,
                dateCreated: adopted.record.dateCreated, dateUpdated: now, rules: adopted.rules,
                rulesDateUpdated: adopted.rulesDateUpdated,
                // Never given out: the real one is checked in the database.
                sessionToken: SessionToken.random(using: &generator))
            participant.adopted = true
            participant.status = .reconnecting
            participant.reconnectDeadline = deadline
            // Nothing is subscribed on this node yet: the resume gets
            // `subscriptionsChanged`, hence a fresh subscriber offer.
            participant.subscribedAtDrop = []
            participant.publications = adopted.tracks.map {
                Publication(
                    sid: $0.sid, mid: $0.mid, name: $0.name, kind: $0.kind, publisherEnabled: $0.publisherEnabled,
                    dateCreated: $0.dateCreated, dateUpdated: $0.dateUpdated)
            }
            participants[sid] = participant
            reconnecting.insert(sid)
            currentParticipantCount += 1
            room.current.append(sid)
            events.append(.participantRecord(participant.record))
        }
        if room.current.isEmpty { room.emptySince = now } else { room.awaitingResume = true }
        rooms[record.sid] = room
        roomOrder.append(record.sid)
        inProgressByName[record.uniqueName] = record.sid
        events.append(.roomRecord(room.record))
        refreshSubscriptions(in: record.sid, events: &events)
        return events
    }

    /// Ends a room of a dead node that nobody resumed within the reconnect
    /// window (PROTOCOL.md section 8), taken over (`adopt`) only for this:
    /// its participants end as their windows would have
    /// (`participant-disconnected`, their tracks `track-removed`), then the
    /// room ends `failed` (`room-ended`), with the records and callbacks
    /// its own node would have written.
    public mutating func fail(room sid: RoomSID, now: Date) -> [RoomEvent] {
        var events: [RoomEvent] = []
        endRoom(sid, status: .failed, participantsEnd: .reconnectWindowExpired, at: now, events: &events)
        return events
    }

    /// Ends a room of a node that is gone without taking it over first:
    /// `adopt`, then `fail`, with the events of both. A cluster member does
    /// this for a dead node's room nobody resumed; a node alone for the
    /// rooms its last run left in progress.
    public mutating func fail(_ snapshot: RoomSnapshot, now: Date) throws(RoomError) -> [RoomEvent] {
        try adopt(snapshot, now: now) + fail(room: snapshot.room.sid, now: now)
    }
}
