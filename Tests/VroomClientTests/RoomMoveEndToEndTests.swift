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
    /// A publisher and a viewer of one room, joined at node 0 (both know
    /// the other nodes as fallbacks), the viewer decoding; their SIDs then.
    struct Pair {
        let publisher: RecordedRoom
        let viewer: RecordedRoom
        let publisherName: String
        let viewerName: String
        let room: String
        let publisherSID: String
        let viewerSID: String
        let tracks: [String]?
        /// The node both are on.
        let node: Int

        /// The number drawn in the last frame the viewer decoded.
        func lastFrame() async -> UInt32 {
            await RoomMediaTests.received(viewer, from: publisherName, "camera")?.lastFrameNumber ?? 0
        }

        func disconnect() {
            publisher.room.disconnect()
            viewer.room.disconnect()
        }
    }

    static func pair(
        _ cluster: ClusterEndToEndTests.Cluster, room name: String, publisher: String = "alice", viewer: String = "bob"
    ) async throws -> Pair {
        let fallbacks = cluster.ports.indices.dropFirst().map(cluster.url)
        var publisherOptions = try await cluster.options(publisher, room: name, publishing: true)
        publisherOptions.fallbackURLs = fallbacks
        let publishing = RecordedRoom(Room.connect(to: cluster.url(0), options: publisherOptions))
        try await publishing.wait(for: "\(publisher) connected") { $0.name == "connected" }
        var viewerOptions = try await cluster.options(viewer, room: name, publishing: false)
        viewerOptions.fallbackURLs = fallbacks
        let viewing = RecordedRoom(Room.connect(to: cluster.url(0), options: viewerOptions))
        try await viewing.wait(for: "\(viewer) connected") { $0.name == "connected" }
        let port = try #require(publishing.room.signalingURL?.port)
        #expect(viewing.room.signalingURL?.port == port)
        try await viewing.wait(until: "\(viewer) decodes \(publisher)'s camera", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(viewing, from: publisher) >= 30
        }
        return Pair(
            publisher: publishing, viewer: viewing, publisherName: publisher, viewerName: viewer,
            room: try #require(publishing.room.sid), publisherSID: try #require(publishing.room.localParticipant?.sid),
            viewerSID: try #require(viewing.room.localParticipant?.sid),
            tracks: publishing.room.localParticipant?.trackPublications.map(\.trackSid).sorted(),
            node: try #require(cluster.ports.firstIndex(of: port)))
    }

    /// After the move: both on one node other than `from`, with the SIDs
    /// they had, media again (frames captured well after `lastBefore`
    /// reach the viewer), and REST there says so. Returns that node, when
    /// the viewer's media came back.
    @discardableResult
    static func expectMoved(
        _ cluster: ClusterEndToEndTests.Cluster, _ pair: Pair, from old: Int, lastBefore: UInt32
    ) async throws -> Int {
        let oldPort = cluster.ports[old]
        for (room, name) in [(pair.publisher, pair.publisherName), (pair.viewer, pair.viewerName)] {
            try await room.wait(until: "\(name) resumed on another node", timeout: .seconds(45)) {
                room.room.state == .connected && room.room.signalingURL.map { $0.port != oldPort } == true
            }
            #expect(room.room.sid == pair.room)
            #expect(room.count("disconnected") == 0)
        }
        let port = try #require(pair.publisher.room.signalingURL?.port)
        #expect(pair.viewer.room.signalingURL?.port == port, "both on the room's new node")
        let node = try #require(cluster.ports.firstIndex(of: port))
        #expect(pair.publisher.room.localParticipant?.sid == pair.publisherSID)
        #expect(pair.viewer.room.localParticipant?.sid == pair.viewerSID)
        #expect(pair.publisher.room.localParticipant?.trackPublications.map(\.trackSid).sorted() == pair.tracks)
        try await pair.viewer.wait(
            until: "\(pair.viewerName) decodes \(pair.publisherName)'s camera through node \(node)", timeout: .seconds(20)
        ) {
            await pair.lastFrame() > lastBefore + 30
        }
        let (status, room) = try await DevREST.call(port: cluster.ports[node], "GET", "/v1/Rooms/\(pair.room)")
        #expect(status == 200 && room["status"] as? String == "in-progress")
        let (_, participants) = try await DevREST.call(
            port: cluster.ports[node], "GET", "/v1/Rooms/\(pair.room)/Participants?Status=connected")
        let listed = (participants["participants"] as? [[String: Any]])?.compactMap { $0["sid"] as? String }.sorted()
        #expect(listed == [pair.publisherSID, pair.viewerSID].sorted())
        return node
    }

    /// Issue 14 item 8: kill -9 of a node of three hosting two rooms with
    /// live SDK participants. Everyone resumes on a live node with the
    /// same SIDs,
    /// each viewer decodes again within 10 s of the kill, and each room's
    /// status callbacks, across the kill and after it, reach the receiver
    /// with no gap in `SequenceNumber` once repeats are dropped.
    @Test func aDeadNodesRoomsMoveWithTheirResumesAndMediaAndCallbacksGoOn() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 3) }
        defer { cluster.stop() }
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        // Created at node 0, so both rooms are node 0's.
        for room in ["failover-a", "failover-b"] {
            let (status, _) = try await DevREST.call(
                port: cluster.ports[0], "POST", "/v1/Rooms",
                form: ["UniqueName": room, "StatusCallback": "http://127.0.0.1:\(receiver.port)/hooks/\(room)"])
            #expect(status == 201)
        }
        let pairs = [
            try await Self.pair(cluster, room: "failover-a"),
            try await Self.pair(cluster, room: "failover-b", publisher: "carol", viewer: "dave"),
        ]
        #expect(pairs.allSatisfy { $0.node == 0 })
        var lastBefore: [UInt32] = []
        for pair in pairs { lastBefore.append(await pair.lastFrame()) }

        let killed = ContinuousClock.now
        cluster.nodes[0].kill9()
        // Each viewer: from the kill to its first frame through node 1
        // (issue 14: within 10 s). The node that gets the resumes finds
        // nothing listening at the dead one's port and takes over at once,
        // not after the 10 s heartbeat rule.
        let newNodes = await withThrowingTaskGroup(of: Int.self) { group in
            for (pair, last) in zip(pairs, lastBefore) {
                group.addTask {
                    let node = try await Self.expectMoved(cluster, pair, from: 0, lastBefore: last)
                    let back = ContinuousClock.now - killed
                    print("MOVE kill -9: \(pair.viewerName) decodes \(pair.publisherName) again \(back) after the kill, on node \(node)")
                    #expect(back < .seconds(10), "\(pair.viewerName)")
                    return node
                }
            }
            var nodes: Set<Int> = []
            while let result = await group.nextResult() {
                switch result {
                case .success(let node): nodes.insert(node)
                case .failure(let error): Issue.record(error)
                }
            }
            return nodes
        }
        // Each room on a live node; which one is the placement's choice
        // (least loaded; two rooms placed at the same moment may share one).
        #expect(!newNodes.isEmpty && !newNodes.contains(0), "\(newNodes)")

        // Everyone leaves: the rooms' callbacks go on from node 1, numbered on.
        for pair in pairs { pair.disconnect() }
        for pair in pairs {
            let hook = "/hooks/failover-\(pair.room == pairs[0].room ? "a" : "b")"
            var numbers: Set<Int> = []
            var events: [String] = []
            let deadline = ContinuousClock.now + .seconds(20)
            repeat {
                try await Task.sleep(for: .milliseconds(200))
                let requests = receiver.all.filter { $0.target == hook }
                numbers = Set(requests.compactMap { $0.parameter("SequenceNumber").flatMap(Int.init) })
                events = requests.compactMap { $0.parameter("StatusCallbackEvent") }
            } while events.filter({ $0 == "participant-disconnected" }).count < 2 && ContinuousClock.now < deadline
            #expect(events.filter { $0 == "participant-disconnected" }.count >= 2, "\(hook): \(events)")
            #expect(numbers == Set(0..<numbers.count), "\(hook): no gap after dropping repeats: \(numbers.sorted())")
            // A repeat is the same callback again (the stored request), never
            // another event under a number already used.
            let byNumber = Dictionary(grouping: receiver.all.filter { $0.target == hook }) { $0.parameter("SequenceNumber") ?? "" }
            #expect(byNumber.values.allSatisfy { Set($0.map(\.body)).count == 1 }, "\(hook): one callback per number")
            #expect(events.first == "room-created", "\(hook): \(events)")
        }
    }

    /// A node dies and nobody of its room resumes (alice knows no other
    /// node); a REST create of its name at another node is 53113, and a new
    /// participant joining it by name there finds the same room (its SID;
    /// alice listed as reconnecting), not a second room of that name beside
    /// one that stays in progress for ever.
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

        // A REST create of the name at the other node: the room is there
        // already (taken over), 53113, not a second room of that name.
        let (created, body) = try await DevREST.call(
            port: cluster.ports[1 - dying], "POST", "/v1/Rooms", form: ["UniqueName": "orphan"])
        #expect(created == 409 && body["code"] as? Int == 53113, "\(created) \(body)")

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
        let pair = try await Self.pair(cluster, room: "drained")
        let draining = pair.node
        let lastBefore = await pair.lastFrame()

        let node = cluster.nodes[draining]
        let asked = ContinuousClock.now
        node.process.terminate()
        #expect(try await Self.expectMoved(cluster, pair, from: draining, lastBefore: lastBefore) == 1 - draining)
        print("MOVE drain: both resumed and media at bob again \(ContinuousClock.now - asked) after SIGTERM (timeout 5 s)")
        // Moved by the drain (`reconnect`), not resumed after the node's end.
        #expect(node.output.contains("drain: room drained moved to ws://127.0.0.1:\(cluster.ports[1 - draining])/v1/signal with 2 participant(s)"), "\(node.output)")
        let exited = try await ClientHarness.offPool { node.waitForExit(seconds: 15) }
        #expect(exited)
        #expect(node.process.terminationStatus == 0)
        #expect(pair.publisher.names.filter { $0.hasPrefix("reconnecting") }.count == 1, "one reconnect: \(pair.publisher.names)")
        pair.disconnect()
    }
    /// A node dies and nobody of its room resumes anywhere (alice knows no
    /// other node): once the node is dead past the reconnect window (3 s
    /// here), the other node ends the room `failed` with the callbacks its
    /// node would have sent, numbered on from the dead node's, and REST
    /// says so.
    @Test func aDeadNodesRoomNobodyResumesEndsFailedWithItsCallbacks() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 2, extra: ["--reconnect-window", "3"]) }
        defer { cluster.stop() }
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        let hook = "/hooks/lost"
        let (created, _) = try await DevREST.call(
            port: cluster.ports[0], "POST", "/v1/Rooms",
            form: ["UniqueName": "lost", "StatusCallback": "http://127.0.0.1:\(receiver.port)\(hook)"])
        #expect(created == 201)
        let alice = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("alice", room: "lost", publishing: true)))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let roomSID = try #require(alice.room.sid)
        // Killed as soon as the first of her two track-added callbacks (mic,
        // camera) arrives: the second track's record and its callback may
        // or may not be written yet, but never one without the other (one
        // transaction), so node 1 never ends a track whose start nobody was
        // told about. With two writes this failed 2 runs of 3 in session
        // 40 and passed 4 of 4 in session 42: the window is milliseconds.
        // `DatabaseWebhookOutboxTests.statusCallbacksCommitWithTheRecordsTheyReport`
        // checks the one transaction deterministically.
        try await alice.wait(until: "alice's first track-added is delivered", timeout: .seconds(10)) {
            receiver.all.contains { $0.target == hook && $0.parameter("StatusCallbackEvent") == "track-added" }
        }
        cluster.nodes[0].kill9()
        alice.room.disconnect()

        // Dead after 10 s of silence, then the 3 s window: node 1 ends it.
        var events: [String] = []
        try await alice.wait(until: "room-ended from node 1", timeout: .seconds(30)) {
            events = receiver.all.filter { $0.target == hook }.compactMap { $0.parameter("StatusCallbackEvent") }
            return events.contains("room-ended")
        }
        // In SequenceNumber order, repeats (at least once) dropped.
        var byNumber: [Int: CallbackReceiver.Request] = [:]
        for request in receiver.all where request.target == hook {
            if let number = request.parameter("SequenceNumber").flatMap(Int.init) { byNumber[number] = request }
        }
        #expect(Set(byNumber.keys) == Set(0..<byNumber.count), "no gap: \(byNumber.keys.sorted())")
        let ordered = byNumber.keys.sorted().compactMap { byNumber[$0] }
        events = ordered.compactMap { $0.parameter("StatusCallbackEvent") }
        #expect(Array(events.suffix(2)) == ["participant-disconnected", "room-ended"], "\(events)")
        #expect(events.filter { $0 == "track-removed" }.count == events.filter { $0 == "track-added" }.count, "\(events)")
        #expect(ordered.last?.parameter("RoomStatus") == "failed")
        let (_, room) = try await DevREST.call(port: cluster.ports[1], "GET", "/v1/Rooms/\(roomSID)")
        #expect(room["status"] as? String == "failed")
        let (_, participants) = try await DevREST.call(port: cluster.ports[1], "GET", "/v1/Rooms/\(roomSID)/Participants")
        let statuses = (participants["participants"] as? [[String: Any]])?.compactMap { $0["status"] as? String }
        #expect(statuses == ["disconnected"])
        #expect(cluster.nodes[1].output.contains("room(s) of dead nodes ended failed: lost"), "\(cluster.nodes[1].output)")
    }

    /// A drained node's empty room moves too (issue 14: when its rooms are
    /// empty, before the timeout): the other node takes it over at its
    /// next heartbeat, with the same SID, and a join there finds it.
    @Test func aDrainedNodesEmptyRoomMovesAndGoesOn() async throws {
        let cluster = try await ClientHarness.offPool { try ClusterEndToEndTests.Cluster(count: 2, extra: ["--drain-timeout", "30"]) }
        defer { cluster.stop() }
        let (created, room) = try await DevREST.call(port: cluster.ports[0], "POST", "/v1/Rooms", form: ["UniqueName": "quiet"])
        #expect(created == 201)
        let roomSID = try #require(room["sid"] as? String)
        let node = cluster.nodes[0]
        node.process.terminate()
        // No participant: the drain does not wait for its timeout.
        let exited = try await ClientHarness.offPool { node.waitForExit(seconds: 10) }
        #expect(exited && node.process.terminationStatus == 0)
        #expect(node.output.contains("drain: room quiet moved to ws://127.0.0.1:\(cluster.ports[1])/v1/signal with 0 participant(s)"), "\(node.output)")
        let adopted = try await ClientHarness.offPool {
            (try? cluster.nodes[1].waitFor(#"took over room quiet \((RM[0-9a-f]+)\) placed here"#, seconds: 10)) != nil
        }
        #expect(adopted, "\(cluster.nodes[1].output)")
        let (_, moved) = try await DevREST.call(port: cluster.ports[1], "GET", "/v1/Rooms/\(roomSID)")
        #expect(moved["status"] as? String == "in-progress")
        let bob = RecordedRoom(Room.connect(
            to: cluster.url(1), options: try await cluster.options("bob", room: "quiet", publishing: false)))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        #expect(bob.room.sid == roomSID)
        bob.room.disconnect()
    }
}
}
