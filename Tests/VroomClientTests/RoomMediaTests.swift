import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// Two SDK clients exchange real VP8 and Opus through a real server:
/// media, enable/disable, interruptions of both kinds, unpublish and an
/// ICE restart after the media path is lost.
@Suite(.serialized) struct RoomMediaTests {
    /// A participant publishing a camera and a microphone with its own tone.
    static func publisher(
        _ harness: ClientHarness, _ identity: String, tone: Double, center: SystemNotificationCenter = .init(),
        configure: (inout ConnectOptions) -> Void = { _ in }
    ) async throws -> (RecordedRoom, LocalVideoTrack, LocalAudioTrack) {
        let camera = LocalVideoTrack(name: "camera")
        let microphone = LocalAudioTrack(name: "mic", options: AudioTrackOptions(toneFrequency: tone))
        let options = try await harness.options(identity) {
            $0.videoTracks = [camera]
            $0.audioTracks = [microphone]
            $0.notificationCenter = center
            configure(&$0)
        }
        return (harness.connect(options), camera, microphone)
    }

    /// What `room` receives of `identity`'s track `name`.
    static func received(_ room: RecordedRoom, from identity: String, _ name: String) async -> RemoteTrackStatistics? {
        guard let sid = room.room.remoteParticipant(identity: identity)?.publication(named: name)?.trackSid else { return nil }
        return await room.room.statistics().remoteTrack(sid: sid)
    }

    static func framesRead(_ room: RecordedRoom, from identity: String) async -> Int {
        await received(room, from: identity, "camera")?.frameNumbersRead ?? 0
    }

    @Test func twoClientsSeeAndHearEachOther() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let (alice, _, _) = try await Self.publisher(harness, "alice", tone: 440)
        let (bob, _, _) = try await Self.publisher(harness, "bob", tone: 660)
        try await alice.wait(for: "alice subscribed to bob's camera") { $0.name == "trackSubscribed(bob,camera)" }
        try await bob.wait(for: "bob subscribed to alice's camera") { $0.name == "trackSubscribed(alice,camera)" }
        #expect(alice.count("localTrackPublished(camera)") == 1)
        try await bob.wait(until: "bob decodes 60 of alice's frames", timeout: .seconds(15)) {
            await Self.framesRead(bob, from: "alice") >= 60
        }
        try await alice.wait(until: "alice decodes 60 of bob's frames", timeout: .seconds(15)) {
            await Self.framesRead(alice, from: "bob") >= 60
        }
        let video = try #require(await Self.received(bob, from: "alice", "camera"))
        let first = try #require(video.firstFrameNumber)
        let last = try #require(video.lastFrameNumber)
        // Every frame from the first decoded to the last arrived and decoded.
        #expect(Double(video.frameNumbersRead) >= 0.95 * Double(last - first + 1))
        #expect(video.packetsLost == 0)
        let latencies = video.latencyMilliseconds.sorted()
        #expect(!latencies.isEmpty && latencies[latencies.count / 2] < 200, "median capture-to-decode latency on loopback")

        // Audio: each hears the other's tone.
        let heardByBob = try #require(await Self.received(bob, from: "alice", "mic"))
        let heardByAlice = try #require(await Self.received(alice, from: "bob", "mic"))
        #expect(abs((heardByBob.audioFrequency ?? 0) - 440) < 10)
        #expect(abs((heardByAlice.audioFrequency ?? 0) - 660) < 10)
        #expect(heardByBob.framesDecoded > 25)

        let sent = try #require(await alice.room.statistics().localTrack(named: "camera"))
        #expect(sent.framesSent >= 60 && sent.packetsSent > sent.framesSent)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func disablingStopsTheVideoAndEnablingResumesIt() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let (alice, camera, _) = try await Self.publisher(harness, "alice", tone: 440)
        let bob = harness.connect(try await harness.options("bob"))
        try await bob.wait(until: "bob decodes alice", timeout: .seconds(15)) { await Self.framesRead(bob, from: "alice") >= 15 }

        camera.isEnabled = false
        try await bob.wait(for: "disabled") { $0.name == "trackDisabled(alice,camera)" }
        let publication = try #require(bob.room.remoteParticipant(identity: "alice")?.publication(named: "camera"))
        #expect(!publication.isTrackEnabled && !publication.isTrackInterrupted && publication.isTrackSubscribed)
        try await Task.sleep(for: .milliseconds(300))
        let paused = await Self.framesRead(bob, from: "alice")
        try await Task.sleep(for: .seconds(1))
        #expect(await Self.framesRead(bob, from: "alice") == paused, "no frames while disabled")

        camera.isEnabled = true
        try await bob.wait(for: "enabled") { $0.name == "trackEnabled(alice,camera)" }
        try await bob.wait(until: "frames again", timeout: .seconds(10)) { await Self.framesRead(bob, from: "alice") > paused + 15 }
        #expect(publication.isTrackEnabled)

        // Unpublishing removes the track.
        #expect(alice.room.localParticipant?.unpublish(videoTrack: camera) == true)
        try await bob.wait(for: "unpublished") { $0.name == "trackUnpublished(alice,camera)" }
        #expect(bob.room.remoteParticipant(identity: "alice")?.publication(named: "camera") == nil)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func aCameraInterruptionPausesWithoutUnpublishingAndTheUsersChoiceWins() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let center = SystemNotificationCenter()
        let (alice, camera, _) = try await Self.publisher(harness, "alice", tone: 440, center: center)
        let bob = harness.connect(try await harness.options("bob"))
        try await bob.wait(until: "bob decodes alice", timeout: .seconds(15)) { await Self.framesRead(bob, from: "alice") >= 15 }

        center.post(.cameraInterruptionBegan(reason: .videoDeviceInUseByAnotherClient))
        try await bob.wait(for: "paused") { $0.name == "trackDisabled(alice,camera,interrupted)" }
        #expect(camera.isEnabled, "an interruption does not change the user's choice")
        try await alice.wait(until: "interrupted") { camera.isInterrupted }
        #expect(bob.count("trackUnpublished(alice,camera)") == 0)
        center.post(.cameraInterruptionEnded)
        try await bob.wait(for: "resumed") { $0.name == "trackEnabled(alice,camera)" }
        let resumed = await Self.framesRead(bob, from: "alice")
        try await bob.wait(until: "frames again", timeout: .seconds(10)) { await Self.framesRead(bob, from: "alice") > resumed + 10 }

        // Background → interruption; the user turns the camera off meanwhile;
        // becoming active again does not turn it back on.
        center.post(.applicationDidEnterBackground)
        try await bob.wait(until: "second pause") {
            bob.names.filter { $0 == "trackDisabled(alice,camera,interrupted)" }.count == 2
        }
        camera.isEnabled = false
        center.post(.applicationDidBecomeActive)
        try await alice.wait(until: "interruption over") { !camera.isInterrupted }
        try await Task.sleep(for: .milliseconds(500))
        let publication = try #require(bob.room.remoteParticipant(identity: "alice")?.publication(named: "camera"))
        #expect(!publication.isTrackEnabled, "still off: the user disabled it")
        #expect(bob.count("trackEnabled(alice,camera)") == 1)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func anAudioInterruptionPausesLocalAndRemoteAudioAndBecomingActiveResumesIt() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let center = SystemNotificationCenter()
        let (alice, _, microphone) = try await Self.publisher(harness, "alice", tone: 440, center: center)
        let (bob, _, _) = try await Self.publisher(harness, "bob", tone: 660)
        try await alice.wait(until: "alice hears bob", timeout: .seconds(15)) {
            (await Self.received(alice, from: "bob", "mic")?.framesDecoded ?? 0) > 25
        }

        center.post(.audioInterruptionBegan(reason: "phoneCall"))
        try await bob.wait(for: "alice's mic paused") { $0.name == "trackDisabled(alice,mic,interrupted)" }
        #expect(microphone.isEnabled && microphone.isInterrupted)
        #expect(bob.count("trackDisabled(alice,camera,interrupted)") == 0, "video goes on")
        // Remote audio is paused too: alice decodes nothing of bob's audio.
        try await Task.sleep(for: .milliseconds(300))
        let heard = await Self.received(alice, from: "bob", "mic")?.framesDecoded ?? 0
        try await Task.sleep(for: .seconds(1))
        #expect(await Self.received(alice, from: "bob", "mic")?.framesDecoded == heard)

        // The "ended" notification never comes; the app becoming active resumes.
        center.post(.applicationDidBecomeActive)
        try await bob.wait(for: "alice's mic back") { $0.name == "trackEnabled(alice,mic)" }
        try await alice.wait(until: "alice hears bob again", timeout: .seconds(10)) {
            (await Self.received(alice, from: "bob", "mic")?.framesDecoded ?? 0) > heard + 10
        }
        #expect(!microphone.isInterrupted)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func losingTheMediaPathRestartsICEAndReconnects() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let relay = try UDPImpairmentRelay(.init(targetPort: harness.rtcPort))
        relay.start()
        let relayPort = relay.port
        let (alice, _, _) = try await Self.publisher(harness, "alice", tone: 440) {
            $0.mediaServerAddressOverride = "127.0.0.1:\(relayPort)"
            $0.iceConsentTimeout = .seconds(3)
        }
        let bob = harness.connect(try await harness.options("bob"))
        try await bob.wait(until: "bob decodes alice", timeout: .seconds(15)) { await Self.framesRead(bob, from: "alice") >= 15 }

        // The path dies: no more datagrams either way.
        _ = relay.stop()
        try await alice.wait(for: "media lost", timeout: .seconds(10)) { $0.name == "reconnecting(53405)" }
        #expect(alice.room.state == .reconnecting)
        // It comes back (a new relay on the same port, new source ports).
        let revived = try UDPImpairmentRelay(.init(listenPort: relayPort, targetPort: harness.rtcPort))
        revived.start()
        defer { _ = revived.stop() }
        try await alice.wait(for: "reconnected", timeout: .seconds(15)) { $0.name == "reconnected" }
        let before = await Self.framesRead(bob, from: "alice")
        try await bob.wait(until: "frames after the restart", timeout: .seconds(10)) {
            await Self.framesRead(bob, from: "alice") > before + 15
        }
        alice.room.disconnect()
        bob.room.disconnect()
    }
}
}
