import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// Rooms that outlive their node (PROTOCOL.md section 8): a node killed
/// under a room in progress ("Node failure") and a node drained with its
/// rooms still in use ("Drain"). Either way the participants resume on
/// another node with the same room, participant and track SIDs, and media
/// flows again.
@Suite(.serialized) struct RoomMoveEndToEndTests {
    /// A publisher (alice) and a viewer (bob) of room `name`, joined at node
    /// 0 and decoding; both know node 1 as a fallback.
    static func publisherAndViewer(
        _ cluster: ClusterEndToEndTests.Cluster, room name: String
    ) async throws -> (alice: RecordedRoom, bob: RecordedRoom, owner: Int) {
        var aliceOptions = try await cluster.options("alice", room: name, publishing: true)
        aliceOptions.fallbackURLs = [cluster.url(1)]
        let alice = RecordedRoom(Room.connect(to: cluster.url(0), options: aliceOptions))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        var bobOptions = try await cluster.options("bob", room: name, publishing: false)
        bobOptions.fallbackURLs = [cluster.url(1)]
        let bob = RecordedRoom(Room.connect(to: cluster.url(0), options: bobOptions))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        let port = try #require(alice.room.signalingURL?.port)
        #expect(bob.room.signalingURL?.port == port)
        try await bob.wait(until: "bob decodes alice's camera", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 30
        }
        return (alice, bob, try #require(cluster.ports.firstIndex(of: port)))
    }

    /// After the move: both on node `node`, with the SIDs they had, media
    /// again (frames captured well after `lastBefore` reach bob), and REST
    /// there says so. Returns when bob's media came back.
    static func expectMoved(
        _ cluster: ClusterEndToEndTests.Cluster, alice: RecordedRoom, bob: RecordedRoom, to node: Int,
        sids: (room: String, alice: String, bob: String, tracks: [String]?), lastBefore: UInt32
    ) async throws {
        try await alice.wait(until: "alice resumed on node \(node)", timeout: .seconds(45)) {
            alice.room.state == .connected && alice.room.signalingURL?.port == cluster.ports[node]
        }
        try await bob.wait(until: "bob resumed on node \(node)", timeout: .seconds(45)) {
            bob.room.state == .connected && bob.room.signalingURL?.port == cluster.ports[node]
        }
        #expect(alice.room.sid == sids.room)
        #expect(alice.room.localParticipant?.sid == sids.alice && bob.room.localParticipant?.sid == sids.bob)
        #expect(alice.room.localParticipant?.trackPublications.map(\.trackSid).sorted() == sids.tracks)
        #expect(alice.count("disconnected") == 0 && bob.count("disconnected") == 0)
        try await bob.wait(until: "bob decodes alice's camera through node \(node)", timeout: .seconds(20)) {
            let last = await RoomMediaTests.received(bob, from: "alice", "camera")?.lastFrameNumber ?? 0
            return last > lastBefore + 30
        }
        let (status, room) = try await DevREST.call(port: cluster.ports[node], "GET", "/v1/Rooms/\(sids.room)")
        #expect(status == 200 && room["status"] as? String == "in-progress")
        let (_, participants) = try await DevREST.call(
            port: cluster.ports[node], "GET", "/v1/Rooms/\(sids.room)/Participants?Status=connected")
        let listed = (participants["participants"] as? [[String: Any]])?.compactMap { $0["sid"] as? String }.sorted()
        #expect(listed == [sids.alice, sids.bob].sorted())
    }

    static func sids(_ alice: RecordedRoom, _ bob: RecordedRoom) throws -> (room: String, alice: String, bob: String, tracks: [String]?) {
        (try #require(alice.room.sid), try #require(alice.room.localParticipant?.sid),
         try #require(bob.room.localParticipant?.sid),
         alice.room.localParticipant?.trackPublications.map(\.trackSid).sorted())
    }

    @Test func aDeadNodesRoomMovesWithTheFirstResumeAndMediaFlowsAgain() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 2) }
        defer { cluster.stop() }
        let (alice, bob, dying) = try await Self.publisherAndViewer(cluster, room: "failover")
        let sids = try Self.sids(alice, bob)
        let lastBefore = await RoomMediaTests.received(bob, from: "alice", "camera")?.lastFrameNumber ?? 0

        let killed = ContinuousClock.now
        cluster.nodes[dying].kill9()
        try await Self.expectMoved(cluster, alice: alice, bob: bob, to: 1 - dying, sids: sids, lastBefore: lastBefore)
        // Issue 14: decoded media again within 10 s. The node that gets
        // the resumes finds nothing listening at the dead one's port and
        // takes over at once, not after the 10 s heartbeat rule.
        let back = ContinuousClock.now - killed
        print("MOVE kill -9: both resumed and media at bob again \(back) after the kill")
        #expect(back < .seconds(10))
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// A node dies and nobody of its room resumes (alice knows no other
    /// node); a new participant joins the room by name at another node: the
    /// same room goes on there (its SID; alice listed as reconnecting), not
    /// a second room of that name beside one that stays in progress for
    /// ever.
    @Test func aJoinByNameCarriesOnADeadNodesRoom() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 2) }
        defer { cluster.stop() }
        let alice = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("alice", room: "orphan", publishing: true)))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let roomSID = try #require(alice.room.sid)
        let aliceSID = try #require(alice.room.localParticipant?.sid)
        let port = try #require(alice.room.signalingURL?.port)
        let dying = try #require(cluster.ports.firstIndex(of: port))
        // The owner writes its records to the database a moment after they
        // happen (in order, off the room's path): kill it once they are there.
        try await alice.wait(until: "alice's session is in the database", timeout: .seconds(10)) {
            let other = cluster.ports[1 - dying]
            let participants = try? await DevREST.call(port: other, "GET", "/v1/Rooms/\(roomSID)/Participants").1
            return (participants?["participants"] as? [[String: Any]])?.count == 1
        }
        cluster.nodes[dying].kill9()

        let carol = RecordedRoom(Room.connect(
            to: cluster.url(1 - dying), options: try await cluster.options("carol", room: "orphan", publishing: false)))
        try await carol.wait(for: "carol connected") { $0.name == "connected" }
        #expect(carol.room.sid == roomSID)
        #expect(carol.room.remoteParticipants.map(\.sid) == [aliceSID])
        #expect(carol.room.remoteParticipants.first?.state == .reconnecting)
        let (_, rooms) = try await DevREST.call(port: cluster.ports[1 - dying], "GET", "/v1/Rooms?UniqueName=orphan&Status=in-progress")
        #expect((rooms["rooms"] as? [[String: Any]])?.compactMap { $0["sid"] as? String } == [roomSID])
        carol.room.disconnect()
        alice.room.disconnect()
    }

    /// SIGTERM with `--drain-timeout 5`: at the timeout the room moves
    /// (`reconnect` to the other node), and the drained node exits 0.
    @Test func aDrainedNodesRoomMovesAtTheTimeoutAndTheNodeExits() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 2, extra: ["--drain-timeout", "5"]) }
        defer { cluster.stop() }
        let (alice, bob, draining) = try await Self.publisherAndViewer(cluster, room: "drained")
        let sids = try Self.sids(alice, bob)
        let lastBefore = await RoomMediaTests.received(bob, from: "alice", "camera")?.lastFrameNumber ?? 0

        let node = cluster.nodes[draining]
        let asked = ContinuousClock.now
        node.process.terminate()
        try await Self.expectMoved(cluster, alice: alice, bob: bob, to: 1 - draining, sids: sids, lastBefore: lastBefore)
        print("MOVE drain: both resumed and media at bob again \(ContinuousClock.now - asked) after SIGTERM (timeout 5 s)")
        // Moved by the drain (`reconnect`), not resumed after the node's end.
        #expect(node.output.contains("drain: room drained moved to ws://127.0.0.1:\(cluster.ports[1 - draining])/v1/signal with 2 participant(s)"), "\(node.output)")
        let exited = try await ClientHarness.offPool { node.waitForExit(seconds: 15) }
        #expect(exited)
        #expect(node.process.terminationStatus == 0)
        #expect(alice.names.filter { $0.hasPrefix("reconnecting") }.count == 1, "one reconnect: \(alice.names)")
        alice.room.disconnect()
        bob.room.disconnect()
    }
}
}
