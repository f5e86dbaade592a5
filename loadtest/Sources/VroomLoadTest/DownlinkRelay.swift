import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One shaped subscriber's downlink: a `vroom-impair` process of its own
/// between it and the server's media port, limiting what comes down
/// (`--directions down --rate-kbps N`, vroom-impair's 200 ms drop-tail
/// queue). One per subscriber, not one per group: a relay is one
/// bottleneck, and a group sharing one would be one link, not N.
/// The subscriber's media (both its connections) goes to `port` through
/// `ConnectOptions.mediaServerAddressOverride`.
final class DownlinkRelay: @unchecked Sendable {
    // @unchecked Sendable: `process` and `output` are set once in init and
    // only read after; Process and FileHandle are thread-safe for that use.
    let port: Int
    private let process: Process
    private let output: FileHandle

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What vroom-impair prints (one JSON object a line): its port when it
    /// listens, its counters when it stops.
    private struct Line: Decodable {
        struct Counters: Decodable {
            struct Direction: Decodable { var queueDropped: Int }
            var downstream: Direction
        }

        var event: String
        var port: Int?
        var counters: Counters?
    }

    /// Starts `executable` toward `target` (IPV4:PORT) and waits for its port.
    init(executable: String, target: String, kilobitsPerSecond: Int, seed: UInt64) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--target", target, "--directions", "down", "--rate-kbps", String(kilobitsPerSecond), "--seed", String(seed),
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(executable): \(error)")
        }
        self.process = process
        output = pipe.fileHandleForReading
        // The first line, read on a thread of its own (a blocking read).
        let handle = output
        let first: Data = await withCheckedContinuation { continuation in
            Thread {
                var line = Data()
                while true {
                    let byte = handle.readData(ofLength: 1)
                    if byte.isEmpty || byte.first == UInt8(ascii: "\n") { break }
                    line.append(byte)
                }
                continuation.resume(returning: line)
            }.start()
        }
        guard let line = try? JSONDecoder().decode(Line.self, from: first), line.event == "listening", let port = line.port else {
            process.terminate()
            throw Failure(description: "\(executable) did not start: \(String(decoding: first, as: UTF8.self))")
        }
        self.port = port
    }

    /// Stops it (SIGTERM); the datagrams it dropped at the bottleneck's queue.
    func stop() async -> Int? {
        guard process.isRunning else { return nil }
        process.terminate()
        let handle = output
        let rest: Data = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
        }
        for text in String(decoding: rest, as: UTF8.self).split(separator: "\n") {
            if let line = try? JSONDecoder().decode(Line.self, from: Data(text.utf8)), line.event == "stopped" {
                return line.counters?.downstream.queueDropped
            }
        }
        return nil
    }

    /// `--impair-path`, else `vroom-impair` beside this executable, else on PATH.
    static func executable(configured: String?) -> String? {
        if let configured { return configured }
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let beside = me.deletingLastPathComponent().appendingPathComponent("vroom-impair").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/vroom-impair"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
