import Foundation

/// A real `vroom-server` process started by a test, with its stderr log
/// collected, for tests that talk to it over TCP and UDP on loopback.
public final class ServerProcess: @unchecked Sendable {
    // @unchecked: `log` is only touched under `lock`; `process` is set once.
    public let process = Process()
    private let lock = NSLock()
    private var log = ""

    public struct LogLineMissing: Error, CustomStringConvertible {
        public var pattern: String
        public var output: String
        public var description: String { "no log line matching \(pattern) in:\n\(output)" }
    }

    /// Starts the built `vroom-server` (next to the test bundle) with `arguments`.
    public init(arguments: [String]) throws {
        process.executableURL = try BuiltProduct.url(named: "vroom-server")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self?.lock.withLock { self?.log += text }
        }
        try process.run()
        ServerLogWatch.started(self)
    }

    /// `vroom-server --dev` on kernel-chosen loopback ports (HTTP and one
    /// media worker), plus `extra` flags; returns once it listens.
    public static func dev(_ extra: [String] = []) throws -> (server: ServerProcess, httpPort: Int) {
        let server = try ServerProcess(arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1"] + extra)
        do {
            let port = try server.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#)
            return (server, Int(port)!)
        } catch {
            server.stop()
            throw error
        }
    }

    public var output: String { lock.withLock { log } }

    /// An access token from `vroom-server token --dev` (signed with devkey/devsecret).
    public static func devToken(identity: String, room: String? = nil, ttl: Int = 600) throws -> String {
        let process = Process()
        process.executableURL = try BuiltProduct.url(named: "vroom-server")
        process.arguments = ["token", "--dev", "--identity", identity, "--ttl", "\(ttl)"] + (room.map { ["--room", $0] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits up to `seconds` (60: a loaded 2-core machine starts slowly)
    /// for a log line matching `pattern`; returns its first capture group.
    public func waitFor(_ pattern: String, seconds: Int = 60) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        for _ in 0..<(seconds * 10) {
            let text = output
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            {
                return String(text[range])
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw LogLineMissing(pattern: pattern, output: output)
    }

    /// SIGTERM; after 1 s a second one, which ends the server's wait for
    /// its participants to leave (its drain timeout is 30 min by default);
    /// then SIGKILL after 5 s. Polls instead of `waitUntilExit`, which can
    /// hang on Linux when called off the main thread.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if !waitForExit(seconds: 1) { process.terminate() }
        if !waitForExit(seconds: 5) {
            kill(process.processIdentifier, SIGKILL)
            _ = waitForExit(seconds: 5)
        }
    }

    /// SIGKILL at once: the process dies without a word, as a node whose
    /// machine fails (failover tests).
    public func kill9() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        _ = waitForExit(seconds: 5)
    }

    public func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return !process.isRunning
    }
}
