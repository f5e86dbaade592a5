// vroom-impair: the seeded UDP impairment relay as a command, for interop
// tests written in other languages (scripts/interop). The kernel here has
// no netem.
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import VroomTesting

@main
struct VroomImpair: ParsableCommand {
    enum Directions: String, ExpressibleByArgument, CaseIterable {
        case both, up, down
    }

    static let configuration = CommandConfiguration(
        commandName: "vroom-impair",
        abstract: "A seeded UDP relay that drops, delays, reorders, duplicates and corrupts datagrams.",
        discussion: """
            Clients send to 127.0.0.1:<listen port>; each client's datagrams go to the target \
            from a socket of its own, and the target's replies come back. Prints one JSON line \
            {"event":"listening","port":N,...} at start, one {"event":"counters",...} line on \
            SIGUSR1, and a final {"event":"stopped",...} line with the counters on SIGTERM or SIGINT.
            """)

    @Option(help: "Dotted IPv4 address to listen on.")
    var listenHost = "127.0.0.1"

    @Option(help: "UDP port to listen on; 0 picks a free one (printed at start).")
    var listenPort: UInt16 = 0

    @Option(help: "Where datagrams go: HOST:PORT (dotted IPv4).")
    var target: String

    @Option(help: "Seed of every random decision (the same seed replays the same decisions).")
    var seed: UInt64 = 1

    @Option(help: "Directions impaired: both, up (client to target) or down (target to client).")
    var directions: Directions = .both

    @Option(help: "Probability that a datagram is dropped (0...1).")
    var drop: Double = 0

    @Option(help: "Mean delay added to every datagram, ms.")
    var delayMs: Double = 0

    @Option(help: "Jitter around the delay, ms (uniform: +/- this; normal: this standard deviation).")
    var jitterMs: Double = 0

    @Option(help: "Jitter distribution: uniform or normal.")
    var jitterDistribution: String = "uniform"

    @Option(help: "Probability that a datagram is held back and overtaken (0...1).")
    var reorder: Double = 0

    @Option(help: "How long a reordered datagram is held beyond its delay, ms.")
    var reorderHoldMs: Double = 20

    @Option(help: "Probability that a datagram is sent twice (0...1).")
    var duplicate: Double = 0

    @Option(help: "Probability that one byte of a datagram is flipped (0...1).")
    var corrupt: Double = 0

    func validate() throws {
        for (name, value) in [("drop", drop), ("reorder", reorder), ("duplicate", duplicate), ("corrupt", corrupt)]
        where !(0...1).contains(value) {
            throw ValidationError("--\(name) must be within 0...1")
        }
        guard ImpairmentProfile.JitterDistribution(rawValue: jitterDistribution) != nil else {
            throw ValidationError("--jitter-distribution must be uniform or normal")
        }
        guard parsedTarget != nil else { throw ValidationError("--target must be IPV4:PORT") }
    }

    var parsedTarget: (host: String, port: UInt16)? {
        guard let colon = target.lastIndex(of: ":"), let port = UInt16(target[target.index(after: colon)...])
        else { return nil }
        return (String(target[..<colon]), port)
    }

    func run() throws {
        let profile = ImpairmentProfile(
            dropProbability: drop, delayMilliseconds: delayMs, jitterMilliseconds: jitterMs,
            jitterDistribution: ImpairmentProfile.JitterDistribution(rawValue: jitterDistribution) ?? .uniform,
            reorderProbability: reorder, reorderHoldMilliseconds: reorderHoldMs,
            duplicateProbability: duplicate, corruptProbability: corrupt)
        guard let (targetHost, targetPort) = parsedTarget else { throw ValidationError("--target must be IPV4:PORT") }

        // Block the signals before the relay thread starts (it inherits the
        // mask), then take them synchronously here with sigwait.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGTERM, SIGINT, SIGUSR1] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let relay: UDPImpairmentRelay
        do {
            relay = try UDPImpairmentRelay(
                .init(
                    listenHost: listenHost, listenPort: listenPort, targetHost: targetHost, targetPort: targetPort,
                    upstream: directions == .down ? .none : profile,
                    downstream: directions == .up ? .none : profile, seed: seed))
        } catch {
            throw ValidationError("\(error)")
        }
        relay.start()
        emit([
            "event": "listening", "port": Int(relay.port), "host": listenHost, "target": target,
            "seed": String(seed), "directions": directions.rawValue,
            "profile": try jsonObject(profile),
        ])

        while true {
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { continue }
            if received == SIGUSR1 {
                emit(["event": "counters", "counters": try jsonObject(relay.counters)])
                continue
            }
            let counters = relay.stop()
            emit(["event": "stopped", "counters": try jsonObject(counters)])
            return
        }
    }

    private func jsonObject(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    }

    /// One JSON object on one line, flushed (a parent reads it through a pipe).
    private func emit(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
