import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// A node dies (SIGKILL) under a room in progress (PROTOCOL.md section 8,
/// "Node failure"): its participants, whose SDKs know another node
/// (`fallbackURLs`), resume there within the reconnect window; the first
/// resume moves the room with its SIDs and publications, and media flows
/// again.
@Suite(.serialized) struct ClusterFailoverTests {
    @Test func aDeadNodesRoomMovesWithTheFirstResumeAndMediaFlowsAgain() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 2) }
        defer { cluster.stop() }

        var aliceOptions = try await cluster.options("alice", room: "failover", publishing: true)
        aliceOptions.fallbackURLs = [cluster.url(1)]
        let alice = RecordedRoom(Room.connect(to: cluster.url(0), options: aliceOptions))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        var bobOptions = try await cluster.options("bob", room: "failover", publishing: false)
        bobOptions.fallbackURLs = [cluster.url(1)]
        let bob = RecordedRoom(Room.connect(to: cluster.url(0), options: bobOptions))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        // Both on node 0 (the asked node wins the tie between two idle nodes).
        let owner = try #require(alice.room.signalingURL?.port)
        #expect(bob.room.signalingURL?.port == owner)
        let dying = try #require(cluster.ports.firstIndex(of: owner))
        let survivor = 1 - dying
        try await bob.wait(until: "bob decodes alice's camera", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 30
        }
        let roomSID = try #require(alice.room.sid)
        let aliceSID = try #require(alice.room.localParticipant?.sid)
        let bobSID = try #require(bob.room.localParticipant?.sid)
        let trackSIDs = alice.room.localParticipant?.trackPublications.map(\.trackSid).sorted()
        let lastBefore = await RoomMediaTests.received(bob, from: "alice", "camera")?.lastFrameNumber ?? 0

        let killed = ContinuousClock.now
        cluster.nodes[dying].kill9()

        // Both resume on the survivor: the same room and participants.
        try await alice.wait(until: "alice resumed on the other node", timeout: .seconds(45)) {
            alice.room.state == .connected && alice.room.signalingURL?.port == cluster.ports[survivor]
        }
        let aliceBack = ContinuousClock.now - killed
        try await bob.wait(until: "bob resumed on the other node", timeout: .seconds(45)) {
            bob.room.state == .connected && bob.room.signalingURL?.port == cluster.ports[survivor]
        }
        #expect(alice.room.sid == roomSID)
        #expect(alice.room.localParticipant?.sid == aliceSID && bob.room.localParticipant?.sid == bobSID)
        #expect(alice.room.localParticipant?.trackPublications.map(\.trackSid).sorted() == trackSIDs)
        #expect(alice.count("disconnected") == 0 && bob.count("disconnected") == 0)

        // Media again: frames captured well after the kill reach bob.
        try await bob.wait(until: "bob decodes alice's camera through the new node", timeout: .seconds(20)) {
            let last = await RoomMediaTests.received(bob, from: "alice", "camera")?.lastFrameNumber ?? 0
            return last > lastBefore + 30
        }
        let mediaBack = ContinuousClock.now - killed
        print("FAILOVER kill -9 to alice resumed: \(aliceBack), to media at bob again: \(mediaBack)")

        // REST at the survivor: the room in progress, both connected.
        let (status, room) = try await DevREST.call(port: cluster.ports[survivor], "GET", "/v1/Rooms/\(roomSID)")
        #expect(status == 200 && room["status"] as? String == "in-progress")
        let (_, participants) = try await DevREST.call(
            port: cluster.ports[survivor], "GET", "/v1/Rooms/\(roomSID)/Participants?Status=connected")
        let listed = (participants["participants"] as? [[String: Any]])?.compactMap { $0["sid"] as? String }.sorted()
        #expect(listed == [aliceSID, bobSID].sorted())
        alice.room.disconnect()
        bob.room.disconnect()
    }
}
}
