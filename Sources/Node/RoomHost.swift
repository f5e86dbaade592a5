import Foundation
import Rooms

/// Where a participant's notices go: its signaling session's outbox.
public protocol ParticipantConnection: AnyObject, Sendable {
    /// Called on the `RoomHost` actor, in event order. Must not block: it
    /// only enqueues (a session whose outbox is full disconnects itself,
    /// PROTOCOL.md 3.6, so a slow client never stalls the room).
    func deliver(_ notice: ParticipantNotice)

    /// A resume on another socket took the participant over: this one must
    /// close without being treated as a drop.
    func connectionReplaced()

    /// The participant's room moved to another node (a drain): tell the
    /// client to resume at `signalingURL`, then close, not as a drop.
    func roomMoved(to signalingURL: String)
}

extension ParticipantConnection {
    public func connectionReplaced() {}

    public func roomMoved(to signalingURL: String) { connectionReplaced() }
}

/// The one owner of a node's `RoomService` (DESIGN.md, "One owner per
/// state"). Signaling sessions and REST handlers call into it; it runs each
/// operation at the current time, hands the notices to the participants'
/// connections in order, passes every other event (status callbacks,
/// history records, media changes) to `eventSink`, and keeps one timer armed
/// at the service's `nextDeadline` so reconnect windows and room timeouts
/// fire without anyone calling in.
public actor RoomHost {
    private var service: RoomService
    private var connections: [ParticipantSID: any ParticipantConnection] = [:]
    private let eventSink: @Sendable ([RoomEvent]) -> Void
    private let clock: @Sendable () -> Date
    private var timer: Task<Void, Never>?
    private var timerDeadline: Date?
    /// The latest network quality broadcast for each participant, and each
    /// room's dominant speaker: a joiner is sent them right after `joined`,
    /// since both are otherwise sent only on change (PROTOCOL.md 3.7, 3.8)
    /// and a late joiner would show no levels until someone's changed.
    private var qualities: [ParticipantSID: (room: RoomSID, level: Int, warnings: [NetworkQualityWarning])] = [:]
    private var dominantSpeakers: [RoomSID: ParticipantSID] = [:]

    /// - Parameters:
    ///   - eventSink: receives, in order, every event that is not a notice
    ///     to a participant. Called on this actor: it must only enqueue.
    ///   - clock: the current time (tests may shift it).
    public init(
        configuration: RoomServiceConfiguration = RoomServiceConfiguration(),
        clock: @escaping @Sendable () -> Date = { Date() },
        eventSink: @escaping @Sendable ([RoomEvent]) -> Void = { _ in }
    ) {
        service = RoomService(configuration: configuration, generator: SystemRandomNumberGenerator())
        self.clock = clock
        self.eventSink = eventSink
    }

    deinit {
        timer?.cancel()
    }

    public var configuration: RoomServiceConfiguration { service.configuration }

    /// Runs `operation` now and routes what it returns; the value is the
    /// operation's result. A throwing operation changes nothing.
    public func perform<Value: Sendable, Failure: Error>(
        _ operation: @Sendable (inout RoomService, Date) throws(Failure) -> RoomOutcome<Value>
    ) throws(Failure) -> Value {
        let now = catchUp()
        let outcome = try operation(&service, now)
        route(outcome.events)
        armTimer()
        return outcome.value
    }

    /// `perform` for operations that only return events.
    public func perform<Failure: Error>(
        _ operation: @Sendable (inout RoomService, Date) throws(Failure) -> [RoomEvent]
    ) throws(Failure) {
        let now = catchUp()
        let events = try operation(&service, now)
        route(events)
        armTimer()
    }

    /// A read of the current state.
    public func read<Value: Sendable>(_ body: @Sendable (RoomService) -> Value) -> Value {
        body(service)
    }

    /// `join` or `resume` for a session: on success `connection` becomes the
    /// participant's, `joined` runs (the session enqueues its `joined` reply
    /// there) and only then are the join's events routed, so the joiner sees
    /// `joined` before anything that follows from it.
    public func admit(
        connection: any ParticipantConnection,
        joined: @Sendable (JoinResult) -> Void,
        _ operation: @Sendable (inout RoomService, Date) throws(RoomError) -> RoomOutcome<JoinResult>
    ) throws(RoomError) -> JoinResult {
        let now = catchUp()
        let outcome = try operation(&service, now)
        let sid = outcome.value.participant.sid
        if let previous = connections[sid], previous !== connection { previous.connectionReplaced() }
        connections[sid] = connection
        joined(outcome.value)
        route(outcome.events)
        sendCurrentSignals(to: sid, in: outcome.value.room.sid)
        armTimer()
        return outcome.value
    }

    /// The room's dominant speaker and the others' latest network quality,
    /// to a participant that just joined or resumed.
    private func sendCurrentSignals(to participant: ParticipantSID, in room: RoomSID) {
        guard let connection = connections[participant] else { return }
        if let speaker = dominantSpeakers[room] { connection.deliver(.dominantSpeaker(speaker)) }
        let others = qualities.filter { $0.value.room == room && $0.key != participant }
        for (other, quality) in others.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            connection.deliver(.networkQuality(participant: other, level: quality.level, warnings: quality.warnings))
        }
    }

    /// Remembers what `sendCurrentSignals` sends a joiner.
    func remember(_ event: RoomMediaEvent) {
        switch event {
        case .networkQuality(let room, let participant, let level, let warnings):
            qualities[participant] = (room, level, warnings)
        case .dominantSpeaker(let room, let participant):
            dominantSpeakers[room] = participant
        default:
            break
        }
    }

    /// A session's socket went away without `leave` (a drop, PROTOCOL.md
    /// 3.6). Ignored when `connection` is no longer the participant's (a
    /// resume on a new socket replaced it).
    public func connectionLost(participant: ParticipantSID, connection: any ParticipantConnection) {
        guard connections[participant] === connection else { return }
        connections[participant] = nil
        perform { (service: inout RoomService, now) -> [RoomEvent] in service.drop(participant: participant, now: now) }
    }

    /// Lets `room` go to another node (a drain, PROTOCOL.md section 8): the
    /// room and its participants are forgotten here without an event (their
    /// records stay in progress in the cluster's database, where the new
    /// node reads them), so nothing changes it any more. Returns its
    /// participants with their connections, which the caller tells where
    /// to resume once the room is placed there.
    public func release(room: RoomSID) -> [(participant: ParticipantSID, connection: (any ParticipantConnection)?)] {
        _ = catchUp()
        let released = service.release(room: room).map { ($0, connections.removeValue(forKey: $0)) }
        for (participant, _) in released { qualities[participant] = nil }
        dominantSpeakers[room] = nil
        armTimer()
        return released
    }

    /// The session said `leave`.
    public func leave(participant: ParticipantSID, connection: any ParticipantConnection) {
        guard connections[participant] === connection else { return }
        connections[participant] = nil
        perform { (service: inout RoomService, now) -> [RoomEvent] in service.leave(participant: participant, now: now) }
    }

    /// Hands `notice` to the participant's session, if it has one (a media
    /// failure reported by the media plane).
    public func notify(_ participant: ParticipantSID, _ notice: ParticipantNotice) {
        connections[participant]?.deliver(notice)
    }

    /// Hands `notice` to every connected participant of `room` (network
    /// quality and dominant speaker go to everyone, the subject included).
    public func broadcast(room: RoomSID, _ notice: ParticipantNotice) {
        guard let participants = try? service.participants(inRoom: room.rawValue) else { return }
        for participant in participants where participant.status == .connected {
            connections[participant.sid]?.deliver(notice)
        }
    }

    // MARK: - Internals

    /// The current time, after running any timer that is already due (the
    /// service wants `tick` before an operation once a deadline has passed).
    private func catchUp() -> Date {
        let now = clock()
        if let deadline = service.nextDeadline, deadline <= now {
            route(service.tick(now: now))
        }
        return now
    }

    private func route(_ events: [RoomEvent]) {
        var others: [RoomEvent] = []
        for event in events {
            switch event {
            case .notice(let participant, let notice):
                connections[participant]?.deliver(notice)
                if case .disconnected = notice { connections[participant] = nil }
            case .participantRemoved(let room, let participant, _):
                connections[participant] = nil
                qualities[participant] = nil
                if dominantSpeakers[room] == participant { dominantSpeakers[room] = nil }
                others.append(event)
            default:
                others.append(event)
            }
        }
        if !others.isEmpty { eventSink(others) }
    }

    private func armTimer() {
        let deadline = service.nextDeadline
        guard deadline != timerDeadline else { return }
        timer?.cancel()
        timerDeadline = deadline
        guard let deadline else {
            timer = nil
            return
        }
        let delay = max(0, deadline.timeIntervalSince(clock()))
        timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64(delay * 1000) + 1))
            guard !Task.isCancelled else { return }
            await self?.timerFired()
        }
    }

    private func timerFired() {
        timerDeadline = nil
        _ = catchUp()
        armTimer()
    }
}
