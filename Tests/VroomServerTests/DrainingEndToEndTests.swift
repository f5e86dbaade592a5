import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VroomTesting

/// `/healthz` is liveness and `/readyz` readiness (PROTOCOL.md section 6),
/// through a real server: ready, and draining after SIGTERM (full:
/// SignalingEndToEndTests). And the default `MaxParticipants` of ad-hoc rooms.
extension ServerProcessTests {
@Suite struct DrainingEndToEndTests {
    /// Status code and body of a GET; nil when nothing answers.
    static func get(_ port: Int, _ path: String) async -> (status: Int, body: String)? {
        guard let (body, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!),
            let http = response as? HTTPURLResponse
        else { return nil }
        return (http.statusCode, String(decoding: body, as: UTF8.self))
    }

    @Test func sigtermDrainsUntilTheLastParticipantLeaves() async throws {
        let server = try SignalingEndToEndTests.Server(["--drain-timeout", "30"])
        defer { server.stop() }
        let ready = await Self.get(server.port, "/readyz")
        #expect(ready?.status == 200)
        #expect(ready?.body == #"{"status":"ok"}"#)

        let alice = try server.client("alice")
        alice.send(["type": "join", "id": "j", "room": "closing-time"])
        _ = try await alice.next("joined")

        kill(server.running.process.processIdentifier, SIGTERM)
        _ = try server.running.waitFor("(draining: 1 participant)")
        // Draining: not ready, still alive, and the room goes on.
        let draining = await Self.get(server.port, "/readyz")
        #expect(draining?.status == 503)
        #expect(draining?.body == #"{"status":"draining"}"#)
        let alive = await Self.get(server.port, "/healthz")
        #expect(alive?.status == 200)
        #expect(alive?.body.contains(#""status":"ok""#) == true)
        alice.send(["type": "ping", "id": "p"])
        _ = try await alice.next("pong")
        #expect(server.running.process.isRunning)

        // The last participant leaves: the server stops, cleanly, well before the 30 s timeout.
        alice.send(["type": "leave"])
        try await alice.waitClosed()
        #expect(server.running.waitForExit(seconds: 15))
        #expect(server.running.process.terminationStatus == 0, "\(server.running.output)")
    }

    @Test func postNodeDrainDrainsAsSigtermDoesAndNeedsTheAPIKey() async throws {
        let server = try SignalingEndToEndTests.Server(["--drain-timeout", "30"])
        defer { server.stop() }
        let carol = try server.client("carol")
        carol.send(["type": "join", "id": "j", "room": "drained-by-rest"])
        _ = try await carol.next("joined")

        let (refused, _) = try await DevREST.call(port: server.port, "POST", "/v1/Node/Drain", authorized: false)
        #expect(refused == 401)
        #expect(await Self.get(server.port, "/readyz")?.status == 200)

        let (status, body) = try await DevREST.call(port: server.port, "POST", "/v1/Node/Drain")
        #expect(status == 202)
        #expect(body["status"] as? String == "draining")
        _ = try server.running.waitFor("(draining: 1 participant)")
        #expect(await Self.get(server.port, "/readyz")?.body == #"{"status":"draining"}"#)
        carol.send(["type": "ping", "id": "p"])
        _ = try await carol.next("pong")

        carol.send(["type": "leave"])
        try await carol.waitClosed()
        #expect(server.running.waitForExit(seconds: 15))
        #expect(server.running.process.terminationStatus == 0, "\(server.running.output)")
    }

    @Test func theDrainTimeoutEndsTheDrain() async throws {
        let server = try SignalingEndToEndTests.Server(["--drain-timeout", "1"])
        defer { server.stop() }
        let bob = try server.client("bob")
        bob.send(["type": "join", "id": "j", "room": "stays"])
        _ = try await bob.next("joined")
        let start = Date()
        kill(server.running.process.processIdentifier, SIGTERM)
        #expect(server.running.waitForExit(seconds: 15))
        #expect(Date().timeIntervalSince(start) >= 1)
        #expect(server.running.process.terminationStatus == 0)
        #expect(server.running.output.contains("drain timeout: stopping with 1 participant(s)"))
    }

    /// No `--drain-timeout`: PROTOCOL.md section 8's 1800 s, so the room
    /// goes on after SIGTERM; a second SIGTERM ends the wait.
    @Test func byDefaultTheRoomGoesOnAfterSigtermAndASecondOneEndsTheWait() async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        let dan = try server.client("dan")
        dan.send(["type": "join", "id": "j", "room": "long-meeting"])
        _ = try await dan.next("joined")

        let pid = server.running.process.processIdentifier
        kill(pid, SIGTERM)
        _ = try server.running.waitFor("(draining: 1 participant)")
        #expect(server.running.output.contains("stopping within 1800.0 seconds"), "\(server.running.output)")
        #expect(!server.running.waitForExit(seconds: 2), "the default drain timeout let the node stop with a participant")
        dan.send(["type": "ping", "id": "p"])
        _ = try await dan.next("pong")

        kill(pid, SIGTERM)
        #expect(server.running.waitForExit(seconds: 15))
        #expect(server.running.process.terminationStatus == 0, "\(server.running.output)")
        #expect(server.running.output.contains("SIGTERM again: not waiting for the rooms any more"))
        #expect(server.running.output.contains("drain ended by a second signal: stopping with 1 participant(s)"))
    }

    @Test func aRoomCreatedByAJoinTakesTheConfiguredDefaultMaxParticipants() async throws {
        let server = try SignalingEndToEndTests.Server(["--default-max-participants", "2"])
        defer { server.stop() }
        var clients: [SignalingClient] = []
        for identity in ["ann", "ben"] {
            let client = try server.client(identity)
            client.send(["type": "join", "id": "j", "room": "pair"])
            let joined = try await client.next("joined")
            #expect((joined["room"] as? [String: Any])?["maxParticipants"] as? Int == 2)
            clients.append(client)
        }
        let third = try server.client("cat")
        third.send(["type": "join", "id": "j", "room": "pair"])
        let refused = try await third.next("error")
        #expect(refused["code"] as? Int == 53105)
        for client in clients { await client.close() }
    }
}
}
