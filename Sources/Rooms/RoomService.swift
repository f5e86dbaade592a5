import Foundation

/// The room server's domain for one node: rooms, participants, publications,
/// subscriptions, messages and room lifecycle (PROTOCOL.md sections 1-4 and
/// 6), as pure sans-I/O logic.
///
/// How it is driven:
/// - ONE owner actor in the server holds the `RoomService` (it is a value
///   type, not thread-safe by itself). Signaling's session actors and
///   AdminAPI's handlers call into that actor, which calls these methods.
/// - Every method takes `now: Date`; nothing here reads a clock, sleeps or
///   does I/O. SIDs and session tokens come from the generator given to
///   `init` (give it `SystemRandomNumberGenerator()` in the server, a
///   `SeededGenerator` in tests).
/// - Methods return what happened as values: a result and/or `[RoomEvent]`
///   in order, or throw `RoomError` (`MessageRefusal` for messages) and then
///   change nothing. The owner routes the events (see `RoomEvent`): notices
///   to session actors, status callbacks to the webhook outbox, records to
///   Persistence, forwarding changes to the media layer. A successful
///   `join`/`resume` result is sent (`joined`) before its events are routed.
/// - Timers (reconnect windows, empty- and unused-room timeouts) fire only in
///   `tick(now:)`: the owner schedules one wake-up at `nextDeadline` and calls
///   `tick` then (and re-reads `nextDeadline` after every call, since any
///   operation can move it). Timed-out things end at their deadline, not at
///   the later `now` of the tick, so history is exact however late the tick.
/// - It holds what is live and nothing more: rooms in progress and their
///   connected and reconnecting participants. A session that ends and a
///   room that completes are forgotten at once (their last records went out
///   as events, and the owner keeps the history: Persistence); only a small
///   `EndedSession` per session ended by REST, a duplicate identity or the
///   room's end stays for one reconnect window, to answer a late resume with
///   its precise code. So memory and the cost of a join follow the live
///   participants, not how many came and went (issue 11: 10,000 join/leave
///   cycles in one room used to grow a server by 54 MB and a join ninefold).
public struct RoomService: Sendable {
    /// The limits and timers in force.
    public let configuration: RoomServiceConfiguration

    var generator: any RandomNumberGenerator & Sendable
    /// Rooms in progress.
    var rooms: [RoomSID: RoomState] = [:]
    /// Creation order of `rooms`, for listing.
    var roomOrder: [RoomSID] = []
    var inProgressByName: [String: RoomSID] = [:]
    /// Connected and reconnecting participants.
    var participants: [ParticipantSID: ParticipantState] = [:]
    /// The session token of each participant in `participants`.
    var tokens: [SessionToken: ParticipantSID] = [:]
    /// Sessions that ended recently, by their last token (see `EndedSession`).
    var endedSessions: [SessionToken: EndedSession] = [:]
    /// The keys of `endedSessions` in the order they were added, from
    /// `endedSessionsHead` on: forgotten from the front.
    var endedSessionOrder: [SessionToken] = []
    var endedSessionsHead = 0
    /// Connected + reconnecting participants on the node.
    var currentParticipantCount = 0
    /// Participants inside a reconnect window, so timers scan only them and
    /// not the whole history.
    var reconnecting: Set<ParticipantSID> = []

    /// A service with no rooms. `generator` makes every SID and session token.
    public init(configuration: RoomServiceConfiguration = RoomServiceConfiguration(), generator: any RandomNumberGenerator & Sendable) {
        self.configuration = configuration
        self.generator = generator
    }

    // MARK: - Joining and leaving

    /// `join` without `resume` (PROTOCOL.md sections 3.1, 3.6, 6).
    ///
    /// Checks, in order: the room name (53100-53102) and identity
    /// (53200-53202); the token's room grant (20106; `grantRoom` is the
    /// grant's room name or SID, nil when the token names none); the node
    /// limit (53006); the room: an in-progress one by unique name, else by
    /// SID; a string shaped like a room SID is never auto-created; unknown
    /// with ad-hoc creation off, or a completed room's SID: 53106 (a
    /// completed room's NAME with creation on starts a new room); full: 53105.
    /// A participant of the same identity in the room is disconnected with
    /// 53205 first (its `participantDisconnected` comes before the new one's
    /// `participantConnected`) and does not count toward the limits.
    public mutating func join(
        roomName: String, identity: String, name: String? = nil,
        rules: [SubscribeRule]? = nil, grantRoom: String? = nil, now: Date
    ) throws(RoomError) -> RoomOutcome<JoinResult> {
        try NameValidation.validateRoomName(roomName)
        try NameValidation.validateIdentity(identity)
        forgetEndedSessions(now: now)
        let existing = inProgressRoom(named: roomName)
        if let grantRoom, grantRoom != roomName {
            guard let existing, grantRoom == existing.sid.rawValue || grantRoom == existing.uniqueName else {
                throw .accessTokenGrantsInvalid
            }
        }
        let duplicate = existing.flatMap { room in
            room.current.first { participants[$0]?.identity == identity }
        }
        let replacing = duplicate == nil ? 0 : 1
        if let limit = configuration.maxParticipantsPerNode, currentParticipantCount - replacing >= limit {
            throw .signalingServerBusy
        }
        if let existing {
            if existing.current.count - replacing >= existing.maxParticipants { throw .roomMaxParticipantsExceeded }
        } else if RoomSID(validating: roomName) != nil || !configuration.autoCreateRooms {
            throw .roomNotFound
        }

        var events: [RoomEvent] = []
        let roomSID: RoomSID
        if let existing {
            roomSID = existing.sid
        } else {
            roomSID = makeRoom(
                uniqueName: roomName, maxParticipants: configuration.defaultMaxParticipants,
                emptyRoomTimeout: configuration.emptyRoomTimeout, unusedRoomTimeout: configuration.unusedRoomTimeout,
                statusCallback: nil, statusCallbackMethod: .post, now: now, events: &events)
        }
        if let duplicate {
            // Refreshed once below, so others' offers come after both notices.
            endParticipant(duplicate, reason: .duplicateIdentity, at: now, events: &events, refresh: false)
        }

        let sid = ParticipantSID.random(using: &generator)
        let token = SessionToken.random(using: &generator)
        let participant = ParticipantState(
            sid: sid, roomSID: roomSID, identity: identity, name: name,
            dateCreated: now, dateUpdated: now, rules: rules ?? SubscribeRule.includeAll,
            rulesDateUpdated: now, sessionToken: token)
        participants[sid] = participant
        tokens[token] = sid
        currentParticipantCount += 1
        rooms[roomSID]!.current.append(sid)
        rooms[roomSID]!.everJoined = true
        rooms[roomSID]!.awaitingResume = false
        rooms[roomSID]!.emptySince = nil
        if rooms[roomSID]!.dateUpdated != now {
            rooms[roomSID]!.dateUpdated = now
            // The room's record changed (date_updated): history must see it,
            // or another node's REST answer would differ from the owner's.
            events.append(.roomRecord(rooms[roomSID]!.record))
        }

        for other in connectedParticipants(in: roomSID, except: sid) {
            events.append(.notice(to: other, .participantConnected(participant.info)))
        }
        events.append(.participantRecord(participant.record))
        events.append(.session(participant.session))
        appendCallback(.participantConnected, room: roomSID, participant: sid, at: now, events: &events)
        refreshSubscriptions(in: roomSID, events: &events)
        return RoomOutcome(value: joinResult(for: sid, resumed: false, replacedLiveSession: false), events: events)
    }

    /// `join` with `resume` (PROTOCOL.md section 3.6): the same participant
    /// SID, the room's current state and a new session token (each token
    /// works once). Checks, in order: unknown or used token, 53001; another
    /// identity, 20106; room no longer in progress, 53106; the session ended:
    /// removed by REST 53216, replaced by a duplicate identity 53205, else
    /// (window missed, left) 53001. A reconnecting participant whose window
    /// has passed gets 53001 even before `tick` removes it.
    ///
    /// Others get `participantReconnected`, also when it was still connected
    /// (its old socket open; `replacedLiveSession` says so). The participant
    /// gets `subscriptionsChanged` when its subscribed set changed since the
    /// drop.
    public mutating func resume(sessionToken: SessionToken, identity: String, now: Date) throws(RoomError) -> RoomOutcome<JoinResult> {
        forgetEndedSessions(now: now)
        if let ended = endedSessions[sessionToken] {
            guard ended.identity == identity else { throw .accessTokenGrantsInvalid }
            guard rooms[ended.roomSID]?.status == .inProgress else { throw .roomNotFound }
            switch ended.reason {
            case .removedByAdmin: throw .participantRemoved
            case .duplicateIdentity: throw .participantDuplicateIdentity
            case .roomCompleted: throw .roomNotFound
            case .left, .reconnectWindowExpired: throw .signalingConnectionDisconnected
            }
        }
        guard let sid = tokens[sessionToken], let participant = participants[sid],
              participant.sessionToken == sessionToken
        else { throw .signalingConnectionDisconnected }
        return try completeResume(participant, identity: identity, now: now)
    }

    /// A resume of a participant taken over from another node
    /// (`adopt`), whose session token the caller checked against the
    /// cluster's database (it is not known here). The same checks and
    /// result as `resume(sessionToken:identity:now:)`; 53001 for a
    /// participant that is not an adopted one waiting for its resume.
    public mutating func resume(adopted sid: ParticipantSID, identity: String, now: Date) throws(RoomError) -> RoomOutcome<JoinResult> {
        forgetEndedSessions(now: now)
        guard let participant = participants[sid], participant.adopted else { throw .signalingConnectionDisconnected }
        return try completeResume(participant, identity: identity, now: now)
    }

    /// The rest of a resume, once the session is found: a new token, the
    /// participant connected again.
    private mutating func completeResume(
        _ found: ParticipantState, identity: String, now: Date
    ) throws(RoomError) -> RoomOutcome<JoinResult> {
        var participant = found
        let sid = participant.sid
        guard participant.identity == identity else { throw .accessTokenGrantsInvalid }
        guard rooms[participant.roomSID]?.status == .inProgress else { throw .roomNotFound }
        if let deadline = participant.reconnectDeadline, now >= deadline { throw .signalingConnectionDisconnected }

        var events: [RoomEvent] = []
        let wasReconnecting = participant.status == .reconnecting
        tokens[participant.sessionToken] = nil
        participant.adopted = false
        let token = SessionToken.random(using: &generator)
        tokens[token] = sid
        participant.sessionToken = token
        reconnecting.remove(sid)
        participant.status = .connected
        participant.reconnectDeadline = nil
        participant.dateUpdated = now
        rooms[participant.roomSID]!.awaitingResume = false
        let subscribedAtDrop = participant.subscribedAtDrop
        participant.subscribedAtDrop = nil
        participants[sid] = participant
        events.append(.session(participant.session))
        // Everyone hears of a resume, one that replaces a socket still open
        // too (PROTOCOL.md 3.6).
        for other in connectedParticipants(in: participant.roomSID, except: sid) {
            events.append(.notice(to: other, .participantReconnected(sid)))
        }
        // Connected again, or its date_updated moved (a live session replaced).
        events.append(.participantRecord(participant.record))
        if wasReconnecting {
            if let subscribedAtDrop, subscribedAtDrop != participant.subscribed {
                events.append(.notice(to: sid, .subscriptionsChanged))
            }
        }
        return RoomOutcome(
            value: joinResult(for: sid, resumed: true, replacedLiveSession: !wasReconnecting),
            events: events)
    }

    /// The WebSocket dropped without `leave` (closed, 15 s of silence, outbox
    /// overflow): the participant enters `reconnecting` for the reconnect
    /// window; its publications stay; others get `participantReconnecting`.
    /// No effect (no events) on a participant that is not connected.
    public mutating func drop(participant sid: ParticipantSID, now: Date) -> [RoomEvent] {
        guard var participant = participants[sid], participant.status == .connected else { return [] }
        participant.status = .reconnecting
        reconnecting.insert(sid)
        participant.reconnectDeadline = now.addingTimeInterval(configuration.reconnectWindow)
        participant.subscribedAtDrop = participant.subscribed
        participant.dateUpdated = now
        participants[sid] = participant
        var events: [RoomEvent] = []
        for other in connectedParticipants(in: participant.roomSID, except: sid) {
            events.append(.notice(to: other, .participantReconnecting(sid)))
        }
        events.append(.participantRecord(participant.record))
        return events
    }

    /// `leave`: the participant is removed at once; others get
    /// `participantDisconnected` and, where their subscribed set shrinks,
    /// `subscriptionsChanged`. No effect on a participant already gone.
    public mutating func leave(participant sid: ParticipantSID, now: Date) -> [RoomEvent] {
        guard participants[sid]?.isCurrent == true else { return [] }
        var events: [RoomEvent] = []
        endParticipant(sid, reason: .left, at: now, events: &events)
        return events
    }

    // MARK: - Timers

    /// The earliest moment a timer runs out: call `tick(now:)` then. Nil when
    /// no timer is running.
    public var nextDeadline: Date? {
        var earliest: Date?
        for sid in inProgressByName.values {
            if let deadline = rooms[sid]?.timeoutDeadline, earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        for sid in reconnecting {
            if let deadline = participants[sid]?.reconnectDeadline, earliest.map({ deadline < $0 }) ?? true {
                earliest = deadline
            }
        }
        return earliest
    }

    /// Runs every timer that has run out at `now`, in deadline order:
    /// reconnect windows (the participant is removed, `participantDisconnected`)
    /// and room timeouts (the room is completed). A room emptied by an
    /// expired window starts its empty-room timeout at that window's end.
    public mutating func tick(now: Date) -> [RoomEvent] {
        forgetEndedSessions(now: now)
        var events: [RoomEvent] = []
        while true {
            var due: (date: Date, participant: ParticipantSID?, room: RoomSID?)?
            // Ties go to the smaller SID so a seed replays the same way
            // whatever the hash order of the sets.
            for sid in reconnecting {
                if let deadline = participants[sid]?.reconnectDeadline, deadline <= now,
                   due.map({ deadline < $0.date || (deadline == $0.date && $0.participant.map { sid < $0 } ?? false) }) ?? true {
                    due = (deadline, sid, nil)
                }
            }
            for sid in inProgressByName.values {
                if let deadline = rooms[sid]?.timeoutDeadline, deadline <= now,
                   due.map({ deadline < $0.date || (deadline == $0.date && $0.room.map { sid < $0 } ?? false) }) ?? true {
                    due = (deadline, nil, sid)
                }
            }
            guard let due else { return events }
            if let sid = due.participant {
                let roomSID = participants[sid]?.roomSID
                endParticipant(sid, reason: .reconnectWindowExpired, at: due.date, events: &events)
                // A taken-over room that nobody came back to fails, as its node did.
                if let roomSID, let room = rooms[roomSID], room.awaitingResume, room.current.isEmpty {
                    endRoom(roomSID, status: .failed, participantsEnd: .reconnectWindowExpired, at: due.date, events: &events)
                }
            } else if let roomSID = due.room {
                completeRoom(roomSID, at: due.date, events: &events)
            }
        }
    }

    // MARK: - Shared internals

    func inProgressRoom(named nameOrSID: String) -> RoomState? {
        if let sid = inProgressByName[nameOrSID] { return rooms[sid] }
        if let sid = RoomSID(validating: nameOrSID), let room = rooms[sid], room.status == .inProgress { return room }
        return nil
    }

    /// Connected participants of a room other than `excluded`, in join order:
    /// the addressees of notices.
    func connectedParticipants(in roomSID: RoomSID, except excluded: ParticipantSID? = nil) -> [ParticipantSID] {
        guard let room = rooms[roomSID] else { return [] }
        return room.current.filter { $0 != excluded && participants[$0]?.status == .connected }
    }

    func joinResult(for sid: ParticipantSID, resumed: Bool, replacedLiveSession: Bool) -> JoinResult {
        let participant = participants[sid]!
        let room = rooms[participant.roomSID]!
        return JoinResult(
            room: room.record, participant: participant.info,
            participants: room.current.filter { $0 != sid }.compactMap { participants[$0]?.info },
            sessionToken: participant.sessionToken, resumed: resumed,
            replacedLiveSession: replacedLiveSession, reconnectWindow: configuration.reconnectWindow)
    }

    mutating func makeRoom(
        uniqueName: String?, maxParticipants: Int, emptyRoomTimeout: TimeInterval, unusedRoomTimeout: TimeInterval,
        statusCallback: String?, statusCallbackMethod: StatusCallbackMethod, now: Date, events: inout [RoomEvent]
    ) -> RoomSID {
        let sid = RoomSID.random(using: &generator)
        let room = RoomState(
            sid: sid, uniqueName: uniqueName ?? sid.rawValue, maxParticipants: maxParticipants,
            emptyRoomTimeout: emptyRoomTimeout, unusedRoomTimeout: unusedRoomTimeout,
            statusCallback: statusCallback, statusCallbackMethod: statusCallbackMethod,
            dateCreated: now, dateUpdated: now)
        rooms[sid] = room
        roomOrder.append(sid)
        inProgressByName[room.uniqueName] = sid
        events.append(.roomRecord(room.record))
        appendCallback(.roomCreated, room: sid, at: now, events: &events)
        return sid
    }

    /// Ends a current participant's session: others are told (unless the
    /// whole room is ending), its tracks go with it (webhooks `track-removed`,
    /// no `trackUnpublished` notices), subscriptions are refreshed unless
    /// `refresh` is false (the caller refreshes later). Then the service
    /// forgets it (see `EndedSession`). Returns its last record.
    @discardableResult
    mutating func endParticipant(
        _ sid: ParticipantSID, reason: ParticipantEndReason, at date: Date,
        events: inout [RoomEvent], roomEnding: Bool = false, refresh: Bool = true
    ) -> ParticipantRecord? {
        guard var participant = participants[sid], participant.isCurrent else { return nil }
        let wasConnected = participant.status == .connected
        let roomSID = participant.roomSID
        if wasConnected, let error = reason.disconnectError {
            events.append(.notice(to: sid, .disconnected(error)))
        }
        let removedTracks = participant.publications
        participant.status = .disconnected
        participant.endReason = reason
        participant.endTime = date
        participant.dateUpdated = date
        participant.reconnectDeadline = nil
        reconnecting.remove(sid)
        participant.subscribedAtDrop = nil
        participant.publications = []
        participant.subscribed = []
        participants[sid] = participant
        currentParticipantCount -= 1
        rooms[roomSID]!.current.removeAll { $0 == sid }
        rooms[roomSID]!.dateUpdated = date
        if rooms[roomSID]!.current.isEmpty { rooms[roomSID]!.emptySince = date }

        if !roomEnding {
            for other in connectedParticipants(in: roomSID) {
                events.append(.notice(to: other, .participantDisconnected(sid)))
            }
        }
        events.append(.participantRemoved(room: roomSID, participant: sid, reason: reason))
        events.append(.participantRecord(participant.record))
        for track in removedTracks {
            events.append(.publishedTrackRemoved(room: roomSID, participant: sid, track: track.sid))
            appendCallback(.trackRemoved, room: roomSID, participant: sid, track: track, at: date, events: &events)
        }
        appendCallback(.participantDisconnected, room: roomSID, participant: sid, at: date, events: &events)
        forget(participant)
        if refresh && !roomEnding { refreshSubscriptions(in: roomSID, events: &events) }
        return participant.record
    }

    /// Drops an ended participant from memory, keeping an `EndedSession`
    /// when a resume could still come and deserves more than 53001.
    mutating func forget(_ participant: ParticipantState) {
        participants[participant.sid] = nil
        tokens[participant.sessionToken] = nil
        guard let reason = participant.endReason, reason.disconnectError != nil else { return }
        let endedAt = participant.endTime ?? participant.dateUpdated
        endedSessions[participant.sessionToken] = EndedSession(
            identity: participant.identity, roomSID: participant.roomSID, reason: reason,
            forgetAt: endedAt.addingTimeInterval(configuration.reconnectWindow))
        endedSessionOrder.append(participant.sessionToken)
    }

    /// Forgets the `EndedSession`s whose time is up. They were added in end
    /// order, so the expired ones are at the front (a timer that ends a
    /// session at its past deadline can put one slightly out of order: it
    /// is then forgotten with the next, at most one window late).
    mutating func forgetEndedSessions(now: Date) {
        while endedSessionsHead < endedSessionOrder.count {
            let token = endedSessionOrder[endedSessionsHead]
            if let ended = endedSessions[token], ended.forgetAt > now { break }
            endedSessions[token] = nil
            endedSessionsHead += 1
        }
        // Compact once the forgotten prefix is half the array: amortized O(1).
        if endedSessionsHead > 64 && endedSessionsHead * 2 > endedSessionOrder.count {
            endedSessionOrder.removeFirst(endedSessionsHead)
            endedSessionsHead = 0
        }
    }

    /// Completes an in-progress room: every participant is disconnected with
    /// 53118, then the room ends (`room-ended`) and the service forgets it
    /// (REST reads it from the history). Returns its last record.
    @discardableResult
    mutating func completeRoom(_ roomSID: RoomSID, at date: Date, events: inout [RoomEvent]) -> RoomRecord? {
        endRoom(roomSID, status: .completed, participantsEnd: .roomCompleted, at: date, events: &events)
    }

    /// Ends an in-progress room with `status`, its current participants
    /// first for `participantsEnd`.
    @discardableResult
    mutating func endRoom(
        _ roomSID: RoomSID, status: RoomStatus, participantsEnd reason: ParticipantEndReason, at date: Date,
        events: inout [RoomEvent]
    ) -> RoomRecord? {
        guard let room = rooms[roomSID], room.status == .inProgress else { return nil }
        for sid in room.current {
            endParticipant(sid, reason: reason, at: date, events: &events, roomEnding: true)
        }
        rooms[roomSID]!.status = status
        rooms[roomSID]!.endTime = date
        rooms[roomSID]!.dateUpdated = date
        rooms[roomSID]!.emptySince = nil
        let record = rooms[roomSID]!.record
        events.append(.roomRecord(record))
        appendCallback(.roomEnded, room: roomSID, at: date, events: &events)
        rooms[roomSID] = nil
        roomOrder.removeAll { $0 == roomSID }
        inProgressByName[room.uniqueName] = nil
        return record
    }

    /// Appends a status callback when the room has a `StatusCallback`,
    /// numbering it in the room's sequence.
    mutating func appendCallback(
        _ event: StatusCallbackEvent, room roomSID: RoomSID, participant sid: ParticipantSID? = nil,
        track: Publication? = nil, at date: Date, events: inout [RoomEvent]
    ) {
        guard let room = rooms[roomSID], let url = room.statusCallback else { return }
        let participant = sid.flatMap { participants[$0] }
        let callback = StatusCallback(
            url: url, method: room.statusCallbackMethod, event: event, roomSID: roomSID,
            roomName: room.uniqueName, roomStatus: room.status,
            roomDuration: wholeSeconds(from: room.dateCreated, to: room.endTime ?? date),
            participantSID: participant?.sid, participantIdentity: participant?.identity,
            participantStatus: participant?.status,
            participantDuration: participant.flatMap { p in p.endTime.map { wholeSeconds(from: p.dateCreated, to: $0) } },
            trackSID: track?.sid, trackName: track?.name, trackKind: track?.kind,
            sequenceNumber: room.nextCallbackSequence, timestamp: date)
        rooms[roomSID]!.nextCallbackSequence += 1
        events.append(.statusCallback(callback))
    }

    /// Recomputes every current participant's subscribed set in the room and
    /// tells connected ones whose set changed (`subscriptionsChanged`).
    mutating func refreshSubscriptions(in roomSID: RoomSID, events: inout [RoomEvent]) {
        guard let room = rooms[roomSID] else { return }
        for sid in room.current {
            let fresh = evaluateSubscriptions(of: sid)
            guard fresh != participants[sid]!.subscribed else { continue }
            participants[sid]!.subscribed = fresh
            if participants[sid]!.status == .connected {
                events.append(.notice(to: sid, .subscriptionsChanged))
            }
        }
    }

    /// The tracks `sid`'s rules select among the other current participants'
    /// publications, in join order then publication order.
    func evaluateSubscriptions(of sid: ParticipantSID) -> [TrackSID] {
        guard let subscriber = participants[sid], subscriber.isCurrent, let room = rooms[subscriber.roomSID] else { return [] }
        var out: [TrackSID] = []
        for publisherSID in room.current where publisherSID != sid {
            guard let publisher = participants[publisherSID] else { continue }
            for publication in publisher.publications where SubscribeRule.evaluate(
                subscriber.rules, publisherIdentity: publisher.identity, publisherSID: publisherSID,
                trackSID: publication.sid, trackName: publication.name, kind: publication.kind) {
                out.append(publication.sid)
            }
        }
        return out
    }
}
