import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// Three real `vroom-server` processes sharing one real PostgreSQL, started
/// by the test (PROTOCOL.md section 8, issue 14): rooms are placed over the
/// nodes, a join at the wrong node is redirected and media flows on the
/// owner, REST answers the same on every node, the cluster rides out
/// its database stopping for 10 s, and a killed node's status callbacks are
/// delivered by another.
@Suite(.serialized) struct ClusterEndToEndTests {
    /// A cluster of `count` dev nodes on loopback, each with its own HTTP
    /// port, one media worker and `--node-url`.
    final class Cluster: Sendable {
        let database: PostgresServer
        let nodes: [ServerProcess]
        let ports: [Int]

        init(count: Int, extra: [String] = []) throws {
            database = try PostgresServer()
            let url = try database.createDatabase("vroom")
            var nodes: [ServerProcess] = []
            var ports: [Int] = []
            do {
                for _ in 0..<count {
                    let port = try PostgresServer.freeTCPPort()
                    let node = try ServerProcess(arguments: [
                        "--dev", "--http-port", "\(port)", "--rtc-port", "0", "--rtc-workers", "1",
                        "--db", url, "--node-url", "http://127.0.0.1:\(port)",
                    ] + extra)
                    nodes.append(node)
                    ports.append(port)
                    _ = try node.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#)
                }
            } catch {
                for node in nodes { node.stop() }
                database.stop()
                throw error
            }
            self.nodes = nodes
            self.ports = ports
        }

        func url(_ node: Int) -> URL { URL(string: "http://127.0.0.1:\(ports[node])")! }

        func stop() {
            for node in nodes { node.stop() }
            database.stop()
        }

        func options(_ identity: String, room: String, publishing: Bool) async throws -> ConnectOptions {
            let token = try await ClientHarness.offPool { try ServerProcess.devToken(identity: identity) }
            var options = ConnectOptions(token: token, roomName: room)
            options.delegateQueue = DispatchQueue(label: "test.delegate.\(identity)")
            options.mediaBindHost = "127.0.0.1"
            if publishing {
                options.videoTracks = [LocalVideoTrack(name: "camera")]
                options.audioTracks = [LocalAudioTrack(name: "mic", options: AudioTrackOptions(toneFrequency: 440))]
            }
            return options
        }
    }

    @Test func roomsSpreadJoinsAreRedirectedAndMediaFlowsOnTheOwner() async throws {
        let cluster = try await ClientHarness.offPool { try Cluster(count: 3) }
        defer { cluster.stop() }

        // Three rooms, every participant joining at node 0.
        var rooms: [(publisher: RecordedRoom, viewer: RecordedRoom)] = []
        for n in 0..<3 {
            let publisher = RecordedRoom(Room.connect(
                to: cluster.url(0), options: try await cluster.options("alice\(n)", room: "cluster-\(n)", publishing: true)))
            try await publisher.wait(for: "alice\(n) connected") { $0.name == "connected" }
            let viewer = RecordedRoom(Room.connect(
                to: cluster.url(0), options: try await cluster.options("bob\(n)", room: "cluster-\(n)", publishing: false)))
            rooms.append((publisher, viewer))
        }
        // Placement: the least-loaded live node, counting the rooms placed
        // there, so three new rooms land on three nodes.
        let owners = rooms.map { $0.publisher.room.signalingURL?.port }
        #expect(Set(owners.compactMap { $0 }) == Set(cluster.ports), "owners \(owners) of nodes \(cluster.ports)")
        for (n, room) in rooms.enumerated() {
            // The viewer, sent to node 0 as well, followed the same redirect.
            #expect(room.viewer.room.signalingURL?.port == owners[n])
            try await room.viewer.wait(until: "bob\(n) decodes alice\(n)'s camera on the owner", timeout: .seconds(20)) {
                await RoomMediaTests.framesRead(room.viewer, from: "alice\(n)") >= 30
            }
        }

        // REST: the same answers on every node (absolute URLs aside, which
        // name the node asked).
        for n in 0..<3 {
            var answers: [String] = []
            for port in cluster.ports {
                let (status, room) = try await DevREST.call(port: port, "GET", "/v1/Rooms/cluster-\(n)")
                #expect(status == 200)
                let sid = try #require(room["sid"] as? String)
                let (_, participants) = try await DevREST.call(port: port, "GET", "/v1/Rooms/\(sid)/Participants")
                answers.append(Self.normalized(["room": room, "participants": participants], port: port))
            }
            #expect(Set(answers).count == 1, "node answers differ for cluster-\(n):\n\(answers.joined(separator: "\n"))")
            #expect(answers.first?.contains("\"status\":\"in-progress\"") == true)
            #expect(answers.first?.contains("alice\(n)") == true && answers.first?.contains("bob\(n)") == true)
        }

        // REST create: a name in progress on any node is 53113 on every
        // node; a new name is created on the node asked, and joins follow it there.
        for port in cluster.ports {
            let (status, body) = try await DevREST.call(port: port, "POST", "/v1/Rooms", form: ["UniqueName": "cluster-0"])
            #expect(status == 409 && body["code"] as? Int == 53113, "node \(port): \(status) \(body)")
        }
        let (created, _) = try await DevREST.call(port: cluster.ports[2], "POST", "/v1/Rooms", form: ["UniqueName": "rest-made"])
        #expect(created == 201)
        let (twice, _) = try await DevREST.call(port: cluster.ports[0], "POST", "/v1/Rooms", form: ["UniqueName": "rest-made"])
        #expect(twice == 409)
        let carol = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("carol", room: "rest-made", publishing: false)))
        try await carol.wait(for: "carol connected") { $0.name == "connected" }
        #expect(carol.room.signalingURL?.port == cluster.ports[2])
        carol.room.disconnect()
        for room in rooms {
            room.publisher.room.disconnect()
            room.viewer.room.disconnect()
        }
    }

    @Test func aDatabaseOutageKeepsMediaRefusesNewRoomsAndTheStoreCatchesUp() async throws {
        let cluster = try await ClientHarness.offPool { try Cluster(count: 2) }
        defer { cluster.stop() }
        let alice = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("alice", room: "outage", publishing: true)))
        let bob = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("bob", room: "outage", publishing: false)))
        let dave = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("dave", room: "outage", publishing: false)))
        try await dave.wait(for: "dave connected") { $0.name == "connected" }
        try await bob.wait(until: "bob decodes alice", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 30
        }
        let owner = try #require(bob.room.signalingURL?.port)
        let other = try #require(cluster.ports.first { $0 != owner })

        // PostgreSQL away for 10 s.
        try await ClientHarness.offPool { try cluster.database.pause() }
        let stopped = ContinuousClock.now
        let framesAtStop = await RoomMediaTests.framesRead(bob, from: "alice")
        dave.room.disconnect()  // a departure to record once the database is back
        let carol = RecordedRoom(Room.connect(
            to: URL(string: "http://127.0.0.1:\(other)")!, options: try await cluster.options("carol", room: "during", publishing: false)))
        let refused = try await carol.wait(for: "carol's join refused", timeout: .seconds(9)) {
            if case .failedToConnect = $0 { return true }
            return $0.name == "connected"
        }
        #expect(refused.name == "failedToConnect(53006)", "a new room while the database is away")
        try await Task.sleep(until: stopped + .seconds(10))
        let framesDuring = await RoomMediaTests.framesRead(bob, from: "alice") - framesAtStop
        #expect(framesDuring >= 100, "media goes on without the database: \(framesDuring) frames in 10 s")
        try await ClientHarness.offPool { try cluster.database.restart() }

        // Back: a new room works again (within a heartbeat or two), no node
        // crashed, and what happened meanwhile is in the store.
        var erin: RecordedRoom?
        let deadline = ContinuousClock.now + .seconds(20)
        while erin == nil, ContinuousClock.now < deadline {
            let attempt = RecordedRoom(Room.connect(
                to: URL(string: "http://127.0.0.1:\(other)")!, options: try await cluster.options("erin", room: "after", publishing: false)))
            let outcome = try await attempt.wait(for: "erin's join", timeout: .seconds(10)) {
                if case .failedToConnect = $0 { return true }
                return $0.name == "connected"
            }
            if outcome.name == "connected" { erin = attempt } else { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(erin != nil, "a join works again after the database is back")
        #expect(cluster.nodes.allSatisfy { $0.process.isRunning }, "no node crashed")
        var daveRecord: [String: Any] = [:]
        let caughtUp = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < caughtUp {
            (_, daveRecord) = try await DevREST.call(port: other, "GET", "/v1/Rooms/outage/Participants/dave")
            if daveRecord["status"] as? String == "disconnected" { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(daveRecord["status"] as? String == "disconnected", "the store caught up: \(daveRecord)")
        // Both nodes listen again: an action at the non-owner reaches the owner.
        var relayed = 0
        let relisten = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < relisten {
            (relayed, _) = try await DevREST.call(
                port: other, "POST", "/v1/Rooms/outage/Participants/bob/SubscribeRules",
                form: ["Rules": #"[{"type":"include","all":true}]"#])
            if relayed == 200 { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(relayed == 200, "a REST action through the non-owner after the outage")
        #expect(await RoomMediaTests.framesRead(bob, from: "alice") > framesAtStop + framesDuring)
        for room in [alice, bob, erin].compactMap({ $0 }) { room.room.disconnect() }
    }

    /// REST actions made at the node that does not own the room are carried
    /// out by the owner (LISTEN/NOTIFY): subscribe rules take effect, a
    /// server message arrives, a removed participant is disconnected and
    /// completing the room ends it for everyone; the answers are the
    /// owner's, and every node then reads the same JSON.
    @Test func restActionsAtANonOwnerAreCarriedOutByTheOwner() async throws {
        let cluster = try await ClientHarness.offPool { try Cluster(count: 2) }
        defer { cluster.stop() }
        let alice = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("alice", room: "relayed", publishing: true)))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let bob = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("bob", room: "relayed", publishing: false)))
        let carol = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("carol", room: "relayed", publishing: false)))
        try await bob.wait(until: "bob decodes alice", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 10
        }
        try await carol.wait(for: "carol connected") { $0.name == "connected" }
        let owner = try #require(alice.room.signalingURL?.port)
        let other = try #require(cluster.ports.first { $0 != owner })
        #expect(bob.room.signalingURL?.port == owner && carol.room.signalingURL?.port == owner)

        // What only the owner knows (subscriptions, media stats) reads the same at every node.
        var subscribed: [String] = []
        for port in cluster.ports {
            let (status, list) = try await DevREST.call(port: port, "GET", "/v1/Rooms/relayed/Participants/bob/SubscribedTracks")
            #expect(status == 200 && (list["subscribed_tracks"] as? [Any])?.count == 2, "node \(port): \(status) \(list)")
            subscribed.append(Self.normalized(list, port: port))
            let (_, stats) = try await DevREST.call(port: port, "GET", "/v1/Rooms/relayed/Stats")
            #expect((stats["participants"] as? [Any])?.count == 3, "node \(port): \(stats)")
        }
        #expect(Set(subscribed).count == 1, "\(subscribed)")

        // Subscribe rules: bob stops receiving alice's tracks.
        let (rulesStatus, rules) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/relayed/Participants/bob/SubscribeRules",
            form: ["Rules": #"[{"type":"exclude","all":true}]"#])
        #expect(rulesStatus == 200, "\(rules)")
        #expect((rules["rules"] as? [[String: Any]])?.first?["type"] as? String == "exclude", "\(rules)")
        try await bob.wait(for: "bob unsubscribed from alice's camera", timeout: .seconds(10)) {
            $0.name == "trackUnsubscribed(alice,camera)"
        }
        for port in cluster.ports {
            let (_, read) = try await DevREST.call(port: port, "GET", "/v1/Rooms/relayed/Participants/bob/SubscribeRules")
            #expect(Self.normalized(read, port: port) == Self.normalized(rules, port: other), "node \(port): \(read)")
        }

        // A server message reaches bob.
        let (messageStatus, message) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/relayed/Participants/bob/Messages", form: ["Content": #"{"hello":"bob"}"#])
        #expect(messageStatus == 201 && (message["sid"] as? String)?.hasPrefix("ME") == true, "\(message)")
        try await bob.wait(for: "bob receives the server message", timeout: .seconds(10)) {
            if case .messageReceived(let received) = $0 { return received.content == #"{"hello":"bob"}"# }
            return false
        }

        // A message near the 10 KB limit: more than one NOTIFY (8000 bytes)
        // carries it there and its answer back.
        let big = #"{"k":""# + String(repeating: "é", count: 5_000) + #""}"#
        let (bigStatus, bigBody) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/relayed/Participants/bob/Messages", form: ["Content": big])
        #expect(bigStatus == 201 && bigBody["content"] as? String == big, "\(bigStatus) \(bigBody["code"] ?? "")")
        try await bob.wait(for: "bob receives the big message", timeout: .seconds(10)) {
            if case .messageReceived(let received) = $0 { return received.content == big }
            return false
        }

        // Removing carol: she is disconnected with 53216, and both nodes
        // read her the same, disconnected, as the answer said.
        let (removeStatus, removed) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/relayed/Participants/carol", form: ["Status": "disconnected"])
        #expect(removeStatus == 202 && removed["status"] as? String == "disconnected", "\(removeStatus) \(removed)")
        // Read at once: the owner answers once its records are in the database.
        for port in cluster.ports {
            let (_, read) = try await DevREST.call(port: port, "GET", "/v1/Rooms/relayed/Participants/carol")
            #expect(Self.normalized(read, port: port) == Self.normalized(removed, port: other), "node \(port): \(read)")
        }
        try await carol.wait(for: "carol removed", timeout: .seconds(10)) { $0.name == "disconnected(53216)" }

        // Completing the room: alice and bob see it end (53118), and every
        // node reads it completed, as the answer said.
        let (completeStatus, completed) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/relayed", form: ["Status": "completed"])
        #expect(completeStatus == 202 && completed["status"] as? String == "completed", "\(completeStatus) \(completed)")
        for port in cluster.ports {
            let (_, read) = try await DevREST.call(port: port, "GET", "/v1/Rooms/relayed")
            #expect(Self.normalized(read, port: port) == Self.normalized(completed, port: other), "node \(port): \(read)")
        }
        try await alice.wait(for: "alice sees the room end", timeout: .seconds(10)) { $0.name == "disconnected(53118)" }
        try await bob.wait(for: "bob sees the room end", timeout: .seconds(10)) { $0.name == "disconnected(53118)" }
        // Once ended, the local rules answer at every node: 53112.
        for port in cluster.ports {
            let (status, again) = try await DevREST.call(port: port, "POST", "/v1/Rooms/relayed", form: ["Status": "completed"])
            #expect(status == 400 && again["code"] as? Int == 53112, "node \(port): \(status) \(again)")
        }
        // Errors are the owner's too: an unknown participant of a room in progress.
        let dave = RecordedRoom(Room.connect(
            to: cluster.url(other == cluster.ports[0] ? 1 : 0), options: try await cluster.options("dave", room: "relayed-2", publishing: false)))
        try await dave.wait(for: "dave connected") { $0.name == "connected" }
        let daveNode = try #require(dave.room.signalingURL?.port)
        let notDaves = try #require(cluster.ports.first { $0 != daveNode })
        let (unknownStatus, unknown) = try await DevREST.call(
            port: notDaves, "POST", "/v1/Rooms/relayed-2/Participants/zed", form: ["Status": "disconnected"])
        #expect(unknownStatus == 404 && unknown["code"] as? Int == 53204, "\(unknownStatus) \(unknown)")
        dave.room.disconnect()
    }

    /// An owner that does not answer (stopped with SIGSTOP: live in the node
    /// table for 10 s more) costs the 5 s timeout, then 503 53006; once the
    /// table says it is dead, 503 53006 comes at once.
    @Test func anUnreachableOwnerIs53006() async throws {
        let cluster = try await ClientHarness.offPool { try Cluster(count: 2) }
        defer { cluster.stop() }
        let alice = RecordedRoom(Room.connect(
            to: cluster.url(0), options: try await cluster.options("alice", room: "stranded", publishing: false)))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let owner = try #require(alice.room.signalingURL?.port)
        let other = try #require(cluster.ports.first { $0 != owner })
        let ownerProcess = cluster.nodes[try #require(cluster.ports.firstIndex(of: owner))].process
        // Reachable first: the owner answers (an unknown participant) at once.
        let (reachable, answer) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/stranded/Participants/zed", form: ["Status": "disconnected"])
        #expect(reachable == 404 && answer["code"] as? Int == 53204, "\(reachable) \(answer)")

        kill(ownerProcess.processIdentifier, SIGSTOP)
        defer { kill(ownerProcess.processIdentifier, SIGKILL) }
        let silent = ContinuousClock.now
        let (status, body) = try await DevREST.call(
            port: other, "POST", "/v1/Rooms/stranded/Participants/alice", form: ["Status": "disconnected"])
        let waited = ContinuousClock.now - silent
        #expect(status == 503 && body["code"] as? Int == 53006, "\(status) \(body)")
        #expect(waited >= .seconds(4.5) && waited < .seconds(8), "answered after \(waited)")

        // Dead (silent 10 s, by the database's clock): at once.
        try await Task.sleep(until: silent + .seconds(12))
        let dead = ContinuousClock.now
        let (deadStatus, deadBody) = try await DevREST.call(port: other, "POST", "/v1/Rooms/stranded", form: ["Status": "completed"])
        #expect(deadStatus == 503 && deadBody["code"] as? Int == 53006, "\(deadStatus) \(deadBody)")
        #expect(ContinuousClock.now - dead < .seconds(1), "answered after \(ContinuousClock.now - dead)")
    }

    /// A join held up by the database (its placement table locked) is
    /// answered 53006 once the placement timeout (3 s) passes, while the
    /// lock is still held; meanwhile the socket stays up, though the
    /// server's WebSocket pings (every 0.5 s here) need the client's pongs
    /// read. Once the table is free, a join goes through.
    @Test func aJoinHeldUpByTheDatabaseIs53006AndItsSocketStaysUpMeanwhile() async throws {
        let cluster = try await ClientHarness.offPool { try Cluster(count: 1, extra: ["--ping-interval", "0.5"]) }
        defer { cluster.stop() }
        let lock = try await ClientHarness.offPool {
            try cluster.database.holdLock(on: "room_placement", seconds: 10, database: "vroom")
        }
        defer { lock.terminate() }
        let alice = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("alice", room: "held", publishing: false)))
        let refused = try await alice.wait(for: "alice's join answered", timeout: .seconds(15)) {
            if case .failedToConnect = $0 { return true }
            return $0.name == "connected"
        }
        #expect(refused.name == "failedToConnect(53006)", "\(alice.names)")
        #expect(lock.isRunning, "answered while the table was still locked")

        while lock.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        let bob = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("bob", room: "held", publishing: false)))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        bob.room.disconnect()
    }

    /// The port of the node that owns the placement of `room`, as the
    /// database has it; nil when none does.
    static func placementOwner(_ cluster: Cluster, _ room: String) throws -> Int? {
        let url = try cluster.database.query(
            "SELECT n.url FROM room_placement p JOIN node n ON n.id = p.node_id WHERE p.unique_name = '\(room)'",
            database: "vroom")
        return url.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// A REST create is carried out by the node that owns the name
    /// (PROTOCOL.md section 8: the REST API answers the same on every
    /// node). A refused join left the name placed on some node with no
    /// room; a create at the other node was 53113 there and 201 at the
    /// owner. And a draining node places no new room on itself: its
    /// create lands on the live active node.
    @Test func aRESTCreateIsCarriedOutByTheNamesOwnerAndNeverOnADrainingNode() async throws {
        let cluster = try await ClientHarness.offPool {
            try Cluster(count: 2, extra: ["--no-auto-create", "--drain-timeout", "60"])
        }
        defer { cluster.stop() }
        let gus = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("gus", room: "ghost", publishing: false)))
        let refused = try await gus.wait(for: "gus's join answered") {
            if case .failedToConnect = $0 { return true }
            return $0.name == "connected"
        }
        #expect(refused.name == "failedToConnect(53106)", "\(gus.names)")
        let owner = try #require(try Self.placementOwner(cluster, "ghost"), "the refused join placed the name")
        let other = try #require(cluster.ports.first { $0 != owner })
        let (created, room) = try await DevREST.call(port: other, "POST", "/v1/Rooms", form: ["UniqueName": "ghost"])
        #expect(created == 201, "\(room)")
        for port in cluster.ports {
            let (status, body) = try await DevREST.call(port: port, "POST", "/v1/Rooms", form: ["UniqueName": "ghost"])
            #expect(status == 409 && body["code"] as? Int == 53113, "node \(port): \(status) \(body)")
        }
        let hank = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("hank", room: "ghost", publishing: false)))
        try await hank.wait(for: "hank connected to the created room") { $0.name == "connected" }
        #expect(hank.room.signalingURL?.port == owner, "the room lives on the name's owner")

        // Node 1 drains (ivy keeps a room on it, so it stays up meanwhile;
        // hank too when it owns "ghost").
        let draining = cluster.ports[1]
        let (kept, _) = try await DevREST.call(port: draining, "POST", "/v1/Rooms", form: ["UniqueName": "kept"])
        #expect(kept == 201)
        #expect(try Self.placementOwner(cluster, "kept") == draining)
        // A create refused after its claim (53107) leaves the name placed
        // on node 1 with no room.
        let (refusedCreate, _) = try await DevREST.call(
            port: draining, "POST", "/v1/Rooms", form: ["UniqueName": "held", "MaxParticipants": "999"])
        #expect(refusedCreate == 400)
        #expect(try Self.placementOwner(cluster, "held") == draining)
        let ivy = RecordedRoom(Room.connect(to: cluster.url(1), options: try await cluster.options("ivy", room: "kept", publishing: false)))
        try await ivy.wait(for: "ivy connected") { $0.name == "connected" }
        let (accepted, _) = try await DevREST.call(port: draining, "POST", "/v1/Node/Drain")
        #expect(accepted == 202)
        _ = try cluster.nodes[1].waitFor(#"(draining: [12] participant)"#)
        let (fresh, body) = try await DevREST.call(port: draining, "POST", "/v1/Rooms", form: ["UniqueName": "fresh"])
        #expect(fresh == 201, "\(body)")
        #expect(try Self.placementOwner(cluster, "fresh") == cluster.ports[0], "placed on the active node")
        // The draining node's own placement with no room goes to the active node too.
        let (held, heldBody) = try await DevREST.call(port: draining, "POST", "/v1/Rooms", form: ["UniqueName": "held"])
        #expect(held == 201, "\(heldBody)")
        #expect(try Self.placementOwner(cluster, "held") == cluster.ports[0], "moved off the draining node")
        ivy.room.disconnect()
        hank.room.disconnect()
    }

    @Test func aKilledOwnersPendingStatusCallbacksAreDeliveredByTheOtherNodeWithoutGaps() async throws {
        // The room's StatusCallback receiver is down (connections refused)
        // while the owner queues the room's callbacks.
        let receiver = try CallbackReceiver(listening: false)
        defer { receiver.stop() }
        let cluster = try await ClientHarness.offPool {
            try Cluster(count: 2, extra: ["--webhook-retry-base", "0.2", "--webhook-retry-max", "1"])
        }
        defer { cluster.stop() }
        let ownerID = try await ClientHarness.offPool { try cluster.nodes[0].waitFor(#"cluster: node (NO\w+) at"#) }
        let (created, room) = try await DevREST.call(
            port: cluster.ports[0], "POST", "/v1/Rooms",
            form: ["UniqueName": "durable", "StatusCallback": "http://127.0.0.1:\(receiver.port)/hooks/durable"])
        #expect(created == 201, "created on node 0: \(room)")
        let roomSID = try #require(room["sid"] as? String)
        // Participants join the owner (node 0) and leave: connected, tracks
        // added, tracks removed, disconnected.
        let alice = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("alice", room: "durable", publishing: true)))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let bob = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("bob", room: "durable", publishing: false)))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        #expect(alice.room.signalingURL?.port == cluster.ports[0])
        alice.room.disconnect()
        bob.room.disconnect()

        // Every callback is in the database, numbered without a gap, queued by the owner.
        func rows() async throws -> [String] {
            try await ClientHarness.offPool {
                try cluster.database.query(
                    "SELECT count(*), coalesce(max(sequence_number), -1), string_agg(DISTINCT enqueued_by, ',') FROM webhook_outbox WHERE room_sid = '\(roomSID)'",
                    database: "vroom"
                ).components(separatedBy: "|")
            }
        }
        var queued: [String] = []
        let settled = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < settled {
            let now = try await rows()
            if now == queued, let count = Int(now[0]), count >= 5 { break }
            queued = now
            try await Task.sleep(for: .seconds(1))
        }
        let count = try #require(Int(queued.first ?? ""))
        #expect(count >= 5 && queued == ["\(count)", "\(count - 1)", ownerID], "queued: \(queued)")
        #expect(receiver.all.isEmpty)

        // The owner dies (no shutdown: whatever it had leased stays leased
        // until the lease expires); the receiver comes back.
        kill(cluster.nodes[0].process.processIdentifier, SIGKILL)
        #expect(cluster.nodes[0].waitForExit(seconds: 5))
        try receiver.startListening()

        // Node 1 delivers them all, in order: repeats allowed, gaps not.
        let delivered = ContinuousClock.now + .seconds(60)
        var numbers: [Int] = []
        while ContinuousClock.now < delivered {
            numbers = receiver.all.filter { $0.status < 300 }.compactMap { $0.parameter("SequenceNumber").flatMap(Int.init) }
            if Set(numbers).count >= count { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        var firstArrivals: [Int] = []
        for number in numbers where !firstArrivals.contains(number) { firstArrivals.append(number) }
        #expect(firstArrivals == Array(0..<count), "SequenceNumbers in arrival order: \(numbers)")
        #expect(receiver.all.allSatisfy { $0.parameter("RoomSid") == roomSID })
        #expect(receiver.all.first?.parameter("StatusCallbackEvent") == "room-created")
        #expect(cluster.nodes[1].process.isRunning)
        var left = try await rows()
        for _ in 0..<25 where left.first != "0" {
            try await Task.sleep(for: .milliseconds(200))
            left = try await rows()
        }
        #expect(left.first == "0", "delivered rows leave the table: \(left)")
    }

    /// A database slow to answer about message subscriptions (their table
    /// locked) holds up the message callbacks that need them, never the
    /// room's status callbacks: bob's participant-connected arrives while
    /// alice's message waits, and the message callback follows once the
    /// table is free.
    @Test func aSlowMessageSubscriptionReadDoesNotHoldUpStatusCallbacks() async throws {
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        let cluster = try await ClientHarness.offPool { try Cluster(count: 1) }
        defer { cluster.stop() }
        let (created, _) = try await DevREST.call(
            port: cluster.ports[0], "POST", "/v1/Rooms",
            form: ["UniqueName": "chatty", "StatusCallback": "http://127.0.0.1:\(receiver.port)/hooks"])
        #expect(created == 201)
        let alice = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("alice", room: "chatty", publishing: false)))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let (subscribed, _) = try await DevREST.call(
            port: cluster.ports[0], "POST", "/v1/Rooms/chatty/Participants/alice/MessageSubscriptions",
            form: ["Callback": "http://127.0.0.1:\(receiver.port)/messages"])
        #expect(subscribed == 201)

        let lock = try await ClientHarness.offPool {
            try cluster.database.holdLock(on: "message_subscription", seconds: 8, database: "vroom")
        }
        defer { lock.terminate() }
        _ = alice.room.sendMessage(#"{"hello":1}"#)
        try await Task.sleep(for: .milliseconds(300))  // the message's subscription read is waiting
        let bob = RecordedRoom(Room.connect(to: cluster.url(0), options: try await cluster.options("bob", room: "chatty", publishing: false)))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        try await bob.wait(until: "bob's participant-connected is delivered", timeout: .seconds(15)) {
            receiver.all.contains {
                $0.target == "/hooks" && $0.parameter("StatusCallbackEvent") == "participant-connected"
                    && $0.parameter("ParticipantIdentity") == "bob"
            }
        }
        #expect(lock.isRunning, "delivered while the subscription read still waited")
        #expect(!receiver.all.contains { $0.target == "/messages" })
        try await bob.wait(until: "alice's message callback once the table is free", timeout: .seconds(20)) {
            receiver.all.contains { $0.target == "/messages" }
        }
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// JSON with sorted keys, and this node's address replaced by a placeholder.
    static func normalized(_ value: [String: Any], port: Int) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "127.0.0.1:\(port)", with: "NODE")
            .replacingOccurrences(of: "127.0.0.1\\/:\(port)", with: "NODE")
    }
}
}
