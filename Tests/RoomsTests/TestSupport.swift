import Foundation
import Rooms
import Testing
import VroomTesting

/// A fixed origin so every test reads its times as offsets.
let t0 = Date(timeIntervalSince1970: 1_763_700_000)

func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

func makeService(_ configure: (inout RoomServiceConfiguration) -> Void = { _ in }, seed: UInt64 = 1) -> RoomService {
    var configuration = RoomServiceConfiguration()
    configure(&configuration)
    return RoomService(configuration: configuration, generator: SeededGenerator(seed: seed))
}

/// Joins and returns the participant SID (and the token).
@discardableResult
func join(_ service: inout RoomService, _ identity: String, room: String = "standup", rules: [SubscribeRule]? = nil, now: Date = t0) throws -> (sid: ParticipantSID, token: SessionToken, events: [RoomEvent]) {
    let outcome = try service.join(roomName: room, identity: identity, rules: rules, now: now)
    return (outcome.value.participant.sid, outcome.value.sessionToken, outcome.events)
}

/// Publishes `names` as video tracks (`mid` = index) and returns the SIDs by name.
@discardableResult
func publish(_ service: inout RoomService, _ sid: ParticipantSID, _ tracks: [(String, String)], now: Date = t0) throws -> [String: TrackSID] {
    let requests = tracks.enumerated().map { TrackRequest(mid: String($0.offset), name: $0.element.0, kind: $0.element.1) }
    let outcome = try service.publish(participant: sid, tracks: requests, now: now)
    return Dictionary(uniqueKeysWithValues: outcome.value.map { ($0.name, $0.sid) })
}

extension Array where Element == RoomEvent {
    /// The notices addressed to `sid`, in order.
    func notices(to sid: ParticipantSID) -> [ParticipantNotice] {
        compactMap { if case .notice(let to, let notice) = $0, to == sid { notice } else { nil } }
    }

    /// Every addressee of a notice, in order.
    var noticeAddressees: [ParticipantSID] {
        compactMap { if case .notice(let to, _) = $0 { to } else { nil } }
    }

    var callbacks: [StatusCallback] {
        compactMap { if case .statusCallback(let callback) = $0 { callback } else { nil } }
    }

    var participantRecords: [ParticipantRecord] {
        compactMap { if case .participantRecord(let record) = $0 { record } else { nil } }
    }

    var roomRecords: [RoomRecord] {
        compactMap { if case .roomRecord(let record) = $0 { record } else { nil } }
    }
}

/// Expects `body` to throw exactly `expected`.
func expectRoomError(_ expected: RoomError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(expected.code) \(expected), got success", sourceLocation: sourceLocation)
    } catch {
        #expect(error as? RoomError == expected, sourceLocation: sourceLocation)
    }
}

func expectRefusal(_ expected: MessageRefusal, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(expected.code) \(expected), got success", sourceLocation: sourceLocation)
    } catch {
        #expect(error as? MessageRefusal == expected, sourceLocation: sourceLocation)
    }
}
