import Foundation
import Rooms
import Testing

/// The service keeps what is live and nothing more (issue 11, item 4):
/// join/leave churn, replaced sessions and completed rooms leave no trace in
/// it beyond one reconnect window; their records went out as events for the
/// history (Persistence).
@Suite struct BoundedStateTests {
    @Test func joinLeaveChurnLeavesOnlyTheLiveSessions() throws {
        var service = makeService()
        let stayer = try join(&service, "stayer")
        var records: [ParticipantRecord] = []
        for cycle in 0..<2_000 {
            let churner = try join(&service, "churner-\(cycle % 7)", now: at(Double(cycle)))
            records += churner.events.participantRecords
            records += service.leave(participant: churner.sid, now: at(Double(cycle) + 0.5)).participantRecords
        }
        #expect(service.participantCount == 1)
        #expect(service.retainedSessionCount == 1)
        #expect(try service.participants(inRoom: "standup").map(\.sid) == [stayer.sid])
        #expect(service.allRooms().count == 1)
        // Every session's history went out: one connected and one
        // disconnected record per cycle.
        #expect(records.count == 4_000)
        #expect(records.filter { $0.status == .disconnected && $0.endReason == .left }.count == 2_000)
    }

    @Test func droppedSessionsAreForgottenWhenTheirWindowEnds() throws {
        var service = makeService()
        try join(&service, "stayer")
        for cycle in 0..<500 {
            let churner = try join(&service, "churner", now: at(Double(cycle)))
            _ = service.drop(participant: churner.sid, now: at(Double(cycle) + 0.1))
            // The next join of the same identity replaces the reconnecting session.
        }
        // At most the last one is current; the replaced ones wait one
        // window for a late resume (53205), then are forgotten.
        #expect(service.participantCount == 2)
        _ = service.tick(now: at(10_000))
        #expect(service.retainedSessionCount == 1)
    }

    @Test func sessionsEndedByRESTOrAReplacementKeepTheirResumeCodeForOneWindow() throws {
        var service = makeService { $0.reconnectWindow = 30 }
        try join(&service, "stayer")
        let removed = try join(&service, "removed")
        _ = service.drop(participant: removed.sid, now: at(1))
        _ = try service.removeParticipant(room: "standup", participant: "removed", now: at(2))
        let replaced = try join(&service, "twin", now: at(3))
        try join(&service, "twin", now: at(4))
        #expect(service.retainedSessionCount == 4)
        expectRoomError(.participantRemoved) { _ = try service.resume(sessionToken: removed.token, identity: "removed", now: at(31)) }
        expectRoomError(.participantDuplicateIdentity) { _ = try service.resume(sessionToken: replaced.token, identity: "twin", now: at(33)) }
        // One window after they ended, they are gone: an unknown token.
        expectRoomError(.signalingConnectionDisconnected) { _ = try service.resume(sessionToken: removed.token, identity: "removed", now: at(32)) }
        expectRoomError(.signalingConnectionDisconnected) { _ = try service.resume(sessionToken: replaced.token, identity: "twin", now: at(34)) }
        #expect(service.retainedSessionCount == 2)
    }

    @Test func completedRoomsLeaveNothingBehind() throws {
        var service = makeService()
        for n in 0..<300 {
            let room = "room-\(n % 10)"
            let alice = try join(&service, "alice", room: room, now: at(Double(n)))
            _ = try publish(&service, alice.sid, [("camera", "video")], now: at(Double(n)))
            _ = try service.completeRoom(room, now: at(Double(n) + 0.5))
        }
        #expect(service.allRooms().isEmpty)
        #expect(service.inProgressRoomCount == 0)
        _ = service.tick(now: at(1_000))
        #expect(service.retainedSessionCount == 0)
    }
}
