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
        abstract: "A seeded UDP relay that drops, delays, reorders, duplicates and corrupts datagrams, and limits their rate.",
        discussion: """
            Clients send to 127.0.0.1:<listen port>; each client's datagrams go to the target \
            from a socket of its own, and the target's replies come back. Prints one JSON line \
            {"event":"listening","port":N,...} at start, one {"event":"counters",...} line on \
            SIGUSR1, and a final {"event":"stopped",...} line with the counters on SIGTERM or SIGINT. \
            With --impair-after and --clear-after the link changes at run time (clean, then \
            impaired, then clean again), each change printed as {"event":"profile","impaired":...}. \
            With --rate-kbps each impaired direction is a bottleneck of that rate with a drop-tail queue \
            of --queue-ms (counted as queueDropped), before the delay.
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

    @Option(help: "A bottleneck: the link's rate, kbit/s (a token bucket with a drop-tail queue; default: none).")
    var rateKbps: Int?

    @Option(help: "The bottleneck's queue, ms of data at --rate-kbps; datagrams beyond it are dropped (queueDropped).")
    var queueMs: Double = 200

    @Option(help: "Relay clean until this many seconds after start, then impair (default: impaired from the start).")
    var impairAfter: Double?

    @Option(help: "Stop impairing this many seconds after start (default: never).")
    var clearAfter: Double?

    func validate() throws {
        for (name, value) in [("drop", drop), ("reorder", reorder), ("duplicate", duplicate), ("corrupt", corrupt)]
        where !(0...1).contains(value) {
            throw ValidationError("--\(name) must be within 0...1")
        }
        guard ImpairmentProfile.JitterDistribution(rawValue: jitterDistribution) != nil else {
            throw ValidationError("--jitter-distribution must be uniform or normal")
        }
        if let rateKbps, rateKbps < 1 { throw ValidationError("--rate-kbps must be at least 1") }
        guard queueMs >= 0 else { throw ValidationError("--queue-ms must be >= 0") }
        guard parsedTarget != nil else { throw ValidationError("--target must be IPV4:PORT") }
        for (name, value) in [("impair-after", impairAfter), ("clear-after", clearAfter)] {
            if let value, !(value >= 0) { throw ValidationError("--\(name) must be a number of seconds >= 0") }
        }
        if let impairAfter, let clearAfter, clearAfter < impairAfter {
            throw ValidationError("--clear-after must not come before --impair-after")
        }
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
            duplicateProbability: duplicate, corruptProbability: corrupt, rateKilobitsPerSecond: rateKbps,
            queueMilliseconds: queueMs)
        guard let (targetHost, targetPort) = parsedTarget else { throw ValidationError("--target must be IPV4:PORT") }

        // Block the signals before the relay thread starts (it inherits the
        // mask), then take them synchronously here with sigwait.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGTERM, SIGINT, SIGUSR1] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let upstream = directions == .down ? ImpairmentProfile.none : profile
        let downstream = directions == .up ? ImpairmentProfile.none : profile
        let startsImpaired = impairAfter == nil || impairAfter! <= 0
        let relay: UDPImpairmentRelay
        do {
            relay = try UDPImpairmentRelay(
                .init(
                    listenHost: listenHost, listenPort: listenPort, targetHost: targetHost, targetPort: targetPort,
                    upstream: startsImpaired ? upstream : .none, downstream: startsImpaired ? downstream : .none,
                    seed: seed))
        } catch {
            throw ValidationError("\(error)")
        }
        // The link's changes, in seconds after start: impaired, then clean.
        var schedule: [(at: Double, impaired: Bool)] = []
        if !startsImpaired, let impairAfter { schedule.append((impairAfter, true)) }
        if let clearAfter { schedule.append((clearAfter, false)) }
        let started = Date()
        relay.start()
        emit([
            "event": "listening", "port": Int(relay.port), "host": listenHost, "target": target,
            "seed": String(seed), "directions": directions.rawValue,
            "profile": try jsonObject(profile),
        ])

        while true {
            if let next = schedule.first, Date().timeIntervalSince(started) >= next.at {
                schedule.removeFirst()
                relay.setProfiles(
                    upstream: next.impaired ? upstream : .none, downstream: next.impaired ? downstream : .none)
                emit(["event": "profile", "impaired": next.impaired, "seconds": next.at])
                continue
            }
            // Wait for a signal, or until the next change is due.
            var wait = timespec(tv_sec: 3600, tv_nsec: 0)
            if let next = schedule.first {
                let seconds = max(0, next.at - Date().timeIntervalSince(started))
                wait = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
            }
            let received = sigtimedwait(&signals, nil, &wait)
            guard received > 0 else { continue }
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
