import Foundation
import Testing
import VroomTesting

@testable import VroomClient

/// A simulcast camera's RTCP through today's real media plane (which
/// accepts one layer): the layer the answer kept is the one sent, the
/// server's NACKs are answered from that layer's history, and its PLIs
/// name that layer, not another.
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
        let arrived = await waitUntil(timeout: .seconds(3)) { session.bLog.videoFrames.count >= sent.video.count }
        let received = session.bLog.videoFrames.map(\.data)
        #expect(arrived || received.count >= sent.video.count - 3, "B got \(received.count)/\(sent.video.count) video frames")
        #expect(received == Array(sent.video.prefix(received.count)))
        let a = try await session.on(session.a) { $0.statistics() }
        let camera = try #require(a.localTracks.first { $0.name == "camera" })
        #expect(camera.nacksReceived > 0 && camera.retransmissionsSent > 0)

        let before = session.aLog.keyframeLayers.count
        let videoSid = session.videoSid
        try await session.on(session.b) { $0.requestKeyframe(trackSid: videoSid) }
        let asked = await waitUntil(timeout: .seconds(5)) { session.aLog.keyframeLayers.count > before }
        #expect(asked)
        // Only the layer that is sent has an SSRC the server knows.
        #expect(Set(session.aLog.keyframeLayers.dropFirst(before)) == [layer])
    }
}
