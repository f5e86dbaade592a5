import Foundation
import Rooms
import Testing
import Node

/// Collects what the host delivers to one participant: the receiving end of a
/// session's outbox.
final class RecordingConnection: ParticipantConnection, @unchecked Sendable {
    // @unchecked: `notices` is only touched under `lock`.
    private let lock = NSLock()
    private var notices: [String] = []

    func deliver(_ notice: ParticipantNotice) {
        lock.withLock { notices.append(Self.name(notice)) }
    }

    func record(_ line: String) {
        lock.withLock { notices.append(line) }
    }

    var received: [String] { lock.withLock { notices } }

    static func name(_ notice: ParticipantNotice) -> String {
        switch notice {
        case .participantConnected: "participantConnected"
        case .participantDisconnected: "participantDisconnected"
        case .participantReconnecting: "participantReconnecting"
        case .participantReconnected: "participantReconnected"
        case .trackPublished: "trackPublished"
        case .trackUnpublished: "trackUnpublished"
        case .trackEnabled: "trackEnabled"
        case .trackDisabled: "trackDisabled"
        case .message: "message"
        case .subscriptionsChanged: "subscriptionsChanged"
        case .disconnected(let error): "disconnected \(error.code)"
        case .mediaError(let code, _): "mediaError \(code.rawValue)"
        case .networkQuality(let participant, let level, let warnings):
            "networkQuality \(participant.rawValue) \(level) \(warnings.map(\.rawValue))"
        case .dominantSpeaker(let participant): "dominantSpeaker \(participant?.rawValue ?? "null")"
        case .trackSwitchedOff(let track, let reason): "trackSwitchedOff \(track.rawValue) \(reason.rawValue)"
        case .trackSwitchedOn(let track): "trackSwitchedOn \(track.rawValue)"
        case .publisherLayers(let track, let active): "publisherLayers \(track.rawValue) \(active)"
        }
    }
}

/// Events the host passed on (status callbacks, records, media changes).
final class EventLog: @unchecked Sendable {
    // @unchecked: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [RoomEvent] = []
    func append(_ new: [RoomEvent]) { lock.withLock { events += new } }
    var all: [RoomEvent] { lock.withLock { events } }
}

@Suite struct RoomHostTests {
    func join(
        _ host: RoomHost, _ identity: String, room: String = "standup", connection: RecordingConnection
    ) async throws -> JoinResult {
        try await host.admit(connection: connection, joined: { _ in connection.record("joined") }) {
            (service: inout RoomService, now) throws(RoomError) in
            try service.join(roomName: room, identity: identity, now: now)
        }
    }

    @Test func joinedComesBeforeTheJoinsOwnNoticesAndOthersSeeTheJoin() async throws {
        let host = RoomHost()
        let alice = RecordingConnection()
        let bob = RecordingConnection()
        _ = try await join(host, "alice", connection: alice)
        #expect(alice.received.first == "joined")
        let joined = try await join(host, "bob", connection: bob)
        #expect(bob.received.first == "joined")
        #expect(alice.received.contains("participantConnected"))
        #expect(!bob.received.contains("participantConnected"), "nobody is told of their own join")
        let count = await host.read { $0.participantCount }
        #expect(count == 2)
        #expect(joined.participants.map(\.identity) == ["alice"])
    }

    /// Quality and dominant speaker are sent on change only: a late joiner
    /// gets the room's current ones right after `joined`, and nothing of a
    /// participant who has left.
    @Test func aJoinerGetsTheCurrentDominantSpeakerAndNetworkQuality() async throws {
        let host = RoomHost()
        let (alice, bob, carol, dave) = (RecordingConnection(), RecordingConnection(), RecordingConnection(), RecordingConnection())
        let a = try await join(host, "alice", connection: alice)
        let b = try await join(host, "bob", connection: bob)
        let room = a.room.sid
        let (aliceSID, bobSID) = (a.participant.sid.rawValue, b.participant.sid.rawValue)
        await host.handle(.networkQuality(room: room, participant: a.participant.sid, level: 4, warnings: [.highRTT]))
        await host.handle(.networkQuality(room: room, participant: b.participant.sid, level: 2, warnings: []))
        await host.handle(.dominantSpeaker(room: room, participant: b.participant.sid))
        _ = try await join(host, "carol", connection: carol)
        #expect(carol.received.first == "joined")
        #expect(carol.received.contains("dominantSpeaker \(bobSID)"))
        #expect(carol.received.contains("networkQuality \(aliceSID) 4 [\"high-rtt\"]"))
        #expect(carol.received.contains("networkQuality \(bobSID) 2 []"))

        await host.leave(participant: b.participant.sid, connection: bob)
        _ = try await join(host, "dave", connection: dave)
        #expect(!dave.received.contains { $0.contains(bobSID) }, "\(dave.received)")
        #expect(dave.received.contains("networkQuality \(aliceSID) 4 [\"high-rtt\"]"))
    }

    @Test func aRefusedJoinRegistersNothing() async throws {
        let host = RoomHost()
        let connection = RecordingConnection()
        await #expect(throws: RoomError.participantIdentityInvalid) {
            _ = try await join(host, "", connection: connection)
        }
        #expect(connection.received.isEmpty)
        let count = await host.read { $0.participantCount }
        #expect(count == 0)
    }

    @Test func theReconnectWindowExpiresOnItsOwnTimer() async throws {
        var configuration = RoomServiceConfiguration()
        configuration.reconnectWindow = 0.3
        let events = EventLog()
        let host = RoomHost(configuration: configuration, eventSink: { events.append($0) })
        let alice = RecordingConnection()
        let bob = RecordingConnection()
        let joinedBob = try await join(host, "bob", connection: bob)
        _ = try await join(host, "alice", connection: alice)

        await host.connectionLost(participant: joinedBob.participant.sid, connection: bob)
        #expect(alice.received.last == "participantReconnecting")

        // Nobody calls the host again: only its timer can remove bob.
        for _ in 0..<100 where alice.received.last != "participantDisconnected" {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(alice.received.last == "participantDisconnected")
        #expect(events.all.contains { if case .participantRemoved = $0 { true } else { false } })
    }

    @Test func aStaleConnectionCannotDropTheParticipantOfANewerOne() async throws {
        let host = RoomHost()
        let old = RecordingConnection()
        let alice = RecordingConnection()
        let first = try await join(host, "bob", connection: old)
        _ = try await join(host, "alice", connection: alice)
        let newer = RecordingConnection()
        let resumed = try await host.admit(connection: newer, joined: { _ in newer.record("joined") }) {
            (service: inout RoomService, now) throws(RoomError) in
            try service.resume(sessionToken: first.sessionToken, identity: "bob", now: now)
        }
        #expect(resumed.participant.sid == first.participant.sid)
        await host.connectionLost(participant: first.participant.sid, connection: old)
        #expect(!alice.received.contains("participantReconnecting"))
        await host.leave(participant: first.participant.sid, connection: newer)
        #expect(alice.received.last == "participantDisconnected")
    }

    @Test func qualityAndSpeakerEventsReachEveryoneInTheRoomAndNobodyElse() async throws {
        let host = RoomHost()
        let alice = RecordingConnection()
        let bob = RecordingConnection()
        let carol = RecordingConnection()
        let a = try await join(host, "alice", connection: alice)
        _ = try await join(host, "bob", connection: bob)
        _ = try await join(host, "carol", room: "elsewhere", connection: carol)
        await host.handle(.networkQuality(
            room: a.room.sid, participant: a.participant.sid, level: 2, warnings: [.highPacketLoss, .lowMOS]))
        await host.handle(.dominantSpeaker(room: a.room.sid, participant: a.participant.sid))
        await host.handle(.dominantSpeaker(room: a.room.sid, participant: nil))
        let quality = "networkQuality \(a.participant.sid.rawValue) 2 [\"high-packet-loss\", \"low-mos\"]"
        let expected = [quality, "dominantSpeaker \(a.participant.sid.rawValue)", "dominantSpeaker null"]
        #expect(Array(alice.received.suffix(3)) == expected, "the subject is told too")
        #expect(Array(bob.received.suffix(3)) == expected)
        #expect(!carol.received.contains { $0.hasPrefix("networkQuality") || $0.hasPrefix("dominantSpeaker") })
    }
}
