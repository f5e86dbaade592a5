import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VroomTesting

/// The admin REST API (PROTOCOL.md section 6) of a real `vroom-server --dev`
/// process, with real WebSocket participants, and across a restart on the
/// same history file.
extension ServerProcessTests {
@Suite struct AdminRESTEndToEndTests {
    /// A server on kernel-chosen loopback ports over a history file that
    /// outlives it (the restart test starts a second one on the same file).
    final class Server: Sendable {
        let running: DevServerTests.RunningServer
        let port: Int

        init(db: URL) throws {
            running = try DevServerTests.RunningServer(
                arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1", "--db", db.path])
            port = Int(try running.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#))!
        }

        func stop() { running.stop() }

        func client(_ identity: String) throws -> SignalingClient {
            SignalingClient(port: port, token: try AdminRESTEndToEndTests.token(identity))
        }

        func rest(_ method: String, _ path: String, form: [String: String]? = nil, authorized: Bool = true) async throws -> (Int, [String: Any]) {
            try await DevREST.call(port: port, method, path, form: form, authorized: authorized)
        }
    }

    /// A token from `vroom-server token --dev`.
    static func token(_ identity: String) throws -> String {
        try ServerProcess.devToken(identity: identity)
    }

    static func temporaryDatabase() throws -> (directory: URL, db: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-rest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("vroom.sqlite"))
    }

    func join(_ client: SignalingClient, room: String = "standup") async throws -> [String: Any] {
        client.send(["type": "join", "id": "j", "room": room])
        return try await client.next("joined")
    }

    @Test func aJoinedParticipantIsListedByREST() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try Server(db: db)
        defer { server.stop() }
        let alice = try server.client("alice")
        let joined = try await join(alice)
        let aliceSID = try #require((joined["participant"] as? [String: Any])?["sid"] as? String)
        let roomSID = try #require((joined["room"] as? [String: Any])?["sid"] as? String)

        let (unauthorized, refusal) = try await server.rest("GET", "/v1/Rooms", authorized: false)
        #expect(unauthorized == 401)
        #expect(refusal["code"] as? Int == 20003)

        let (status, list) = try await server.rest("GET", "/v1/Rooms/standup/Participants")
        #expect(status == 200)
        let participants = try #require(list["participants"] as? [[String: Any]])
        #expect(participants.count == 1)
        #expect(participants.first?["sid"] as? String == aliceSID)
        #expect(participants.first?["identity"] as? String == "alice")
        #expect(participants.first?["status"] as? String == "connected")
        #expect(participants.first?["url"] as? String == "http://127.0.0.1:\(server.port)/v1/Rooms/\(roomSID)/Participants/\(aliceSID)")

        let (_, rooms) = try await server.rest("GET", "/v1/Rooms?Status=in-progress")
        #expect((rooms["rooms"] as? [[String: Any]])?.map { $0["sid"] as? String } == [roomSID])
        await alice.close()
    }

    @Test func completingTheRoomDisconnectsItsParticipantsWith53118() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try Server(db: db)
        defer { server.stop() }
        let alice = try server.client("alice")
        _ = try await join(alice)

        let (status, room) = try await server.rest("POST", "/v1/Rooms/standup", form: ["Status": "completed"])
        #expect(status == 202)
        #expect(room["status"] as? String == "completed")
        let disconnected = try await alice.next("disconnected")
        #expect(disconnected["code"] as? Int == 53118)
        try await alice.waitClosed()

        let (fetched, completed) = try await server.rest("GET", "/v1/Rooms/standup")
        #expect(fetched == 200)
        #expect(completed["status"] as? String == "completed")
        #expect(completed["end_time"] is String)
        #expect(completed["duration"] is Int)
        let (again, refusal) = try await server.rest("POST", "/v1/Rooms/standup", form: ["Status": "completed"])
        #expect(again == 400)
        #expect(refusal["code"] as? Int == 53112)
    }

    @Test func removingAParticipantDisconnectsItWith53216() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try Server(db: db)
        defer { server.stop() }
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        _ = try await join(alice)
        let bobJoined = try await join(bob)
        let bobSID = try #require((bobJoined["participant"] as? [String: Any])?["sid"] as? String)

        let (status, removed) = try await server.rest("POST", "/v1/Rooms/standup/Participants/bob", form: ["Status": "disconnected"])
        #expect(status == 202)
        #expect(removed["sid"] as? String == bobSID)
        #expect(removed["status"] as? String == "disconnected")
        let disconnected = try await bob.next("disconnected")
        #expect(disconnected["code"] as? Int == 53216)
        try await bob.waitClosed()
        let gone = try await alice.next("participantDisconnected")
        #expect(gone["participantSid"] as? String == bobSID)

        let (_, list) = try await server.rest("GET", "/v1/Rooms/standup/Participants")
        #expect((list["participants"] as? [[String: Any]])?.map { $0["identity"] as? String } == ["alice"])
        await alice.close()
    }

    @Test func afterARestartRoomsInProgressReadFailedAndCompletedOnesStay() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try Server(db: db)
        let alice = try first.client("alice")
        let joined = try await join(alice, room: "live")
        let liveSID = try #require((joined["room"] as? [String: Any])?["sid"] as? String)
        let (created, done) = try await first.rest("POST", "/v1/Rooms", form: ["UniqueName": "done"])
        #expect(created == 201)
        let doneSID = try #require(done["sid"] as? String)
        #expect(try await first.rest("POST", "/v1/Rooms/done", form: ["Status": "completed"]).0 == 202)
        await alice.close()
        first.stop()
        #expect(first.running.process.terminationStatus == 0, "a clean stop flushes the history")

        let second = try Server(db: db)
        defer { second.stop() }
        let (status, live) = try await second.rest("GET", "/v1/Rooms/\(liveSID)")
        #expect(status == 200)
        #expect(live["status"] as? String == "failed")
        #expect(live["end_time"] is String)
        #expect(try await second.rest("GET", "/v1/Rooms/live").1["sid"] as? String == liveSID)
        let (_, completed) = try await second.rest("GET", "/v1/Rooms/\(doneSID)")
        #expect(completed["status"] as? String == "completed")
        let (_, participants) = try await second.rest("GET", "/v1/Rooms/live/Participants")
        let alicesRecord = try #require((participants["participants"] as? [[String: Any]])?.first)
        #expect(alicesRecord["identity"] as? String == "alice")
        #expect(alicesRecord["status"] as? String == "disconnected")
        let (_, failed) = try await second.rest("GET", "/v1/Rooms?Status=failed")
        #expect((failed["rooms"] as? [[String: Any]])?.map { $0["sid"] as? String } == [liveSID])
    }

    /// A server on `db` with room `name` (its `StatusCallback` on `receiver`),
    /// alice in it with an audio track, and the 3 callbacks of that delivered.
    func roomWithATrack(_ name: String, db: URL, receiver: CallbackReceiver, callback: String) async throws
        -> (server: Server, roomSID: String, alice: SignalingClient, before: [CallbackReceiver.Request])
    {
        let server = try Server(db: db)
        let (created, room) = try await server.rest("POST", "/v1/Rooms", form: ["UniqueName": name, "StatusCallback": callback])
        #expect(created == 201)
        let roomSID = try #require(room["sid"] as? String)
        let alice = try server.client("alice")
        _ = try await join(alice, room: name)
        try await SignalingEndToEndTests().publish(alice, name: "mic")
        let before = try await WebhookEndToEndTests.waitForAccepted(receiver, count: 3)
        #expect(before.map { $0.parameter("StatusCallbackEvent") } == ["room-created", "participant-connected", "track-added"])
        return (server, roomSID, alice, before)
    }

    /// The room's callbacks after it ended with alice and her track in it:
    /// the 3 of `roomWithATrack`, then its end, numbered on.
    static func checkEndedWithTheTrack(_ all: [CallbackReceiver.Request]) {
        #expect(all.map { $0.parameter("StatusCallbackEvent") } == [
            "room-created", "participant-connected", "track-added",
            "track-removed", "participant-disconnected", "room-ended",
        ])
        #expect(all.map { $0.parameter("SequenceNumber") } == ["0", "1", "2", "3", "4", "5"])
    }

    /// A node killed (SIGKILL: no drain, no flush) with a participant and
    /// its track in a room that has a `StatusCallback`: started again on the
    /// same file, it ends the room before taking anyone, with the callbacks
    /// a running node sends, numbered on after those sent before the kill.
    @Test func aRoomInterruptedByAKillEndsWithItsCallbacksAfterTheRestart() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        let callback = "http://127.0.0.1:\(receiver.port)/status"

        let (first, roomSID, alice, before) = try await roomWithATrack("killed", db: db, receiver: receiver, callback: callback)
        defer { first.stop() }
        first.running.kill9()
        #expect(first.running.waitForExit(seconds: 10))
        await alice.close()

        let second = try Server(db: db)
        defer { second.stop() }
        let all = try await WebhookEndToEndTests.waitForAccepted(receiver, count: 6)
        Self.checkEndedWithTheTrack(all)
        let ending = all.dropFirst(3)
        #expect(ending.allSatisfy { $0.parameter("RoomSid") == roomSID }, "\(ending.map(\.parameters))")
        // The room ends after its participants, as when it completes.
        #expect(ending.map { $0.parameter("RoomStatus") } == ["in-progress", "in-progress", "failed"])
        #expect(ending.dropFirst().first?.parameter("ParticipantStatus") == "disconnected")
        #expect(ending.first?.parameter("TrackSid") == before.last?.parameter("TrackSid"))
        #expect(ending.dropLast().allSatisfy { $0.parameter("ParticipantIdentity") == "alice" })
        for request in ending {
            #expect(request.headers["x-vroom-signature"] == WebhookEndToEndTests.signature(url: callback, parameters: request.parameters))
        }
        let (_, ended) = try await second.rest("GET", "/v1/Rooms/\(roomSID)")
        #expect(ended["status"] as? String == "failed")
        // A third start finds nothing more to end.
        second.stop()
        let third = try Server(db: db)
        defer { third.stop() }
        #expect(try await third.rest("GET", "/v1/Rooms/\(roomSID)").1["status"] as? String == "failed")
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.all.count == 6)
    }

    /// A node stopped with SIGTERM while a participant stays (the second
    /// SIGTERM, a second later, ends the drain's wait): it ends the room
    /// itself, `failed`, and delivers the callbacks before it exits. The
    /// next start has nothing left to end.
    @Test func aNodeStoppedWithARoomInProgressEndsItWithItsCallbacksBeforeItExits() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        let callback = "http://127.0.0.1:\(receiver.port)/status"

        let (first, roomSID, alice, _) = try await roomWithATrack("stopped", db: db, receiver: receiver, callback: callback)
        first.stop()
        #expect(first.running.process.terminationStatus == 0)
        // Delivered before the process exited: no waiting here.
        let all = receiver.all
        Self.checkEndedWithTheTrack(all)
        #expect(all.last?.parameter("RoomStatus") == "failed")
        await alice.close()

        let second = try Server(db: db)
        defer { second.stop() }
        let (_, ended) = try await second.rest("GET", "/v1/Rooms/\(roomSID)")
        #expect(ended["status"] as? String == "failed")
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.all.count == 6)
    }

    @Test func aParticipantsMessagesArePostedToItsMessageSubscription() async throws {
        let (directory, db) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        let server = try Server(db: db)
        defer { server.stop() }
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        let aliceJoined = try await join(alice)
        let aliceSID = try #require((aliceJoined["participant"] as? [String: Any])?["sid"] as? String)
        _ = try await join(bob)

        let callback = "http://127.0.0.1:\(receiver.port)/messages"
        let (status, _) = try await server.rest(
            "POST", "/v1/Rooms/standup/Participants/alice/MessageSubscriptions",
            form: ["Callback": callback])
        #expect(status == 201)
        alice.send(["type": "sendMessage", "id": "m", "content": "{\"k\":1}", "contentType": "application/json"])
        let sent = try await alice.next("messageSent")
        _ = try await bob.next("message")

        // Generous: the outbox posts at once; 10 s covers a loaded machine.
        let deadline = Date().addingTimeInterval(10)
        while receiver.received.isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let body = try #require(receiver.received.first)
        let posted = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(posted["Sid"] as? String == sent["sid"] as? String)
        #expect(posted["ParticipantSid"] as? String == aliceSID)
        #expect(posted["Content"] as? String == "{\"k\":1}")
        #expect(posted["SequenceNumber"] as? Int == 0)
        await alice.close()
        await bob.close()
    }
}
}
