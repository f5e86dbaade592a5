import Foundation
import Rooms
import Testing

/// A room taken over by another node (PROTOCOL.md section 8): what one
/// service's events put in the cluster's database is enough for another
/// service to carry the room on with the same SIDs.
@Suite struct RoomMoveTests {
    /// The latest record of each kind in `events`, as the database keeps
    /// them (upserts by SID, tracks removed when unpublished).
    static func snapshot(of events: [RoomEvent]) throws -> RoomSnapshot {
        var room: RoomRecord?
        var participants: [ParticipantSID: ParticipantRecord] = [:]
        var order: [ParticipantSID] = []
        var sessions: [ParticipantSID: SessionRecord] = [:]
        var tracks: [TrackSID: PublishedTrackRecord] = [:]
        for event in events {
            switch event {
            case .roomRecord(let record): room = record
            case .participantRecord(let record):
                if participants[record.sid] == nil { order.append(record.sid) }
                participants[record.sid] = record
            case .session(let session): sessions[session.participantSID] = session
            case .publishedTrackRecord(let track): tracks[track.sid] = track
            case .publishedTrackRemoved(_, _, let track): tracks[track] = nil
            default: break
            }
        }
        return RoomSnapshot(
            room: try #require(room),
            participants: try order.map { sid in
                let session = try #require(sessions[sid])
                return RoomSnapshot.Participant(
                    record: participants[sid]!, rules: session.rules, rulesDateUpdated: session.rulesDateUpdated,
                    tracks: tracks.values.filter { $0.participantSID == sid }.sorted { $0.sid.rawValue < $1.sid.rawValue })
            })
    }

    @Test func aJoinAResumeAndNewRulesEachRecordTheSession() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let sessions = { (events: [RoomEvent]) in events.compactMap { if case .session(let s) = $0 { s } else { nil } } }
        #expect(sessions(alice.events).map(\.token) == [alice.token])
        _ = service.drop(participant: alice.sid, now: at(1))
        let resumed = try service.resume(sessionToken: alice.token, identity: "alice", now: at(2))
        #expect(sessions(resumed.events).map(\.token) == [resumed.value.sessionToken])
        let rules = try service.updateSubscriptions(participant: alice.sid, rules: SubscribeRule.excludeAll, now: at(3))
        #expect(sessions(rules).map(\.rules) == [SubscribeRule.excludeAll])
        #expect(sessions(rules).map(\.rulesDateUpdated) == [at(3)])
    }

    @Test func anAdoptedRoomKeepsItsSIDsPublicationsAndRules() throws {
        var old = makeService(seed: 1)
        var events: [RoomEvent] = []
        let alice = try join(&old, "alice")
        let bob = try join(&old, "bob", rules: [SubscribeRule(type: .include, kind: .audio)])
        let carol = try join(&old, "carol")
        events += alice.events + bob.events + carol.events
        let aliceTracks = try old.publish(
            participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video"), TrackRequest(mid: "1", name: "mic", kind: "audio")],
            now: at(1))
        events += aliceTracks.events
        let snapshot = try Self.snapshot(of: events)

        // The old node is gone; another adopts the room at 20 s.
        var new = makeService(seed: 2)
        let adopted = try new.adopt(snapshot, now: at(20))
        #expect(adopted.participantRecords.map(\.status) == [.reconnecting, .reconnecting, .reconnecting])
        #expect(adopted.notices(to: alice.sid).isEmpty)
        #expect(try new.adopt(snapshot, now: at(21)).isEmpty, "adopting twice changes nothing")
        #expect(new.nextDeadline == at(50))

        // Alice resumes with the token the database vouched for.
        let resumed = try new.resume(adopted: alice.sid, identity: "alice", now: at(22))
        #expect(resumed.value.room.sid == snapshot.room.sid)
        #expect(resumed.value.participant.sid == alice.sid)
        #expect(resumed.value.resumed)
        #expect(Set(resumed.value.participant.tracks.map(\.sid)) == Set(aliceTracks.value.map(\.sid)))
        #expect(resumed.value.participants.map(\.sid) == [bob.sid, carol.sid])
        // The same publish keeps the same track SIDs (the media renegotiation).
        let again = try new.publish(
            participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video"), TrackRequest(mid: "1", name: "mic", kind: "audio")],
            now: at(23))
        #expect(again.value.map(\.isNew) == [false, false])
        #expect(again.value.map(\.sid) == aliceTracks.value.map(\.sid))

        // Bob resumes: alice hears of it; his audio-only rules held.
        let bobBack = try new.resume(adopted: bob.sid, identity: "bob", now: at(24))
        #expect(bobBack.events.notices(to: alice.sid) == [.participantReconnected(bob.sid)])
        #expect(bobBack.events.notices(to: bob.sid) == [.subscriptionsChanged])
        #expect(new.subscribedTracks(of: bob.sid).map(\.kind) == [.audio])

        // A second resume of the adopted way is refused (the session has a
        // new token now), and a wrong identity is 20106.
        expectRoomError(.signalingConnectionDisconnected) { _ = try new.resume(adopted: alice.sid, identity: "alice", now: at(25)) }
        expectRoomError(.accessTokenGrantsInvalid) { _ = try new.resume(adopted: carol.sid, identity: "mallory", now: at(25)) }

        // Carol never comes back: her window, started at the adoption, ends her.
        let expired = new.tick(now: at(51))
        #expect(expired.participantRecords.last?.sid == carol.sid)
        #expect(expired.participantRecords.last?.endReason == .reconnectWindowExpired)
        expectRoomError(.signalingConnectionDisconnected) { _ = try new.resume(adopted: carol.sid, identity: "carol", now: at(52)) }
    }

    @Test func aRoomThatIsNotInProgressOrWhoseNameIsTakenIsNotAdopted() throws {
        var old = makeService(seed: 1)
        let alice = try join(&old, "alice")
        var snapshot = try Self.snapshot(of: alice.events)
        var new = makeService(seed: 2)
        _ = try join(&new, "bob")  // a room "standup" of its own
        expectRoomError(.roomNotFound) { _ = try new.adopt(snapshot, now: at(5)) }
        snapshot.room.status = .completed
        var other = makeService(seed: 3)
        expectRoomError(.roomNotFound) { _ = try other.adopt(snapshot, now: at(5)) }
    }
    /// A drained node hands a room over: it forgets the room and its
    /// participants without a single event (the records stay in progress
    /// for the node that adopts it), and its counts and timers with them.
    @Test func aReleasedRoomIsForgottenWithoutEvents() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try join(&service, "carol", room: "other")
        _ = service.drop(participant: bob.sid, now: at(1))
        let roomSID = try #require(service.participantRecord(alice.sid)?.roomSID)
        let released = service.release(room: roomSID)
        #expect(Set(released) == [alice.sid, bob.sid])
        #expect(service.participantCount == 1)
        #expect(service.roomRecord(roomSID) == nil)
        #expect(service.nextDeadline == nil, "bob's window went with the room")
        #expect(service.tick(now: at(100)).isEmpty)
        expectRoomError(.signalingConnectionDisconnected) { _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(2)) }
        #expect(service.release(room: roomSID).isEmpty)
    }

    /// A room with a status callback, alice publishing a camera and bob,
    /// as its node put it in the database.
    static func hookedRoom() throws -> (snapshot: RoomSnapshot, alice: ParticipantSID, bob: ParticipantSID) {
        var old = makeService(seed: 1)
        var events = try old.createRoom(
            uniqueName: "standup", statusCallback: "https://example.test/cb", statusCallbackMethod: .post, now: t0).events
        let alice = try join(&old, "alice")
        let bob = try join(&old, "bob")
        events += alice.events + bob.events
        events += try old.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: at(1)).events
        return (try snapshot(of: events), alice.sid, bob.sid)
    }

    /// PROTOCOL.md section 8: a dead node's room that nobody resumes ends
    /// `failed`, also once another node took it over.
    @Test func anAdoptedRoomNobodyResumesEndsFailed() throws {
        let (snapshot, alice, bob) = try Self.hookedRoom()
        var new = makeService(seed: 2)
        _ = try new.adopt(snapshot, now: at(20))
        let ended = new.tick(now: at(51))
        #expect(ended.participantRecords.map(\.sid) == [alice, bob])
        #expect(ended.participantRecords.allSatisfy { $0.endReason == .reconnectWindowExpired })
        #expect(ended.roomRecords.map(\.status) == [.failed])
        #expect(ended.roomRecords.first?.endTime == at(50))
        #expect(ended.callbacks.map(\.event) == [.trackRemoved, .participantDisconnected, .participantDisconnected, .roomEnded])
        #expect(ended.callbacks.last?.roomStatus == .failed)
        #expect(new.roomRecord(snapshot.room.sid) == nil)
    }

    /// One resume is enough: the room is alive again, and ends as rooms do.
    @Test func anAdoptedRoomSomeoneResumedEndsCompleted() throws {
        let (snapshot, alice, _) = try Self.hookedRoom()
        var new = makeService(seed: 2)
        _ = try new.adopt(snapshot, now: at(20))
        _ = try new.resume(adopted: alice, identity: "alice", now: at(21))
        _ = new.leave(participant: alice, now: at(22))
        let windowEnd = new.tick(now: at(51))
        #expect(windowEnd.roomRecords.isEmpty, "bob's window ends him; the room waits its empty-room timeout")
        let timeout = new.tick(now: at(50 + 5 * 60))  // the record's 5-minute empty-room timeout
        #expect(timeout.roomRecords.map(\.status) == [.completed])
    }

    /// The reaper of a dead node's rooms ends one through the service, so
    /// its callbacks and records are those its own node would have sent.
    @Test func failingATakenOverRoomEndsItsParticipantsAndTracks() throws {
        let (snapshot, alice, bob) = try Self.hookedRoom()
        var new = makeService(seed: 2)
        _ = try new.adopt(snapshot, now: at(40))
        let failed = new.fail(room: snapshot.room.sid, now: at(41))
        #expect(failed.callbacks.map(\.event) == [.trackRemoved, .participantDisconnected, .participantDisconnected, .roomEnded])
        #expect(failed.callbacks.map(\.participantSID) == [alice, alice, bob, nil])
        #expect(failed.callbacks.allSatisfy { $0.roomStatus == .failed || $0.event != .roomEnded })
        #expect(failed.roomRecords.last?.status == .failed)
        #expect(failed.noticeAddressees.isEmpty, "nobody is connected to be told")
        #expect(new.participantCount == 0 && new.nextDeadline == nil)
        #expect(new.fail(room: snapshot.room.sid, now: at(42)).isEmpty)
    }
}
