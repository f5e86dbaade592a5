import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// Join/leave churn against a running `vroom-server` (issue 11, item 4): one
/// participant stays in a room while another joins and leaves it, one
/// WebSocket per cycle, `--cycles` times in a row. Every `--window` cycles it
/// prints the time per cycle and the server's resident memory (VmRSS of
/// `/proc/PID/status`). Room state must be bounded by what is live, so after
/// `--warmup` cycles the RSS must stay within `--max-rss-growth` and the time
/// per window within `--max-time-growth` of the first windows after warm-up;
/// otherwise the exit status is 1. `scripts/churn.sh` starts the server and
/// mints the two access tokens.
@main
struct ChurnBenchmark {
    static func main() async {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            print("churn: \(error)\n\(Options.usage)")
            exit(64)
        }
        do {
            exit(try await run(options) ? 0 : 1)
        } catch {
            print("churn: could not run: \(error)")
            exit(2)
        }
    }

    static func run(_ options: Options) async throws -> Bool {
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 1 << 22
        var logger = Logger(label: "churn")
        logger.logLevel = .warning
        let client = SignalingClient(url: options.url, room: options.room, configuration: configuration, logger: logger)

        let stayer = Stayer()
        let staying = Task { try await client.stay(token: options.stayToken, until: stayer) }
        try await stayer.waitUntilJoined(timeout: .seconds(30))

        print("churn: \(options.cycles) join/leave cycles in room \(options.room), one participant staying; window \(options.window), warm-up \(options.warmup)")
        print(String(format: "%8@ %12@ %12@ %10@", "cycles", "s/window", "ms/cycle", "RSS MB"))
        var windows: [Window] = []
        var windowStart = ContinuousClock.now
        for cycle in 1...options.cycles {
            try await client.joinAndLeave(token: options.churnToken)
            guard cycle % options.window == 0 else { continue }
            let now = ContinuousClock.now
            let window = Window(
                cycles: cycle, seconds: (now - windowStart).seconds, rssKB: try residentKB(pid: options.serverPID))
            windowStart = now
            windows.append(window)
            print(String(
                format: "%8d %12.2f %12.3f %10.1f%@", window.cycles, window.seconds,
                window.seconds * 1000 / Double(options.window), Double(window.rssKB) / 1024,
                window.cycles <= options.warmup ? "  (warm-up)" : ""))
        }
        stayer.finish()
        try await staying.value

        let measured = windows.filter { $0.cycles > options.warmup }
        let n = options.compareWindows
        guard measured.count >= 2 * n else {
            print("churn: too few windows after warm-up to compare (\(measured.count), need \(2 * n))")
            return false
        }
        let (first, last) = (Array(measured.prefix(n)), Array(measured.suffix(n)))
        let firstSeconds = first.map(\.seconds).reduce(0, +) / Double(n)
        let lastSeconds = last.map(\.seconds).reduce(0, +) / Double(n)
        let firstRSS = Double(measured[0].rssKB)
        let lastRSS = Double(measured[measured.count - 1].rssKB)
        let timeGrowth = lastSeconds / firstSeconds - 1
        let rssGrowth = lastRSS / firstRSS - 1
        print(String(
            format: "churn: RSS %.1f MB after warm-up (%d cycles) -> %.1f MB at %d cycles: %+.1f%% (limit %+.0f%%)",
            firstRSS / 1024, measured[0].cycles, lastRSS / 1024, measured[measured.count - 1].cycles,
            rssGrowth * 100, options.maxRSSGrowth * 100))
        print(String(
            format: "churn: time per %d cycles %.2f s (first %d window(s) after warm-up) -> %.2f s (last %d): %+.1f%% (limit %+.0f%%); join+leave %.2f -> %.2f ms",
            options.window, firstSeconds, n, lastSeconds, n, timeGrowth * 100, options.maxTimeGrowth * 100,
            firstSeconds * 1000 / Double(options.window), lastSeconds * 1000 / Double(options.window)))
        let pass = rssGrowth <= options.maxRSSGrowth && timeGrowth <= options.maxTimeGrowth
        print("churn: \(pass ? "PASS" : "FAIL")")
        return pass
    }

    /// VmRSS of the process, in kB.
    static func residentKB(pid: Int) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            if let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                return kB
            }
        }
        throw ChurnError.noRSS(pid)
    }
}

/// One window of `--window` cycles.
struct Window {
    var cycles: Int
    var seconds: Double
    var rssKB: Int
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

enum ChurnError: Error, CustomStringConvertible {
    case refused(String)
    case closedBeforeJoined
    case noRSS(Int)
    case timeout(String)

    var description: String {
        switch self {
        case .refused(let text): "join refused: \(text)"
        case .closedBeforeJoined: "the socket closed before joined"
        case .noRSS(let pid): "no VmRSS in /proc/\(pid)/status"
        case .timeout(let what): "timed out: \(what)"
        }
    }
}

/// The staying participant's state, shared with its socket's task.
final class Stayer: Sendable {
    private let joined = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)

    func markJoined() { joined.store(true, ordering: .releasing) }
    var isDone: Bool { done.load(ordering: .acquiring) }
    func finish() { done.store(true, ordering: .releasing) }

    func waitUntilJoined(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !joined.load(ordering: .acquiring) {
            guard ContinuousClock.now < deadline else { throw ChurnError.timeout("the staying participant's join") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The few signaling messages the benchmark sends and reads (PROTOCOL.md 3.1, 3.6).
struct SignalingClient: Sendable {
    let url: String
    let room: String
    let configuration: WebSocketClientConfiguration
    let logger: Logger

    private struct Join: Encodable {
        let type = "join"
        let id = "1"
        let room: String
    }

    private struct Plain: Encodable {
        let type: String
    }

    private struct Reply: Decodable {
        let type: String
    }

    private func text(_ message: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    }

    private func address(_ token: String) -> String {
        "\(url)?access_token=\(token)"
    }

    /// Reads until `joined`; an `error` (a refused join) throws.
    private func awaitJoined(_ inbound: WebSocketInboundStream) async throws {
        for try await message in inbound.messages(maxSize: 1 << 22) {
            guard case .text(let text) = message else { continue }
            let reply = try JSONDecoder().decode(Reply.self, from: Data(text.utf8))
            if reply.type == "joined" { return }
            if reply.type == "error" { throw ChurnError.refused(text) }
        }
        throw ChurnError.closedBeforeJoined
    }

    /// One cycle: a new socket, `join`, `joined`, `leave`, close.
    func joinAndLeave(token: String) async throws {
        let join = try text(Join(room: room))
        let leave = try text(Plain(type: "leave"))
        _ = try await WebSocketClient.connect(url: address(token), configuration: configuration, logger: logger) {
            inbound, outbound, _ in
            try await outbound.write(.text(join))
            try await awaitJoined(inbound)
            try await outbound.write(.text(leave))
            try await outbound.close(.normalClosure, reason: nil)
        }
    }

    /// The participant that stays: joins, pings every 2 s (the server drops
    /// a session silent for 15 s) and reads every notice the churn causes,
    /// until `stayer.finish()`; then leaves.
    func stay(token: String, until stayer: Stayer) async throws {
        let join = try text(Join(room: room))
        let ping = try text(Plain(type: "ping"))
        let leave = try text(Plain(type: "leave"))
        _ = try await WebSocketClient.connect(url: address(token), configuration: configuration, logger: logger) {
            inbound, outbound, _ in
            try await outbound.write(.text(join))
            try await awaitJoined(inbound)
            stayer.markJoined()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in inbound.messages(maxSize: 1 << 22) {}
                }
                group.addTask {
                    var sinceLastPing = 0
                    while !stayer.isDone {
                        try await Task.sleep(for: .milliseconds(100))
                        sinceLastPing += 1
                        if sinceLastPing >= 20 {
                            sinceLastPing = 0
                            try await outbound.write(.text(ping))
                        }
                    }
                    try await outbound.write(.text(leave))
                    try await outbound.close(.normalClosure, reason: nil)
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }
}

/// Command-line options (`--name value`).
struct Options {
    var url = ""
    var room = "churn"
    var stayToken = ""
    var churnToken = ""
    var serverPID = 0
    var cycles = 20_000
    var window = 1_000
    var warmup = 2_000
    var compareWindows = 2
    var maxRSSGrowth = 0.10
    var maxTimeGrowth = 0.50

    static let usage = """
        usage: ChurnBenchmark --url ws://127.0.0.1:PORT/v1/signal --server-pid PID
                 --stay-token JWT --churn-token JWT [--room churn] [--cycles 20000]
                 [--window 1000] [--warmup 2000] [--compare-windows 2]
                 [--max-rss-growth 0.10] [--max-time-growth 0.50]
        """

    init(_ arguments: ArraySlice<String>) throws {
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard let value = iterator.next() else { throw OptionError("\(name) needs a value") }
            switch name {
            case "--url": url = value
            case "--room": room = value
            case "--stay-token": stayToken = value
            case "--churn-token": churnToken = value
            case "--server-pid": serverPID = try Self.number(name, value)
            case "--cycles": cycles = try Self.number(name, value)
            case "--window": window = try Self.number(name, value)
            case "--warmup": warmup = try Self.number(name, value)
            case "--compare-windows": compareWindows = try Self.number(name, value)
            case "--max-rss-growth": maxRSSGrowth = try Self.fraction(name, value)
            case "--max-time-growth": maxTimeGrowth = try Self.fraction(name, value)
            default: throw OptionError("unknown option \(name)")
            }
        }
        guard !url.isEmpty, !stayToken.isEmpty, !churnToken.isEmpty, serverPID > 0 else {
            throw OptionError("--url, --server-pid, --stay-token and --churn-token are required")
        }
        guard window > 0, cycles >= window, compareWindows > 0 else {
            throw OptionError("--cycles must be at least --window, both and --compare-windows positive")
        }
    }

    private static func number(_ name: String, _ value: String) throws -> Int {
        guard let number = Int(value), number >= 0 else { throw OptionError("\(name) must be a whole number") }
        return number
    }

    private static func fraction(_ name: String, _ value: String) throws -> Double {
        guard let number = Double(value), number >= 0 else { throw OptionError("\(name) must be a number") }
        return number
    }
}

struct OptionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
