import Foundation
import Rooms
import Testing

@Suite struct AdminTests {
    @Test func createRoomDefaultsAndRecords() throws {
        var service = makeService()
        let outcome = try service.createRoom(uniqueName: "standup", statusCallback: "https://example.test/cb", now: t0)
        let room = outcome.value
        #expect(room.status == .inProgress && room.maxParticipants == 50)
        #expect(room.emptyRoomTimeout == 5 && room.unusedRoomTimeout == 5)
        #expect(room.statusCallbackMethod == .post)
        #expect(room.endTime == nil && room.duration == nil)
        #expect(outcome.events.roomRecords == [room])
        #expect(outcome.events.callbacks.map(\.event) == [.roomCreated])
        #expect(outcome.events.callbacks.first?.sequenceNumber == 0)
        let unnamed = try service.createRoom(now: t0).value
        #expect(unnamed.uniqueName == unnamed.sid.rawValue)
    }

    @Test(arguments: [0, -1, 51])
    func maxParticipantsOutOfRangeIs53107(value: Int) {
        var service = makeService()
        expectRoomError(.roomMaxParticipantsOutOfRange) { _ = try service.createRoom(uniqueName: "r", maxParticipants: value, now: t0) }
    }

    @Test func maxParticipantsLimitIsConfigurable() throws {
        var service = makeService { $0.maxParticipantsLimit = 200 }
        #expect(try service.createRoom(uniqueName: "big", maxParticipants: 200, now: t0).value.maxParticipants == 200)
    }

    @Test(arguments: [(0, 5), (61, 5), (5, 0), (5, 61)])
    func timeoutsOutsideOneToSixtyMinutesAre53109(empty: Int, unused: Int) {
        var service = makeService()
        expectRoomError(.roomTimeoutOutOfRange) {
            _ = try service.createRoom(uniqueName: "r", emptyRoomTimeoutMinutes: empty, unusedRoomTimeoutMinutes: unused, now: t0)
        }
    }

    @Test func createValidatesTheNameAndRefusesAnInProgressDuplicate() throws {
        var service = makeService()
        expectRoomError(.roomNameTooLong) { _ = try service.createRoom(uniqueName: String(repeating: "x", count: 129), now: t0) }
        expectRoomError(.roomNameCharsInvalid) { _ = try service.createRoom(uniqueName: "a\rb", now: t0) }
        _ = try service.createRoom(uniqueName: "standup", now: t0)
        expectRoomError(.roomExists) { _ = try service.createRoom(uniqueName: "standup", now: t0) }
        _ = try service.completeRoom("standup", now: at(1))
        _ = try service.createRoom(uniqueName: "standup", now: at(2))
    }

    @Test func completeRoomDisconnectsEveryoneWith53118() throws {
        var service = makeService()
        _ = try service.createRoom(uniqueName: "standup", statusCallback: "https://example.test/cb", now: t0)
        let alice = try join(&service, "alice", now: at(10))
        let bob = try join(&service, "bob", now: at(20))
        _ = try publish(&service, alice.sid, [("camera", "video")], now: at(21))
        _ = service.drop(participant: bob.sid, now: at(25))
        let outcome = try service.completeRoom("standup", now: at(100))
        #expect(outcome.value.status == .completed)
        #expect(outcome.value.endTime == at(100) && outcome.value.duration == 100)
        #expect(outcome.events.notices(to: alice.sid) == [.disconnected(.roomCompleted)])
        // Bob is reconnecting: no socket to tell, but he is gone too.
        #expect(outcome.events.notices(to: bob.sid).isEmpty)
        #expect(outcome.events.participantRecords.last { $0.sid == bob.sid }?.endReason == .roomCompleted)
        #expect(outcome.events.callbacks.map(\.event) == [.trackRemoved, .participantDisconnected, .participantDisconnected, .roomEnded])
        #expect(outcome.events.callbacks.last?.roomStatus == .completed)
        #expect(outcome.events.callbacks.last?.roomDuration == 100)
        #expect(service.participantCount == 0)
        // The service forgot the completed room: REST answers 53112 for it
        // from the history (AdminAPITests).
        expectRoomError(.roomNotFound) { _ = try service.completeRoom("standup", now: at(101)) }
        expectRoomError(.roomNotFound) { _ = try service.completeRoom("nope", now: at(101)) }
    }

    @Test func removeParticipantByIdentityOrSID() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let outcome = try service.removeParticipant(room: "standup", participant: "alice", now: at(5))
        #expect(outcome.value.sid == alice.sid && outcome.value.status == .disconnected && outcome.value.endReason == .removedByAdmin)
        #expect(outcome.events.notices(to: alice.sid) == [.disconnected(.participantRemoved)])
        #expect(outcome.events.notices(to: bob.sid) == [.participantDisconnected(alice.sid)])
        _ = try service.removeParticipant(room: "standup", participant: bob.sid.rawValue, now: at(6))
        expectRoomError(.participantNotFound) { _ = try service.removeParticipant(room: "standup", participant: "alice", now: at(7)) }
        expectRoomError(.participantNotFound) { _ = try service.removeParticipant(room: "standup", participant: "zed", now: at(7)) }
        expectRoomError(.roomNotFound) { _ = try service.removeParticipant(room: "other", participant: "alice", now: at(7)) }
    }

    @Test func identityMeansTheCurrentSession() throws {
        var service = makeService()
        let old = try join(&service, "alice")
        let new = try join(&service, "alice", now: at(1))
        #expect(try service.participant(room: "standup", "alice").sid == new.sid)
        #expect(new.events.participantRecords.first { $0.sid == old.sid }?.status == .disconnected)
        // The ended session is history's: the service lists what is live.
        expectRoomError(.participantNotFound) { _ = try service.participant(room: "standup", old.sid.rawValue) }
        #expect(try service.participants(inRoom: "standup").map(\.sid) == [new.sid])
    }

    @Test func lookupsAndTrackReads() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let roomSID = service.participantRecord(alice.sid)!.roomSID
        let tracks = try publish(&service, alice.sid, [("camera", "video")], now: at(2))
        #expect(try service.room(roomSID.rawValue).uniqueName == "standup")
        #expect(try service.room("standup").sid == roomSID)
        expectRoomError(.roomNotFound) { _ = try service.room("nope") }
        expectRoomError(.participantNotFound) { _ = try service.participant(room: "standup", "bob") }
        let published = try service.publishedTracks(room: "standup", participant: "alice")
        #expect(published.map(\.sid) == [tracks["camera"]!])
        #expect(published.first?.dateCreated == at(2) && published.first?.kind == .video && published.first?.enabled == true)
        #expect(published.first?.roomSID == roomSID && published.first?.participantSID == alice.sid)
        #expect(service.allRooms().map(\.sid) == [roomSID])
        #expect(service.inProgressRoomCount == 1)
    }

    @Test func statusCallbacksAreNumberedPerRoomWithTheirFields() throws {
        var service = makeService()
        _ = try service.createRoom(uniqueName: "hooks", statusCallback: "https://example.test/cb", statusCallbackMethod: .get, now: t0)
        var all: [StatusCallback] = []
        let alice = try service.join(roomName: "hooks", identity: "alice", now: at(1))
        all += alice.events.callbacks
        let tracks = try service.publish(participant: alice.value.participant.sid, tracks: [TrackRequest(mid: "0", name: "mic", kind: "audio")], now: at(2))
        all += tracks.events.callbacks
        all += try service.setTrackEnabled(participant: alice.value.participant.sid, track: tracks.value[0].sid, enabled: false, now: at(3)).callbacks
        all += try service.setTrackEnabled(participant: alice.value.participant.sid, track: tracks.value[0].sid, enabled: true, now: at(4)).callbacks
        all += service.leave(participant: alice.value.participant.sid, now: at(10)).callbacks
        #expect(all.map(\.event) == [.participantConnected, .trackAdded, .trackDisabled, .trackEnabled, .trackRemoved, .participantDisconnected])
        #expect(all.map(\.sequenceNumber) == [1, 2, 3, 4, 5, 6])
        #expect(all.allSatisfy { $0.method == .get && $0.url == "https://example.test/cb" && $0.roomName == "hooks" })
        let added = all[1]
        #expect(added.trackName == "mic" && added.trackKind == .audio && added.trackSID == tracks.value[0].sid)
        #expect(added.participantIdentity == "alice")
        #expect(added.parameters["TrackKind"] == "audio" && added.parameters["SequenceNumber"] == "2")
        let left = all[5]
        #expect(left.participantStatus == .disconnected && left.participantDuration == 9)
        // Rooms without a callback emit none.
        var quiet = makeService()
        #expect(try join(&quiet, "alice").events.callbacks.isEmpty)
    }

    @Test func emptyRoomTimeoutCompletesARoomThatStayedEmpty() throws {
        var service = makeService()
        _ = try service.createRoom(uniqueName: "standup", emptyRoomTimeoutMinutes: 1, now: t0)
        let alice = try join(&service, "alice", now: at(10))
        _ = service.leave(participant: alice.sid, now: at(20))
        #expect(service.nextDeadline == at(80))
        // Someone comes back in time: the timer stops.
        let bob = try join(&service, "bob", now: at(50))
        #expect(service.nextDeadline == nil)
        #expect(service.tick(now: at(90)).isEmpty)
        _ = service.leave(participant: bob.sid, now: at(100))
        #expect(service.tick(now: at(159)).isEmpty)
        let events = service.tick(now: at(200))
        let room = try #require(events.roomRecords.last)
        #expect(room.status == .completed && room.endTime == at(160))
        #expect(service.nextDeadline == nil)
    }

    @Test func emptyRoomTimeoutStartsWhenTheLastReconnectWindowEnds() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = service.drop(participant: alice.sid, now: at(10))
        // Window ends at 40, empty timeout (5 min) at 340; one late tick runs both in order.
        let events = service.tick(now: at(1_000))
        #expect(events.participantRecords.last?.endTime == at(40))
        #expect(events.roomRecords.last?.endTime == at(340))
        #expect(events.roomRecords.last?.status == .completed)
        expectRoomError(.roomNotFound) { _ = try service.room("standup") }
    }

    @Test func unusedRoomTimeoutCompletesARoomNobodyJoined() throws {
        var service = makeService()
        _ = try service.createRoom(uniqueName: "lonely", unusedRoomTimeoutMinutes: 2, now: t0)
        #expect(service.nextDeadline == at(120))
        #expect(service.tick(now: at(119)).isEmpty)
        let events = service.tick(now: at(121))
        #expect(events.roomRecords.map(\.status) == [.completed])
        #expect(events.roomRecords.last?.endTime == at(120))
        // Joining the name again starts a new room.
        let joined = try service.join(roomName: "lonely", identity: "alice", now: at(130)).value
        #expect(joined.room.sid != events.roomRecords[0].sid)
    }

    @Test func configuredTimeoutsCanBeSeconds() throws {
        var service = makeService { $0.emptyRoomTimeout = 2; $0.reconnectWindow = 1 }
        let alice = try join(&service, "alice")
        _ = service.drop(participant: alice.sid, now: at(0))
        _ = service.tick(now: at(1))
        #expect(service.nextDeadline == at(3))
        let completed = try #require(service.tick(now: at(3)).roomRecords.last)
        #expect(completed.status == .completed)
        #expect(completed.emptyRoomTimeout == 1)
    }

    @Test func completedRoomsAreForgottenAtOnce() throws {
        var service = makeService()
        let first = try join(&service, "alice", room: "a")
        _ = try service.completeRoom("a", now: at(1))
        _ = try service.createRoom(uniqueName: "b", now: at(2))
        _ = try service.completeRoom("b", now: at(3))
        expectRoomError(.roomNotFound) { _ = try service.room("a") }
        expectRoomError(.roomNotFound) { _ = try service.room("b") }
        #expect(service.allRooms().isEmpty)
        #expect(service.participantRecord(first.sid) == nil)
        // Inside the reconnect window a resume still learns why (53106),
        // after it the token is unknown (53001).
        expectRoomError(.roomNotFound) { _ = try service.resume(sessionToken: first.token, identity: "alice", now: at(4)) }
        expectRoomError(.signalingConnectionDisconnected) { _ = try service.resume(sessionToken: first.token, identity: "alice", now: at(31)) }
        #expect(service.retainedSessionCount == 0)
    }

    @Test func historyRecordsFollowTheParticipant() throws {
        var service = makeService()
        var records: [ParticipantRecord] = []
        let alice = try join(&service, "alice", now: at(1))
        records += alice.events.participantRecords
        records += service.drop(participant: alice.sid, now: at(5)).participantRecords
        records += try service.resume(sessionToken: alice.token, identity: "alice", now: at(6)).events.participantRecords
        records += service.leave(participant: alice.sid, now: at(9)).participantRecords
        #expect(records.map(\.status) == [.connected, .reconnecting, .connected, .disconnected])
        #expect(records.allSatisfy { $0.sid == alice.sid && $0.startTime == at(1) })
        #expect(records.last?.duration == 8)
    }
}
