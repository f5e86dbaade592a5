import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// The SDK as a subscriber sends transport-cc feedback (PROTOCOL.md 7), so
/// a real server can estimate its downlink: `/Stats` shows
/// `available_outgoing_bitrate` for it, which stays null without feedback.
@Suite(.serialized) struct DownlinkEstimateTests {
    /// The server's estimate for `identity` (bits per second), nil while null.
    static func estimate(_ harness: ClientHarness, of identity: String) async throws -> Int? {
        let (status, body) = try await harness.rest("GET", "/v1/Rooms/room/Stats")
        guard status == 200, let participants = body["participants"] as? [[String: Any]],
            let participant = participants.first(where: { $0["identity"] as? String == identity })
        else { return nil }
        return (participant["available_outgoing_bitrate"] as? NSNumber)?.intValue
    }

    @Test func aSubscriberOnlyClientGetsADownlinkEstimate() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let (alice, _, _) = try await RoomMediaTests.publisher(harness, "alice", tone: 440)
        let bob = harness.connect(try await harness.options("bob"))
        try await bob.wait(for: "bob subscribed to alice's camera") { $0.name == "trackSubscribed(alice,camera)" }
        try await bob.wait(until: "bob decodes 30 of alice's frames", timeout: .seconds(15)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 30
        }
        // Feedback goes out every 50 ms; the estimate is there within a second.
        var estimate: Int?
        try await bob.wait(until: "the server has a downlink estimate for bob", timeout: .seconds(5)) {
            estimate = try? await Self.estimate(harness, of: "bob")
            return estimate != nil
        }
        let bitsPerSecond = try #require(estimate)
        #expect(bitsPerSecond > 0)
        #expect(await bob.room.statistics().transportFeedbackSent > 10, "more than half a second of feedback")
        alice.room.disconnect()
        bob.room.disconnect()
    }
}
}
