import Foundation
import Rooms
import Testing

@Suite struct InterruptionTests {
    struct Setup {
        var service: RoomService
        var alice: ParticipantSID
        var bob: ParticipantSID
        var mic: TrackSID
        var camera: TrackSID
        var roomSID: RoomSID
    }

    func setup() throws -> Setup {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let tracks = try publish(&service, alice.sid, [("mic", "audio"), ("camera", "video")])
        let roomSID = service.participantRecord(alice.sid)!.roomSID
        return Setup(service: service, alice: alice.sid, bob: bob.sid, mic: tracks["mic"]!, camera: tracks["camera"]!, roomSID: roomSID)
    }

    @Test func setTrackEnabledTellsOthersWithoutReasonAndNoSubscriptionChange() throws {
        var s = try setup()
        let off = try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: false, now: at(1))
        #expect(off.notices(to: s.bob) == [.trackDisabled(participant: s.alice, track: s.camera, reason: nil)])
        #expect(off.notices(to: s.alice).isEmpty)
        #expect(off.contains(.trackForwarding(room: s.roomSID, publisher: s.alice, track: s.camera, forwarded: false)))
        #expect(s.service.subscribedTracks(of: s.bob).count == 2)
        #expect(s.service.subscribedTracks(of: s.bob).first { $0.sid == s.camera }?.enabled == false)
        // Same value again: nothing.
        #expect(try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: false, now: at(2)).isEmpty)
        let on = try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: true, now: at(3))
        #expect(on.notices(to: s.bob) == [.trackEnabled(participant: s.alice, track: s.camera, reason: nil)])
        expectRoomError(.trackNotFound) {
            _ = try s.service.setTrackEnabled(participant: s.bob, track: s.camera, enabled: false, now: at(4))
        }
    }

    @Test func cameraInterruptionDisablesVideoOnlyWithReasonInterrupted() throws {
        var s = try setup()
        let began = try s.service.interruption(participant: s.alice, kind: .camera, state: .began, reason: "videoDeviceNotAvailableInBackground", now: at(1))
        #expect(began.notices(to: s.bob) == [.trackDisabled(participant: s.alice, track: s.camera, reason: .interrupted)])
        #expect(!began.contains { if case .remoteAudioPaused = $0 { true } else { false } })
        #expect(try s.service.interruption(participant: s.alice, kind: .camera, state: .began, now: at(2)).isEmpty)
        let ended = try s.service.interruption(participant: s.alice, kind: .camera, state: .ended, now: at(3))
        #expect(ended.notices(to: s.bob) == [.trackEnabled(participant: s.alice, track: s.camera, reason: .interrupted)])
        #expect(try s.service.interruption(participant: s.alice, kind: .camera, state: .ended, now: at(4)).isEmpty)
    }

    @Test func audioInterruptionDisablesAudioAndPausesRemoteAudio() throws {
        var s = try setup()
        let began = try s.service.interruption(participant: s.alice, kind: .audio, state: .began, reason: "phoneCall", now: at(1))
        #expect(began.notices(to: s.bob) == [.trackDisabled(participant: s.alice, track: s.mic, reason: .interrupted)])
        #expect(began.contains(.remoteAudioPaused(room: s.roomSID, participant: s.alice, paused: true)))
        #expect(s.service.isRemoteAudioPaused(for: s.alice))
        let ended = try s.service.interruption(participant: s.alice, kind: .audio, state: .ended, now: at(2))
        #expect(ended.contains(.remoteAudioPaused(room: s.roomSID, participant: s.alice, paused: false)))
        #expect(!s.service.isRemoteAudioPaused(for: s.alice))
    }

    @Test func interruptionEndNeverReEnablesAPublisherDisabledTrack() throws {
        var s = try setup()
        _ = try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: false, now: at(1))
        // Already off: the interruption changes no effective state.
        #expect(try s.service.interruption(participant: s.alice, kind: .camera, state: .began, now: at(2)).notices(to: s.bob).isEmpty)
        #expect(try s.service.interruption(participant: s.alice, kind: .camera, state: .ended, now: at(3)).notices(to: s.bob).isEmpty)
        #expect(s.service.publications(of: s.alice).first { $0.sid == s.camera }?.enabled == false)
    }

    @Test func enablingDuringAnInterruptionWaitsForItsEnd() throws {
        var s = try setup()
        _ = try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: false, now: at(1))
        _ = try s.service.interruption(participant: s.alice, kind: .camera, state: .began, now: at(2))
        #expect(try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: true, now: at(3)).notices(to: s.bob).isEmpty)
        let record = s.service.publications(of: s.alice).first { $0.sid == s.camera }
        #expect(record?.enabled == false && record?.publisherEnabled == true)
        let ended = try s.service.interruption(participant: s.alice, kind: .camera, state: .ended, now: at(4))
        #expect(ended.notices(to: s.bob) == [.trackEnabled(participant: s.alice, track: s.camera, reason: .interrupted)])
    }

    @Test func disablingDuringAnInterruptionSaysNothingAndStaysOffAfter() throws {
        var s = try setup()
        _ = try s.service.interruption(participant: s.alice, kind: .camera, state: .began, now: at(1))
        #expect(try s.service.setTrackEnabled(participant: s.alice, track: s.camera, enabled: false, now: at(2)).isEmpty)
        #expect(try s.service.interruption(participant: s.alice, kind: .camera, state: .ended, now: at(3)).notices(to: s.bob).isEmpty)
    }

    @Test func aTrackPublishedDuringAnInterruptionStartsDisabled() throws {
        var s = try setup()
        _ = try s.service.interruption(participant: s.alice, kind: .camera, state: .began, now: at(1))
        let outcome = try s.service.publish(participant: s.alice, tracks: [
            TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video"),
            TrackRequest(mid: "2", name: "screen", kind: "video"),
        ], now: at(2))
        #expect(outcome.value.first { $0.name == "screen" }?.enabled == false)
        #expect(outcome.value.first { $0.name == "mic" }?.enabled == true)
    }
}
