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
        _ = await waitUntil(timeout: .seconds(3)) { session.bLog.videoFrames.count >= sent.video.count - 3 }
        let frames = session.bLog.videoFrames
        let received = frames.map(\.data)
        // A simulcast DownTrack starts only at a keyframe of its target
        // layer; B sometimes starts a frame or two late (when it did, its
        // first frame was frame 1, a keyframe asked for by PLI: frame 0
        // likely left before B's DownTrack existed).
        let start = try #require(received.first.flatMap { sent.video.firstIndex(of: $0) }, "B's first frame is one A sent")
        #expect(start <= 3, "B starts within 3 frames of the first: \(start)")
        // From there on, frames arrive in order, as sent; the NACKs repair
        // the loss. A frame whose repair takes longer than the assembler's
        // 400 ms wait is skipped, and the next one says it follows a loss
        // (B then asks for a keyframe). That happened with four of these
        // sessions at once on 2 cores: frame 23 of 60 never came, frame 24
        // was a keyframe.
        let indices = received.map { frame in sent.video.firstIndex(of: frame) }
        #expect(!indices.contains(nil), "every frame B got is one A sent, unchanged")
        let order = indices.compactMap { $0 }
        #expect(order == order.sorted() && Set(order).count == order.count, "B's frames are in order, once each: \(order)")
        let unflaggedGaps = order.indices.dropFirst().filter { order[$0] != order[$0 - 1] + 1 && !frames[$0].followsLoss }
        #expect(unflaggedGaps.isEmpty, "a frame after a gap says it follows a loss: \(order)")
        let missing = sent.video.count - start - order.count
        let b = try await session.on(session.b) { $0.statistics() }
        #expect(
            missing <= 3,
            "B got \(order.count)/\(sent.video.count) video frames: \(order); server: \(session.planeLog.all); B: \(b.remoteTracks)")
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
