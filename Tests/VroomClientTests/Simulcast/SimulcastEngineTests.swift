import Foundation
import Testing
import VroomTesting

@testable import VroomClient

/// A simulcast camera's RTCP through the real media plane, with only its
/// top accepted layer sending: the server's NACKs are answered from that
/// layer's history, and its PLIs name that layer, not another.
@Suite struct SimulcastEngineTests {
    @Test func nacksAndPLIsReachTheLayerSent() async throws {
        let loss = ImpairmentProfile(dropProbability: 0.05)
        let session = try await EngineSession.connected(
            seed: 512, downstream: loss, upstream: loss, cameraRIDs: ["q", "h", "f"])
        defer { Task { await session.stop() } }
        let accepted = try await session.on(session.a) { $0.acceptedLayers(trackName: "camera") }
        let rid = try #require(accepted?.last)
        let layer = try #require(["q", "h", "f"].firstIndex(of: rid))
        let sent = try await session.sendMedia(frames: 60, seed: 12, layer: layer)
        let arrived = await waitUntil(timeout: .seconds(3)) { session.bLog.videoFrames.count >= sent.video.count - 3 }
        let received = session.bLog.videoFrames.map(\.data)
        // A simulcast DownTrack starts only at a keyframe of its target
        // layer; B sometimes starts a frame or two late (when it did, its
        // first frame was frame 1, a keyframe asked for by PLI: frame 0
        // likely left before B's DownTrack existed).
        // From there on, every frame arrives, in order, as sent (the NACKs
        // repair the loss).
        let start = try #require(received.first.flatMap { sent.video.firstIndex(of: $0) }, "B's first frame is one A sent")
        #expect(start <= 3, "B starts within 3 frames of the first: \(start)")
        #expect(arrived || received.count >= sent.video.count - start - 3, "B got \(received.count)/\(sent.video.count) video frames")
        #expect(received == Array(sent.video[start...].prefix(received.count)))
        let a = try await session.on(session.a) { $0.statistics() }
        let camera = try #require(a.localTracks.first { $0.name == "camera" })
        #expect(camera.nacksReceived > 0 && camera.retransmissionsSent > 0)

        let before = session.aLog.keyframeLayers.count
        let videoSid = session.videoSid
        // Both legs lose 5%: a PLI may be lost, so B asks again, as a real
        // receiver does while it waits.
        var asked = false
        for _ in 0..<3 where !asked {
            try await session.on(session.b) { $0.requestKeyframe(trackSid: videoSid) }
            asked = await waitUntil(timeout: .seconds(2)) { session.aLog.keyframeLayers.count > before }
        }
        #expect(asked)
        // Only the layer that is sent has an SSRC the server knows.
        #expect(Set(session.aLog.keyframeLayers.dropFirst(before)) == [layer])
    }
}
