import Foundation
import Testing
import VroomTesting

/// The session's inbox (PROTOCOL.md 3.6, like the outbox): the server reads
/// a client's frames while one of its requests waits, and cuts off a client
/// that sends faster than its requests are handled, through a real server
/// whose join waits on a real PostgreSQL (its placement table locked).
extension ServerProcessTests {
@Suite struct SignalingInboxEndToEndTests {
    @Test func aClientFloodingWhileItsJoinWaitsIsCutOffAndTheServerGoesOn() async throws {
        let database = try PostgresServer()
        defer { database.stop() }
        let url = try database.createDatabase("vroom")
        let (server, port) = try ServerProcess.dev(["--db", url])
        defer { server.stop() }
        let lock = try database.holdLock(on: "room_placement", seconds: 10, database: "vroom")
        defer { lock.terminate() }

        // A join that waits (3 s at most), and 400 requests behind it: more
        // than the 256 frames an inbox holds.
        let flooder = SignalingClient(port: port, token: try ServerProcess.devToken(identity: "flooder"))
        flooder.send(["type": "join", "id": "j", "room": "held"])
        for n in 0..<400 { flooder.send(["type": "ping", "id": "p\(n)"]) }
        try await flooder.waitClosed(timeout: 10)
        // Cut off before its join was answered (53006 after 3 s), with nothing sent.
        #expect(flooder.messages.isEmpty, "\(flooder.messages.map { $0["type"] as? String ?? "?" })")
        #expect(server.output.contains("its inbox overflowed, cutting it off"))

        // The server goes on: once the table is free, a join goes through.
        while lock.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        let calm = SignalingClient(port: port, token: try ServerProcess.devToken(identity: "calm"))
        calm.send(["type": "join", "id": "j", "room": "held"])
        let joined = try await calm.next("joined")
        #expect(joined["id"] as? String == "j")
        await calm.close()
    }
}
}
