import Foundation
import Rooms
import Testing

@Suite struct JoinTests {
    @Test func firstJoinCreatesTheRoomAndReturnsASnapshotAndToken() throws {
        var service = makeService()
        let outcome = try service.join(roomName: "standup", identity: "alice", name: "Alice's laptop", now: t0)
        let result = outcome.value
        #expect(result.room.uniqueName == "standup")
        #expect(result.room.status == .inProgress)
        #expect(result.room.maxParticipants == 50)
        #expect(result.participant.identity == "alice")
        #expect(result.participant.name == "Alice's laptop")
        #expect(result.participants.isEmpty)
        #expect(!result.resumed)
        #expect(result.reconnectWindow == 30)
        #expect(outcome.events.roomRecords.map(\.uniqueName) == ["standup"])
        #expect(outcome.events.participantRecords.map(\.status) == [.connected])
        #expect(outcome.events.noticeAddressees.isEmpty)
        #expect(service.participantCount == 1)
    }

    @Test func aLaterJoinUpdatesTheRoomAndEmitsItsRecord() throws {
        var service = makeService()
        _ = try join(&service, "alice")
        let outcome = try service.join(roomName: "standup", identity: "bob", now: at(7))
        // History (another node's REST) must see the room's new date_updated.
        #expect(outcome.events.roomRecords.map(\.dateUpdated) == [at(7)])
        #expect(try service.room("standup").dateUpdated == at(7))
    }

    @Test func secondJoinSeesTheFirstAndTheFirstIsToldOnce() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = try publish(&service, alice.sid, [("camera", "video")])
        let outcome = try service.join(roomName: "standup", identity: "bob", now: at(1))
        let bob = outcome.value.participant.sid
        #expect(outcome.value.participants.map(\.identity) == ["alice"])
        #expect(outcome.value.participants[0].tracks.map(\.name) == ["camera"])
        #expect(outcome.value.room.sid == service.participantRecord(alice.sid)?.roomSID)
        let aliceNotices = outcome.events.notices(to: alice.sid)
        #expect(aliceNotices.count == 1)
        guard case .participantConnected(let info) = aliceNotices.first else {
            Issue.record("expected participantConnected"); return
        }
        #expect(info.sid == bob && info.identity == "bob" && info.status == .connected)
        // Bob is subscribed to alice's camera: his offer is due.
        #expect(outcome.events.notices(to: bob) == [.subscriptionsChanged])
    }

    @Test(arguments: [
        ("", RoomError.roomNameInvalid), ("   ", .roomNameInvalid),
        (String(repeating: "r", count: 129), .roomNameTooLong),
        ("bad\nname", .roomNameCharsInvalid), ("bad\u{7F}", .roomNameCharsInvalid), ("x\u{85}", .roomNameCharsInvalid),
    ])
    func roomNameValidation(name: String, error: RoomError) {
        var service = makeService()
        expectRoomError(error) { _ = try service.join(roomName: name, identity: "alice", now: t0) }
        #expect(service.allRooms().isEmpty)
    }

    @Test func roomNamesMayHoldSlashesAnd128Scalars() throws {
        var service = makeService()
        _ = try service.join(roomName: "a/b?c#d é", identity: "alice", now: t0)
        _ = try service.join(roomName: String(repeating: "é", count: 128), identity: "alice", now: t0)
        #expect(service.allRooms().count == 2)
    }

    @Test(arguments: [
        ("", RoomError.participantIdentityInvalid),
        (String(repeating: "😀", count: 129), .participantIdentityTooLong),
        ("al\u{0}ice", .participantIdentityCharsInvalid), ("tab\t", .participantIdentityCharsInvalid),
    ])
    func identityValidation(identity: String, error: RoomError) {
        var service = makeService()
        expectRoomError(error) { _ = try service.join(roomName: "standup", identity: identity, now: t0) }
        #expect(service.participantCount == 0)
    }

    @Test func identityOf128ScalarsIsAccepted() throws {
        var service = makeService()
        try join(&service, String(repeating: "😀", count: 128))
        #expect(service.participantCount == 1)
    }

    @Test func autoCreateOffGives53106AndCreatedRoomsStillWork() throws {
        var service = makeService { $0.autoCreateRooms = false }
        expectRoomError(.roomNotFound) { _ = try service.join(roomName: "standup", identity: "alice", now: t0) }
        let room = try service.createRoom(uniqueName: "standup", now: t0).value
        let joined = try service.join(roomName: "standup", identity: "alice", now: t0).value
        #expect(joined.room.sid == room.sid)
        let bySID = try service.join(roomName: room.sid.rawValue, identity: "bob", now: t0).value
        #expect(bySID.room.sid == room.sid)
    }

    @Test func aSIDShapedNameIsNeverAutoCreated() throws {
        var service = makeService()
        expectRoomError(.roomNotFound) {
            _ = try service.join(roomName: "RM" + String(repeating: "0", count: 32), identity: "alice", now: t0)
        }
    }

    @Test func completedRoomNameStartsANewRoomWithANewSID() throws {
        var service = makeService()
        let first = try service.join(roomName: "standup", identity: "alice", now: t0).value.room.sid
        let completed = try service.completeRoom("standup", now: at(10))
        let second = try service.join(roomName: "standup", identity: "alice", now: at(20)).value.room.sid
        #expect(first != second)
        #expect(try service.room("standup").sid == second)
        // The completed room went to the history and left the service
        // (REST finds it by name or SID in the store: AdminAPITests).
        #expect(completed.events.roomRecords.last?.sid == first && completed.events.roomRecords.last?.status == .completed)
        expectRoomError(.roomNotFound) { _ = try service.room(first.rawValue) }
        // A completed room's SID cannot be joined.
        expectRoomError(.roomNotFound) { _ = try service.join(roomName: first.rawValue, identity: "bob", now: at(21)) }
        // With the new one completed too, no room of that name is live.
        _ = try service.completeRoom("standup", now: at(30))
        expectRoomError(.roomNotFound) { _ = try service.room("standup") }
    }

    @Test func fullRoomGives53105() throws {
        var service = makeService()
        _ = try service.createRoom(uniqueName: "small", maxParticipants: 2, now: t0)
        try join(&service, "a", room: "small")
        try join(&service, "b", room: "small")
        expectRoomError(.roomMaxParticipantsExceeded) { _ = try service.join(roomName: "small", identity: "c", now: t0) }
        // The same identity replaces itself even in a full room.
        try join(&service, "b", room: "small")
        #expect(try service.participants(inRoom: "small").filter { $0.status == .connected }.count == 2)
        #expect(try service.participants(inRoom: "small").count == 2)
    }

    @Test func nodeLimitGives53006() throws {
        var service = makeService { $0.maxParticipantsPerNode = 2 }
        try join(&service, "a", room: "one")
        try join(&service, "b", room: "two")
        expectRoomError(.signalingServerBusy) { _ = try service.join(roomName: "three", identity: "c", now: t0) }
        #expect(service.allRooms().count == 2)
        let a = try service.participant(room: "one", "a")
        _ = service.leave(participant: a.sid, now: at(1))
        try join(&service, "c", room: "three", now: at(2))
    }

    @Test func reconnectingParticipantsCountTowardTheLimits() throws {
        var service = makeService()
        _ = try service.createRoom(uniqueName: "small", maxParticipants: 1, now: t0)
        let a = try join(&service, "a", room: "small")
        _ = service.drop(participant: a.sid, now: at(1))
        expectRoomError(.roomMaxParticipantsExceeded) { _ = try service.join(roomName: "small", identity: "b", now: at(2)) }
    }

    @Test func duplicateIdentityDisconnectsTheOlderWith53205ThenAnnouncesTheNewer() throws {
        var service = makeService()
        let old = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, old.sid, [("camera", "video")])
        let outcome = try service.join(roomName: "standup", identity: "alice", now: at(5))
        let new = outcome.value.participant.sid
        #expect(new != old.sid)
        #expect(outcome.events.notices(to: old.sid) == [.disconnected(.participantDuplicateIdentity)])
        let toBob = outcome.events.notices(to: bob.sid)
        #expect(toBob.first == .participantDisconnected(old.sid))
        guard toBob.count >= 2, case .participantConnected(let info) = toBob[1] else {
            Issue.record("expected participantConnected second, got \(toBob)"); return
        }
        #expect(info.sid == new)
        // Bob lost the old camera: his set changed after both notices.
        #expect(toBob.last == .subscriptionsChanged)
        #expect(outcome.value.participants.map(\.identity) == ["bob"])
        let oldRecord = outcome.events.participantRecords.last { $0.sid == old.sid }
        #expect(oldRecord?.status == .disconnected)
        #expect(oldRecord?.endReason == .duplicateIdentity)
        // Ended sessions are history's, not the service's.
        #expect(service.participantRecord(old.sid) == nil)
        #expect(try service.participant(room: "standup", "alice").sid == new)
        #expect(service.participantCount == 2)
    }

    @Test func identitiesArePerRoom() throws {
        var service = makeService()
        let one = try join(&service, "alice", room: "one")
        let two = try join(&service, "alice", room: "two")
        #expect(service.participantRecord(one.sid)?.status == .connected)
        #expect(service.participantRecord(two.sid)?.status == .connected)
    }

    @Test func roomGrantRestrictsTheRoom() throws {
        var service = makeService()
        expectRoomError(.accessTokenGrantsInvalid) {
            _ = try service.join(roomName: "other", identity: "alice", grantRoom: "standup", now: t0)
        }
        let room = try service.join(roomName: "standup", identity: "alice", grantRoom: "standup", now: t0).value.room
        // A grant naming the SID allows joining by name, and the other way round.
        _ = try service.join(roomName: "standup", identity: "bob", grantRoom: room.sid.rawValue, now: t0)
        _ = try service.join(roomName: room.sid.rawValue, identity: "carol", grantRoom: "standup", now: t0)
        #expect(service.participantCount == 3)
    }

    @Test func leaveRemovesAtOnceAndTellsOthers() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, alice.sid, [("mic", "audio")])
        let events = service.leave(participant: alice.sid, now: at(60))
        #expect(events.notices(to: bob.sid) == [.participantDisconnected(alice.sid), .subscriptionsChanged])
        #expect(events.notices(to: alice.sid).isEmpty)
        let record = try #require(events.participantRecords.last)
        #expect(record.sid == alice.sid)
        #expect(service.participantRecord(alice.sid) == nil)
        #expect(record.status == .disconnected && record.endReason == .left)
        #expect(record.endTime == at(60) && record.duration == 60)
        #expect(service.leave(participant: alice.sid, now: at(61)).isEmpty)
        #expect(service.subscribedTracks(of: bob.sid).isEmpty)
    }

    @Test func checkOrderNameIdentityGrantNodeRoom() throws {
        var service = makeService { $0.maxParticipantsPerNode = 0; $0.autoCreateRooms = false }
        // Every check would fail; each one shows only once the earlier ones pass.
        expectRoomError(.roomNameInvalid) { _ = try service.join(roomName: "", identity: "", grantRoom: "g", now: t0) }
        expectRoomError(.participantIdentityInvalid) { _ = try service.join(roomName: "r", identity: "", grantRoom: "g", now: t0) }
        expectRoomError(.accessTokenGrantsInvalid) { _ = try service.join(roomName: "r", identity: "a", grantRoom: "g", now: t0) }
        expectRoomError(.signalingServerBusy) { _ = try service.join(roomName: "r", identity: "a", now: t0) }
        var open = makeService { $0.autoCreateRooms = false }
        expectRoomError(.roomNotFound) { _ = try open.join(roomName: "r", identity: "a", now: t0) }
    }
}
