import Foundation
import Testing

/// PROTOCOL.md section 1: "WebSocket ping/pong control frames count as
/// traffic for the liveness rule of 3.6", through a real server process.
extension ServerProcessTests {
@Suite struct PingLivenessEndToEndTests {
    @Test func aClientSendingOnlyWebSocketPingsIsNotCutOff() async throws {
        // The server's own pings every 60 s: the client's automatic pongs
        // then cannot be what keeps it alive within the 3 s silence limit.
        let configDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-ping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: configDirectory) }
        let config = configDirectory.appendingPathComponent("vroom.json")
        try Data(#"{"signaling": {"pingIntervalSeconds": 60}}"#.utf8).write(to: config)
        let server = try SignalingEndToEndTests.Server(["--config", config.path, "--silence-timeout", "3"])
        defer { server.stop() }

        let pinger = try server.client("pinger")
        let silent = try server.client("silent")
        pinger.send(["type": "join", "id": "j", "room": "quiet"])
        _ = try await pinger.next("joined")
        silent.send(["type": "join", "id": "j", "room": "quiet"])
        _ = try await silent.next("joined")

        // 20 s of WebSocket pings only (one a second), no JSON at all.
        let start = Date()
        while Date().timeIntervalSince(start) < 20 {
            pinger.sendPing()
            try await Task.sleep(for: .seconds(1))
        }
        // The control: the one that sent nothing was cut with 53002 long ago.
        let cut = try await silent.next("disconnected", timeout: 5)
        #expect(cut["code"] as? Int == 53002)
        #expect(pinger.count("disconnected") == 0)
        #expect(!pinger.isClosed)
        // And the session is still alive for JSON.
        pinger.send(["type": "ping", "id": "p"])
        let pong = try await pinger.next("pong")
        #expect(pong["type"] as? String == "pong")
        await pinger.close()
    }
}
}
