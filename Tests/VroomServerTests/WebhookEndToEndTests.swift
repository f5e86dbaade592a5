import COpenSSL
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VroomTesting

/// Status callbacks (PROTOCOL.md section 6) through a real `vroom-server
/// --dev` process: a room created by REST with a `StatusCallback` on a
/// loopback receiver, a participant that joins, publishes, disables and
/// enables its track, unpublishes and leaves, and the room completed by REST.
/// The receiver must see every event kind once, in order, numbered from 0
/// and signed with `X-Vroom-Signature`, also when it was down for a while.
extension ServerProcessTests {
@Suite struct WebhookEndToEndTests {
    /// Every `StatusCallbackEvent` the scenario causes, in the order it causes them.
    static let expectedEvents = [
        "room-created", "participant-connected", "track-added", "track-disabled",
        "track-enabled", "track-removed", "participant-disconnected", "room-ended",
    ]

    static func rest(port: Int, _ method: String, _ path: String, form: [String: String]? = nil) async throws -> (Int, [String: Any]) {
        try await DevREST.call(port: port, method, path, form: form)
    }

    /// base64(HMAC-SHA256(secret, url + sorted name+value pairs)): the
    /// recipe of PROTOCOL.md section 6, computed independently of the server.
    static func signature(url: String, parameters: [(name: String, value: String)], secret: String = "devsecret") -> String {
        var text = url
        for parameter in parameters.sorted(by: { ($0.name, $0.value) < ($1.name, $1.value) }) {
            text += parameter.name + parameter.value
        }
        let key = Array(secret.utf8)
        let data = Array(text.utf8)
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &mac, &length)
        return Data(mac.prefix(Int(length))).base64EncodedString()
    }

    /// Drives the whole scenario; returns the room, participant and track SIDs.
    static func runScenario(server: SignalingEndToEndTests.Server, callback: String) async throws -> (room: String, participant: String, track: String) {
        let (created, room) = try await rest(
            port: server.port, "POST", "/v1/Rooms", form: ["UniqueName": "hooks", "StatusCallback": callback])
        #expect(created == 201)
        let roomSID = try #require(room["sid"] as? String)
        #expect(room["status_callback"] as? String == callback)

        let alice = try server.client("alice")
        alice.send(["type": "join", "id": "j", "room": "hooks"])
        let joined = try await alice.next("joined")
        let aliceSID = try #require((joined["participant"] as? [String: Any])?["sid"] as? String)

        try await SignalingEndToEndTests().publish(alice, name: "mic")
        let answer = try await alice.next("publishAnswer")
        let trackSID = try #require((answer["tracks"] as? [[String: Any]])?.first?["sid"] as? String)

        for (id, enabled) in [("off", false), ("on", true)] {
            alice.send(["type": "setTrackEnabled", "id": id, "trackSid": trackSID, "enabled": enabled])
            try await alice.next("ok", where: { $0["id"] as? String == id })
        }
        alice.send(["type": "unpublish", "id": "u", "trackSid": trackSID])
        try await alice.next("ok", where: { $0["id"] as? String == "u" })
        alice.send(["type": "leave"])
        try await alice.waitClosed()

        let (completed, ended) = try await rest(port: server.port, "POST", "/v1/Rooms/\(roomSID)", form: ["Status": "completed"])
        #expect(completed == 202)
        #expect(ended["status"] as? String == "completed")
        return (roomSID, aliceSID, trackSID)
    }

    /// Waits (generously: 60 s covers retries on a loaded machine) until the
    /// receiver accepted `count` requests.
    static func waitForAccepted(_ receiver: CallbackReceiver, count: Int, seconds: Double = 60) async throws -> [CallbackReceiver.Request] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let accepted = receiver.all.filter { $0.status < 300 }
            if accepted.count >= count { return accepted }
            try await Task.sleep(for: .milliseconds(50))
        }
        return receiver.all.filter { $0.status < 300 }
    }

    /// The checks shared by both tests: every kind once, in order, numbered
    /// 0..<8, about the right room, participant and track, correctly signed.
    static func checkDelivered(
        _ accepted: [CallbackReceiver.Request], callback: String, sids: (room: String, participant: String, track: String)
    ) {
        #expect(accepted.map { $0.parameter("StatusCallbackEvent") ?? "?" } == expectedEvents)
        #expect(accepted.map { $0.parameter("SequenceNumber") } == (0..<expectedEvents.count).map { String($0) })
        for request in accepted {
            let event = request.parameter("StatusCallbackEvent") ?? "?"
            #expect(request.method == "POST")
            #expect(request.target == "/status")
            #expect(request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
            #expect(request.parameter("RoomSid") == sids.room, "\(event)")
            #expect(request.parameter("RoomName") == "hooks", "\(event)")
            #expect(request.parameter("Timestamp") != nil, "\(event)")
            let signature = request.headers["x-vroom-signature"]
            #expect(signature != nil, "\(event) is unsigned")
            #expect(signature == Self.signature(url: callback, parameters: request.parameters), "\(event): bad signature")
            if event.hasPrefix("participant-") || event.hasPrefix("track-") {
                #expect(request.parameter("ParticipantSid") == sids.participant, "\(event)")
                #expect(request.parameter("ParticipantIdentity") == "alice", "\(event)")
            }
            if event.hasPrefix("track-") {
                #expect(request.parameter("TrackSid") == sids.track, "\(event)")
                #expect(request.parameter("TrackName") == "mic", "\(event)")
                #expect(request.parameter("TrackKind") == "audio", "\(event)")
            }
        }
        #expect(accepted.last?.parameter("RoomStatus") == "completed")
        #expect(accepted.first { $0.parameter("StatusCallbackEvent") == "participant-disconnected" }?
            .parameter("ParticipantStatus") == "disconnected")
    }

    @Test func everyStatusCallbackArrivesOnceInOrderAndSigned() async throws {
        let receiver = try CallbackReceiver()
        defer { receiver.stop() }
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        let callback = "http://127.0.0.1:\(receiver.port)/status"

        let sids = try await Self.runScenario(server: server, callback: callback)
        let accepted = try await Self.waitForAccepted(receiver, count: Self.expectedEvents.count)
        // Nothing more trickles in after the last one (no duplicates).
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.all.count == Self.expectedEvents.count)
        #expect(receiver.all.allSatisfy { $0.status == 200 })
        Self.checkDelivered(accepted, callback: callback, sids: sids)
    }

    @Test func aReceiverThatWasDownStillGetsEveryEventOnceInOrder() async throws {
        // Down: the port refuses connections while the whole scenario runs.
        let receiver = try CallbackReceiver(listening: false)
        defer { receiver.stop() }
        let server = try SignalingEndToEndTests.Server(["--webhook-retry-base", "0.2", "--webhook-retry-max", "1"])
        defer { server.stop() }
        let callback = "http://127.0.0.1:\(receiver.port)/status"

        let sids = try await Self.runScenario(server: server, callback: callback)
        try await Task.sleep(for: .seconds(2))
        #expect(receiver.all.isEmpty)
        // Up, but failing: 503 until it refused at least two attempts (up to
        // 30 s: the HTTP client backs off its own reconnects meanwhile).
        receiver.answer(with: 503)
        try receiver.startListening()
        let deadline = Date().addingTimeInterval(30)
        while receiver.all.count < 2 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        receiver.answer(with: 200)

        let accepted = try await Self.waitForAccepted(receiver, count: Self.expectedEvents.count)
        try await Task.sleep(for: .milliseconds(500))
        let refused = receiver.all.filter { $0.status == 503 }
        #expect(refused.count >= 2, "the receiver never answered 503 twice: the test did not exercise retries")
        // Only the head of the room's queue is tried while it fails.
        #expect(refused.allSatisfy { $0.parameter("SequenceNumber") == "0" })
        #expect(receiver.all.filter { $0.status == 200 }.count == Self.expectedEvents.count)
        Self.checkDelivered(accepted, callback: callback, sids: sids)
    }
}
}
