import Foundation
import Rooms
import Testing

@Suite struct ReconnectTests {
    @Test func dropEntersReconnectingAndKeepsPublications() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, alice.sid, [("camera", "video")])
        let events = service.drop(participant: alice.sid, now: at(10))
        #expect(events.notices(to: bob.sid) == [.participantReconnecting(alice.sid)])
        #expect(events.participantRecords.map(\.status) == [.reconnecting])
        #expect(service.participantRecord(alice.sid)?.status == .reconnecting)
        #expect(service.publications(of: alice.sid).count == 1)
        #expect(service.subscribedTracks(of: bob.sid).count == 1)
        #expect(service.nextDeadline == at(40))
        // A second drop changes nothing.
        #expect(service.drop(participant: alice.sid, now: at(11)).isEmpty)
        #expect(service.nextDeadline == at(40))
    }

    @Test func windowExpiryRemovesTheParticipantAtTheDeadline() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, alice.sid, [("camera", "video")])
        _ = service.drop(participant: alice.sid, now: at(10))
        #expect(service.tick(now: at(39.9)).isEmpty)
        #expect(service.participantRecord(alice.sid)?.status == .reconnecting)
        let events = service.tick(now: at(41))
        #expect(events.notices(to: bob.sid) == [.participantDisconnected(alice.sid), .subscriptionsChanged])
        #expect(events.notices(to: alice.sid).isEmpty)
        let record = try #require(events.participantRecords.last)
        #expect(events.contains(.participantRemoved(room: record.roomSID, participant: alice.sid, reason: .reconnectWindowExpired)))
        #expect(service.participantRecord(alice.sid) == nil)
        #expect(record.status == .disconnected)
        #expect(record.endTime == at(40))
        #expect(record.endReason == .reconnectWindowExpired)
        #expect(service.tick(now: at(42)).isEmpty)
    }

    @Test func resumeInsideTheWindowKeepsTheSIDAndIssuesANewToken() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = service.drop(participant: alice.sid, now: at(10))
        let outcome = try service.resume(sessionToken: alice.token, identity: "alice", now: at(39))
        #expect(outcome.value.participant.sid == alice.sid)
        #expect(outcome.value.resumed)
        #expect(!outcome.value.replacedLiveSession)
        #expect(outcome.value.sessionToken != alice.token)
        #expect(outcome.value.participants.map(\.sid) == [bob.sid])
        #expect(outcome.events.notices(to: bob.sid) == [.participantReconnected(alice.sid)])
        #expect(service.participantRecord(alice.sid)?.status == .connected)
        #expect(service.nextDeadline == nil)
        // Each token works once.
        expectRoomError(.signalingConnectionDisconnected) {
            _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(40))
        }
        // The new one works.
        _ = service.drop(participant: alice.sid, now: at(50))
        _ = try service.resume(sessionToken: outcome.value.sessionToken, identity: "alice", now: at(51))
    }

    /// PROTOCOL.md 3.6: a resume that replaces a socket still open is
    /// announced as any resume is.
    @Test func resumeWhileStillConnectedReplacesTheLiveSessionAndIsAnnounced() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let outcome = try service.resume(sessionToken: alice.token, identity: "alice", now: at(5))
        #expect(outcome.value.replacedLiveSession)
        #expect(outcome.events.notices(to: bob.sid) == [.participantReconnected(alice.sid)])
    }

    @Test func lateResumeGets53001BeforeAndAfterTheTick() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        try join(&service, "bob")
        _ = service.drop(participant: alice.sid, now: at(10))
        expectRoomError(.signalingConnectionDisconnected) {
            _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(40))
        }
        _ = service.tick(now: at(41))
        expectRoomError(.signalingConnectionDisconnected) {
            _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(41))
        }
    }

    @Test func resumeAfterLeaveOrWithUnknownTokenGets53001() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        try join(&service, "bob")
        _ = service.leave(participant: alice.sid, now: at(1))
        expectRoomError(.signalingConnectionDisconnected) {
            _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(2))
        }
        expectRoomError(.signalingConnectionDisconnected) {
            _ = try service.resume(sessionToken: SessionToken(rawValue: "nope"), identity: "alice", now: at(2))
        }
    }

    @Test func resumeAfterTheRoomEndedGets53106() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = service.drop(participant: alice.sid, now: at(1))
        _ = try service.completeRoom("standup", now: at(2))
        expectRoomError(.roomNotFound) { _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(3)) }
    }

    @Test func resumeAfterRESTRemovalGets53216() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        try join(&service, "bob")
        _ = service.drop(participant: alice.sid, now: at(1))
        _ = try service.removeParticipant(room: "standup", participant: "alice", now: at(2))
        expectRoomError(.participantRemoved) { _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(3)) }
    }

    @Test func resumeOfAReplacedSessionGets53205() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        try join(&service, "alice", now: at(1))
        expectRoomError(.participantDuplicateIdentity) {
            _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(2))
        }
    }

    @Test func resumeWithAnotherIdentityGets20106AndKeepsTheTokenUsable() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = service.drop(participant: alice.sid, now: at(1))
        expectRoomError(.accessTokenGrantsInvalid) { _ = try service.resume(sessionToken: alice.token, identity: "mallory", now: at(2)) }
        _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(3))
    }

    @Test func gapEventsAreNotAddressedToTheReconnectingParticipantButAFreshOfferIsDue() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = service.drop(participant: alice.sid, now: at(1))
        let during = try service.publish(participant: bob.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: at(2))
        #expect(during.events.notices(to: alice.sid).isEmpty)
        #expect(service.subscribedTracks(of: alice.sid).map(\.name) == ["camera"])
        let resumed = try service.resume(sessionToken: alice.token, identity: "alice", now: at(3))
        #expect(resumed.events.notices(to: alice.sid) == [.subscriptionsChanged])
        #expect(resumed.value.participants[0].tracks.map(\.name) == ["camera"])
    }

    @Test func noFreshOfferOnResumeWhenNothingChanged() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, bob.sid, [("camera", "video")])
        _ = service.drop(participant: alice.sid, now: at(1))
        let resumed = try service.resume(sessionToken: alice.token, identity: "alice", now: at(3))
        #expect(resumed.events.notices(to: alice.sid).isEmpty)
    }

    @Test func theWindowIsHalfOpenResumeAtExactly30SecondsIsLate() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = service.drop(participant: alice.sid, now: at(10))
        expectRoomError(.signalingConnectionDisconnected) {
            _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(40))
        }
        _ = try service.resume(sessionToken: alice.token, identity: "alice", now: at(39.999))
    }

    @Test func reconnectWindowIsConfigurable() throws {
        var service = makeService { $0.reconnectWindow = 5 }
        let alice = try join(&service, "alice")
        _ = service.drop(participant: alice.sid, now: at(0))
        #expect(service.nextDeadline == at(5))
        let events = service.tick(now: at(5))
        #expect(events.contains { if case .participantRemoved(_, alice.sid, .reconnectWindowExpired) = $0 { true } else { false } })
    }
}
