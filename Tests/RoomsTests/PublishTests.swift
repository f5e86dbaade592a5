import Foundation
import Rooms
import Testing

@Suite struct PublishTests {
    @Test func publishAssignsSIDsPerMidAndTellsOthers() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let outcome = try service.publish(participant: alice.sid, tracks: [
            TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video"),
        ], now: at(1))
        #expect(outcome.value.map(\.mid) == ["0", "1"])
        #expect(outcome.value.allSatisfy { $0.isNew && $0.enabled })
        #expect(Set(outcome.value.map(\.sid)).count == 2)
        let toBob = outcome.events.notices(to: bob.sid)
        #expect(toBob.count == 3)
        #expect(toBob.last == .subscriptionsChanged)
        guard case .trackPublished(let publisher, let track) = toBob[0] else { Issue.record("\(toBob)"); return }
        #expect(publisher == alice.sid && track.name == "mic" && track.kind == .audio)
        #expect(outcome.events.notices(to: alice.sid).isEmpty)
        #expect(service.subscribedTracks(of: bob.sid).map(\.name) == ["mic", "camera"])
        #expect(service.subscribedTracks(of: bob.sid).allSatisfy { $0.publisherSID == alice.sid })
    }

    @Test func fullSetSemanticsKeepRemoveAndRenew() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let first = try publish(&service, alice.sid, [("mic", "audio"), ("camera", "video")])
        // Second offer: camera stays (moved to another mid), mic gone, screen new.
        let outcome = try service.publish(participant: alice.sid, tracks: [
            TrackRequest(mid: "5", name: "camera", kind: "video"), TrackRequest(mid: "6", name: "screen", kind: "video"),
        ], now: at(2))
        let byName = Dictionary(uniqueKeysWithValues: outcome.value.map { ($0.name, $0) })
        #expect(byName["camera"]?.sid == first["camera"])
        #expect(byName["camera"]?.isNew == false)
        #expect(byName["camera"]?.mid == "5")
        #expect(byName["screen"]?.isNew == true)
        let toBob = outcome.events.notices(to: bob.sid)
        #expect(toBob.first == .trackUnpublished(participant: alice.sid, track: first["mic"]!))
        #expect(toBob.last == .subscriptionsChanged)
        #expect(service.publications(of: alice.sid).map(\.name) == ["camera", "screen"])
        // Mic published again: a new SID.
        let third = try publish(&service, alice.sid, [("camera", "video"), ("screen", "video"), ("mic", "audio")], now: at(3))
        #expect(third["mic"] != first["mic"])
        #expect(third["camera"] == first["camera"])
    }

    @Test func samePublishAgainChangesNothingAndSaysNothing() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        _ = try publish(&service, alice.sid, [("camera", "video")])
        let again = try service.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: at(1))
        #expect(again.events.notices(to: bob.sid).isEmpty)
    }

    @Test func duplicateNamesFailWholeWith53304AndChangeNothing() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let first = try publish(&service, alice.sid, [("mic", "audio")])
        expectRoomError(.trackNameIsDuplicated) {
            _ = try service.publish(participant: alice.sid, tracks: [
                TrackRequest(mid: "0", name: "camera", kind: "video"), TrackRequest(mid: "1", name: "camera", kind: "video"),
            ], now: at(1))
        }
        #expect(service.publications(of: alice.sid).map(\.sid) == [first["mic"]!])
    }

    @Test(arguments: [
        (TrackRequest(mid: "0", name: "x", kind: "data"), RoomError.trackInvalid),
        (TrackRequest(mid: "", name: "x", kind: "audio"), .trackInvalid),
        (TrackRequest(mid: "0", name: "", kind: "audio"), .trackNameInvalid),
        (TrackRequest(mid: "0", name: " ", kind: "audio"), .trackNameInvalid),
        (TrackRequest(mid: "0", name: "a\u{1B}", kind: "audio"), .trackNameInvalid),
        (TrackRequest(mid: "0", name: String(repeating: "n", count: 129), kind: "audio"), .trackNameTooLong),
    ])
    func trackValidation(request: TrackRequest, error: RoomError) throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = try publish(&service, alice.sid, [("mic", "audio")])
        expectRoomError(error) { _ = try service.publish(participant: alice.sid, tracks: [request], now: at(1)) }
        #expect(service.publications(of: alice.sid).map(\.name) == ["mic"])
    }

    @Test func duplicateMidIs53300() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        expectRoomError(.trackInvalid) {
            _ = try service.publish(participant: alice.sid, tracks: [
                TrackRequest(mid: "0", name: "a", kind: "audio"), TrackRequest(mid: "0", name: "b", kind: "video"),
            ], now: t0)
        }
    }

    @Test func moreThanMaxTracksIs53203() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let sixteen = (0..<16).map { ("t\($0)", "audio") }
        _ = try publish(&service, alice.sid, sixteen)
        expectRoomError(.participantMaxTracksExceeded) {
            _ = try publish(&service, alice.sid, sixteen + [("t16", "video")])
        }
        #expect(service.publications(of: alice.sid).count == 16)
    }

    @Test func maxTracksIsConfigurable() throws {
        var service = makeService { $0.maxTracksPerParticipant = 1 }
        let alice = try join(&service, "alice")
        expectRoomError(.participantMaxTracksExceeded) { _ = try publish(&service, alice.sid, [("a", "audio"), ("b", "video")]) }
    }

    @Test func sameNameOtherKindIsANewTrack() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let first = try publish(&service, alice.sid, [("x", "audio")])
        let second = try publish(&service, alice.sid, [("x", "video")], now: at(1))
        #expect(first["x"] != second["x"])
    }

    @Test func unpublishRemovesAndUnknownTrackIsRefused() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let tracks = try publish(&service, alice.sid, [("camera", "video")])
        let events = try service.unpublish(participant: alice.sid, track: tracks["camera"]!, now: at(1))
        #expect(events.notices(to: bob.sid) == [.trackUnpublished(participant: alice.sid, track: tracks["camera"]!), .subscriptionsChanged])
        expectRoomError(.trackNotFound) { _ = try service.unpublish(participant: alice.sid, track: tracks["camera"]!, now: at(2)) }
        #expect(service.publications(of: alice.sid).isEmpty)
    }

    @Test func operationsOfAGoneParticipantAre53204() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = service.leave(participant: alice.sid, now: at(1))
        expectRoomError(.participantNotFound) { _ = try publish(&service, alice.sid, [("mic", "audio")]) }
        expectRoomError(.participantNotFound) { _ = try service.updateSubscriptions(participant: alice.sid, rules: [], now: at(2)) }
    }

    @Test func publishDisabledAndRenegotiationKeepsTheFlag() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let outcome = try service.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video", enabled: false)], now: t0)
        #expect(outcome.value[0].enabled == false)
        // A renegotiation without `enabled` keeps it disabled.
        let again = try service.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: at(1))
        #expect(again.value[0].enabled == false)
        #expect(again.events.notices(to: bob.sid).isEmpty)
        // Saying enabled:true enables it, with an event.
        let on = try service.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video", enabled: true)], now: at(2))
        #expect(on.events.notices(to: bob.sid) == [.trackEnabled(participant: alice.sid, track: on.value[0].sid, reason: nil)])
    }
}
