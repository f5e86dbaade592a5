import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VroomTesting

/// Starts the real `vroom-server --dev` process on kernel-chosen loopback ports
/// and talks to it over TCP and UDP.
extension ServerProcessTests {
@Suite struct DevServerTests {
    typealias RunningServer = ServerProcess

    @Test func devServerListensAndAnswersHealthz() async throws {
        let server = try RunningServer(arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "2"])
        defer { server.stop() }
        let httpPort = try server.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#)
        let rtcPorts = try server.waitFor(#"media: 2 worker\(s\) on UDP 127\.0\.0\.1 ports (\d+,\d+)"#)
        #expect(server.output.contains("DEVELOPMENT MODE"))

        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(httpPort)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let health = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(health?["status"] as? String == "ok")
        #expect((health?["rtcPorts"] as? [Int])?.map(String.init).joined(separator: ",") == rtcPorts)

        let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(httpPort)/nope")!)
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        #expect(server.process.isRunning)

        server.stop()
        #expect(!server.process.isRunning)
        #expect(server.process.terminationStatus == 0, "SIGTERM is a clean exit")
    }

    /// The meeting page's join form gets tokens from `GET /dev/token` in
    /// dev mode only (issue 17): signed for the identity and room asked,
    /// 400 without an identity, 404 on a server not in dev mode.
    @Test func devTokensOnlyInDevMode() async throws {
        let dev = try RunningServer(arguments: ["--dev", "--http-port", "0", "--rtc-port", "0"])
        defer { dev.stop() }
        let port = try dev.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#)
        let (body, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/dev/token?identity=alice&room=standup")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let answer = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let token = try #require(answer["token"] as? String)
        var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let decoded = try #require(Data(base64Encoded: payload))
        let claims = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
        let grants = claims["grants"] as? [String: Any]
        #expect(grants?["identity"] as? String == "alice")
        #expect((grants?["video"] as? [String: Any])?["room"] as? String == "standup")
        #expect(claims["iss"] as? String == "devkey")

        let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/dev/token")!)
        #expect((missing as? HTTPURLResponse)?.statusCode == 400)

        let production = try RunningServer(arguments: [
            "--http-port", "0", "--rtc-port", "0", "--api-key", "k", "--api-secret", "a-secret-of-thirty-two-chars-ok!!",
        ])
        defer { production.stop() }
        let productionPort = try production.waitFor(#"http: listening on [^:]+:(\d+)"#)
        let (_, none) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(productionPort)/dev/token?identity=alice")!)
        #expect((none as? HTTPURLResponse)?.statusCode == 404)
    }

    @Test func serverRefusesToStartWithoutCredentials() throws {
        let server = try RunningServer(arguments: ["--http-port", "0", "--rtc-port", "0"])
        defer { server.stop() }
        #expect(server.waitForExit(seconds: 20))
        #expect(server.process.terminationStatus != 0)
        _ = try server.waitFor("(API key and secret are required)")
    }

    @Test func sampleConfigFileLoads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let config = root.appendingPathComponent("deploy/vroom.json").path
        let server = try RunningServer(arguments: ["check-config", "--config", config, "--api-key", "k", "--api-secret", "s"])
        defer { server.stop() }
        #expect(server.waitForExit(seconds: 20))
        #expect(server.process.terminationStatus == 0, "\(server.output)")
    }
}
}
