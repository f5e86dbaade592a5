import Foundation
import Rooms
import Testing
import VroomTesting

@Suite struct SubscriptionTests {
    static let alice = ParticipantSID(unchecked: "PA" + String(repeating: "a", count: 32))
    static let track = TrackSID(unchecked: "MT" + String(repeating: "1", count: 32))

    /// One track: alice's video "camera".
    static func evaluate(_ rules: [SubscribeRule]) -> Bool {
        SubscribeRule.evaluate(rules, publisherIdentity: "alice", publisherSID: alice, trackSID: track, trackName: "camera", kind: .video)
    }

    @Test(arguments: [
        ([SubscribeRule](), false),
        (SubscribeRule.includeAll, true),
        (SubscribeRule.excludeAll, false),
        ([SubscribeRule(type: .include, kind: .video)], true),
        ([SubscribeRule(type: .include, kind: .audio)], false),
        ([SubscribeRule(type: .include, publisher: "alice")], true),
        ([SubscribeRule(type: .include, publisher: alice.rawValue)], true),
        ([SubscribeRule(type: .include, publisher: "bob")], false),
        ([SubscribeRule(type: .include, track: "camera")], true),
        ([SubscribeRule(type: .include, track: track.rawValue)], true),
        ([SubscribeRule(type: .include, track: "screen")], false),
        // ANDed criteria inside one rule.
        ([SubscribeRule(type: .include, kind: .video, publisher: "alice")], true),
        ([SubscribeRule(type: .include, kind: .video, publisher: "bob")], false),
        ([SubscribeRule(type: .include, kind: .audio, publisher: "alice")], false),
        ([SubscribeRule(type: .include, all: true, kind: .audio)], false),
        // Later rules win.
        ([SubscribeRule(type: .include, all: true), SubscribeRule(type: .exclude, kind: .video, publisher: "alice")], false),
        ([SubscribeRule(type: .include, all: true), SubscribeRule(type: .exclude, kind: .video, publisher: "bob")], true),
        ([SubscribeRule(type: .exclude, all: true), SubscribeRule(type: .include, track: "camera")], true),
        ([SubscribeRule(type: .include, track: "camera"), SubscribeRule(type: .exclude, all: true)], false),
        // A rule naming no criterion matches nothing.
        ([SubscribeRule(type: .include)], false),
        ([SubscribeRule(type: .include, all: true), SubscribeRule(type: .exclude)], true),
    ])
    func ruleTable(rules: [SubscribeRule], subscribed: Bool) {
        #expect(Self.evaluate(rules) == subscribed)
    }

    @Test func defaultRulesSubscribeToEverythingButOwnTracks() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, alice.sid, [("camera", "video")])
        _ = try publish(&service, bob.sid, [("mic", "audio")])
        #expect(service.subscribedTracks(of: alice.sid).map(\.name) == ["mic"])
        #expect(service.subscribedTracks(of: bob.sid).map(\.name) == ["camera"])
        #expect(service.subscribeRules(of: alice.sid) == SubscribeRule.includeAll)
    }

    @Test func publishOnlyClientIsNeverToldToSubscribe() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let publisherOnly = try join(&service, "bot", rules: SubscribeRule.excludeAll)
        let events = try service.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: at(1)).events
        #expect(!events.notices(to: publisherOnly.sid).contains(.subscriptionsChanged))
        #expect(service.subscribedTracks(of: publisherOnly.sid).isEmpty)
        #expect(!publisherOnly.events.notices(to: publisherOnly.sid).contains(.subscriptionsChanged))
    }

    @Test func updateSubscriptionsReplacesTheRulesAndNotifiesOnlyOnChange() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, bob.sid, [("mic", "audio"), ("camera", "video")])
        let rules = [SubscribeRule(type: .include, all: true), SubscribeRule(type: .exclude, kind: .video, publisher: "bob")]
        let events = try service.updateSubscriptions(participant: alice.sid, rules: rules, now: at(1))
        #expect(events.notices(to: alice.sid) == [.subscriptionsChanged])
        #expect(events.notices(to: bob.sid).isEmpty)
        #expect(service.subscribedTracks(of: alice.sid).map(\.name) == ["mic"])
        // The same rules again: no notice (only the session's new rules date, for a cluster's store).
        let again = try service.updateSubscriptions(participant: alice.sid, rules: rules, now: at(2))
        #expect(again.noticeAddressees.isEmpty)
        let record = try service.subscribeRules(room: "standup", participant: "alice")
        #expect(record.rules == rules && record.dateUpdated == at(2))
    }

    @Test func restSubscribeRulesAddressTheParticipantByIdentity() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, bob.sid, [("camera", "video")])
        let outcome = try service.setSubscribeRules(room: "standup", participant: "alice", rules: SubscribeRule.excludeAll, now: at(1))
        #expect(outcome.value.rules == SubscribeRule.excludeAll)
        #expect(outcome.events.notices(to: alice.sid) == [.subscriptionsChanged])
        #expect(try service.subscribedTracks(room: "standup", participant: "alice").isEmpty)
        expectRoomError(.participantNotFound) {
            _ = try service.setSubscribeRules(room: "standup", participant: "carol", rules: [], now: at(2))
        }
    }

    @Test func newPublisherJoiningLaterTriggersOnlyWhenItPublishes() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let joinEvents = try join(&service, "bob").events
        // Bob has no tracks yet: alice's set did not change.
        #expect(joinEvents.notices(to: alice.sid).count == 1)
    }

    @Test func eventsComeBeforeTheSubscriptionChangeThatReflectsThem() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let carol = try join(&service, "carol")
        _ = try publish(&service, alice.sid, [("camera", "video")])
        let events = service.leave(participant: alice.sid, now: at(1))
        for who in [bob.sid, carol.sid] {
            #expect(events.notices(to: who) == [.participantDisconnected(alice.sid), .subscriptionsChanged])
        }
    }

    @Test func subscribedTrackRecordsCarryThePublisher() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let tracks = try publish(&service, alice.sid, [("camera", "video")], now: at(3))
        let record = try #require(service.subscribedTracks(of: bob.sid).first)
        #expect(record.sid == tracks["camera"])
        #expect(record.publisherSID == alice.sid && record.publisherIdentity == "alice")
        #expect(record.participantSID == bob.sid)
        #expect(record.dateCreated == at(3))
        #expect(record.kind == .video && record.enabled)
    }
}
