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
    /// The built `vroom-server` next to the test bundle.
    static func serverExecutable() throws -> URL {
        try BuiltProduct.url(named: "vroom-server")
    }

    enum ServerError: Error { case noPort(String) }

    /// A running server; its log lines are collected from stderr.
    final class RunningServer: @unchecked Sendable {
        // @unchecked: `log` is only touched under `lock`.
        let process = Process()
        private let lock = NSLock()
        private var log = ""

        init(arguments: [String]) throws {
            process.executableURL = try DevServerTests.serverExecutable()
            process.arguments = arguments
            let pipe = Pipe()
            process.standardError = pipe
            process.standardOutput = FileHandle.nullDevice
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                self?.lock.withLock { self?.log += text }
            }
            try process.run()
        }

        var output: String { lock.withLock { log } }

        /// Waits up to 20 s for a log line matching `pattern`; returns its first capture group.
        func waitFor(_ pattern: String) throws -> String {
            let regex = try NSRegularExpression(pattern: pattern)
            for _ in 0..<200 {
                let text = output
                if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                    let range = Range(match.range(at: 1), in: text)
                {
                    return String(text[range])
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            throw ServerError.noPort("no log line matching \(pattern) in:\n\(output)")
        }

        /// SIGTERM, then SIGKILL after 5 s. Polls instead of `waitUntilExit`,
        /// which can hang on Linux when called off the main thread.
        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            if !waitForExit(seconds: 5) {
                kill(process.processIdentifier, SIGKILL)
                _ = waitForExit(seconds: 5)
            }
        }

        func waitForExit(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            return !process.isRunning
        }
    }

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
