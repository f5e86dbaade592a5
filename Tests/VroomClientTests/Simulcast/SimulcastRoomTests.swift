import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// Simulcast and adaptive video (PROTOCOL.md section 7) between SDK
/// clients through a real `vroom-server --dev`. The first test also holds
/// for a server that answers the offer with one layer.
@Suite(.serialized) struct SimulcastRoomTests {
    static let camera = CameraSourceOptions(width: 640, height: 480, frameRate: 30, bitrate: 900_000)

    /// A simulcast publisher of a 640x480 camera (layers 160x120, 320x240, 640x480).
    static func publisher(
        _ harness: ClientHarness, _ identity: String = "alice", priority: TrackPriority? = nil
    ) async throws -> RecordedRoom {
        let options = try await harness.options(identity) {
            $0.preferredVideoCodecs = [.vp8(simulcast: true)]
            $0.isAutomaticSubscriptionEnabled = false
        }
        let room = harness.connect(options)
        try await room.wait(for: "\(identity) connected") { $0.name == "connected" }
        let camera = LocalVideoTrack(name: "camera", source: CameraSource(options: Self.camera))
        room.room.localParticipant?.publish(videoTrack: camera, options: LocalTrackPublicationOptions(priority: priority))
        try await room.wait(for: "\(identity)'s camera published") { $0.name == "localTrackPublished(camera)" }
        return room
    }

    static func subscriber(
        _ harness: ClientHarness, _ identity: String = "bob", profile: BandwidthProfileOptions? = nil
    ) async throws -> RecordedRoom {
        let options = try await harness.options(identity) { $0.bandwidthProfile = profile }
        let room = harness.connect(options)
        try await room.wait(for: "\(identity) subscribed to alice's camera") { $0.name == "trackSubscribed(alice,camera)" }
        return room
    }

    static func received(_ room: RecordedRoom) async -> RemoteTrackStatistics? {
        guard let sid = room.room.remoteParticipant(identity: "alice")?.publication(named: "camera")?.trackSid else { return nil }
        return await room.room.statistics().remoteTrack(sid: sid)
    }

    static func track(_ room: RecordedRoom) throws -> RemoteVideoTrack {
        try #require(room.room.remoteParticipant(identity: "alice")?.publication(named: "camera")?.remoteVideoTrack)
    }

    /// Whether or not the server accepts the layers, the
    /// subscriber decodes a numbered, unbroken picture; without
    /// `a=simulcast` in the answer it is the full 640x480 layer.
    @Test func aSimulcastPublisherIsSeenBySubscribers() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let alice = try await Self.publisher(harness, priority: .high)
        let bob = try await Self.subscriber(harness)
        try await bob.wait(until: "bob decodes 60 of alice's frames", timeout: .seconds(20)) {
            await Self.received(bob)?.frameNumbersRead ?? 0 >= 60
        }
        let video = try #require(await Self.received(bob))
        let size = try #require(video.frameDimensions)
        let layers = VideoLayer.layers(for: Self.camera, simulcast: true).map { VideoDimensions(width: $0.width, height: $0.height) }
        #expect(layers.contains(size))
        let core = alice.room.core
        let accepted = try await core.eventLoop.submit { core.engine?.acceptedLayers(trackName: "camera") }.get()
        if accepted?.count == 1 {
            // The answer kept one layer (RFC 8853 5.3): the camera's full picture.
            #expect(accepted == ["f"])
            #expect(size == VideoDimensions(width: 640, height: 480))
            #expect(try await core.eventLoop.submit { core.videoSenders["camera"]?.runningLayers }.get() == [false, false, true])
        }
        #expect(video.packetsLost == 0)
        #expect(alice.room.localParticipant?.publication(named: "camera")?.priority == .high)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// A subscriber that renders 160x120 gets the "q" layer; asking for
    /// 640x480 brings the "f" layer (a switch at a keyframe, no error).
    @Test func renderDimensionsPickTheLayer() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let alice = try await Self.publisher(harness)
        let bob = try await Self.subscriber(
            harness, profile: BandwidthProfileOptions(video: VideoBandwidthProfileOptions(contentPreferencesMode: .manual)))
        let track = try Self.track(bob)
        track.setContentPreferences(renderDimensions: VideoDimensions(width: 160, height: 120))
        try await bob.wait(until: "bob decodes the 160x120 layer") {
            await Self.received(bob)?.frameDimensions == VideoDimensions(width: 160, height: 120)
        }
        let asked = ContinuousClock.now
        track.setContentPreferences(renderDimensions: VideoDimensions(width: 640, height: 480))
        try await bob.wait(until: "bob decodes the 640x480 layer") {
            await Self.received(bob)?.frameDimensions == VideoDimensions(width: 640, height: 480)
        }
        try await Task.sleep(for: .seconds(1))
        let video = try #require(await Self.received(bob))
        let change = try #require(video.decodedSizeChanges.last)
        #expect(change.dimensions == VideoDimensions(width: 640, height: 480))
        #expect(change.time - asked < .seconds(3), "the new layer within 3 s: \(change.time - asked)")
        // One numbering across layers (the camera stamps each frame on
        // every layer): fewer than 30 numbers missing is no gap over 1 s
        // at 30 fps, and every frame read decoded.
        let first = try #require(video.firstFrameNumber), last = try #require(video.lastFrameNumber)
        let missing = Int(last &- first) + 1 - video.frameNumbersRead
        #expect(missing < 30, "\(missing) frame numbers missing around the switch")
        #expect(video.framesDecoded >= video.frameNumbersRead)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// Manual control: switchOff() is reported with disabled-by-subscriber,
    /// switchOn() brings the video back.
    @Test func manualSwitchOffAndOn() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let alice = try await Self.publisher(harness)
        let bob = try await Self.subscriber(
            harness, profile: BandwidthProfileOptions(video: VideoBandwidthProfileOptions(clientTrackSwitchOffControl: .manual)))
        let track = try Self.track(bob)
        track.priority = .high
        track.switchOff()
        try await bob.wait(for: "switched off") { $0.name == "trackSwitchedOff(alice,camera,disabled-by-subscriber)" }
        #expect(track.isSwitchedOff && track.switchOffReason == .disabledBySubscriber)
        let before = await Self.received(bob)?.framesDecoded ?? 0
        track.switchOn()
        try await bob.wait(for: "switched on") { $0.name == "trackSwitchedOn(alice,camera)" }
        #expect(!track.isSwitchedOff)
        try await bob.wait(until: "bob decodes again") { (await Self.received(bob)?.framesDecoded ?? 0) > before + 30 }
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// With only a 160x120 viewer the server tells alice to pause "h" and
    /// "f" (publisherLayers); her encoders for them stop.
    @Test func unneededLayersArePaused() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let alice = try await Self.publisher(harness)
        let bob = try await Self.subscriber(
            harness, profile: BandwidthProfileOptions(video: VideoBandwidthProfileOptions(contentPreferencesMode: .manual)))
        try Self.track(bob).setContentPreferences(renderDimensions: VideoDimensions(width: 160, height: 120))
        let core = alice.room.core
        try await alice.wait(until: "alice runs only the q layer") {
            (try? await core.eventLoop.submit { core.videoSenders["camera"]?.runningLayers ?? [] }.get()) == [true, false, false]
        }
        alice.room.disconnect()
        bob.room.disconnect()
    }
}
}
