import Foundation
import Metrics
import Node
import Prometheus
import Rooms
import Synchronization

/// The node's Prometheus metrics (DESIGN.md, "Metrics"; PROTOCOL.md
/// section 6, `GET /metrics`).
///
/// Control-plane figures go through swift-metrics (`CoreMetrics.Gauge`,
/// `Counter`, `Timer`) into a `PrometheusCollectorRegistry` of this
/// instance (no global bootstrap, so several servers in one test process
/// keep their own figures): `vroom_rooms`, `vroom_participants`,
/// `vroom_join_seconds`, `vroom_signaling_errors_total{code}`,
/// `vroom_webhooks_pending`, `vroom_webhooks_failed_total` and
/// `vroom_network_quality_participants{level}`.
///
/// The media counters belong to the worker threads: they are read once
/// per scrape (`MediaPlane.statistics()`, a job per worker) and written
/// beside the registry's output by `MediaStatistics.prometheusText`, with
/// their existing names and labels. The packet path takes no lock and
/// allocates nothing for metrics.
public final class NodeMetrics: Sendable {
    /// Where the swift-metrics handlers live; `exposition` emits it.
    public let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory bound to `registry` (pass it as `factory:`).
    public let factory: PrometheusMetricsFactory

    private let rooms: CoreMetrics.Gauge
    private let participants: CoreMetrics.Gauge
    private let joinSeconds: CoreMetrics.Timer
    private let webhooksPending: CoreMetrics.Gauge
    private let webhooksFailed: CoreMetrics.Counter
    private let qualityLevels: [CoreMetrics.Gauge]
    /// The outbox's failure total at the last scrape: the counter moves by
    /// the difference (the outbox keeps a total, a counter only increments).
    private let webhooksFailedSeen = Mutex<Int>(0)

    /// Join times: 5 ms to 10 s. A loopback join takes a few ms; one that
    /// waits on a loaded host or a slow token check shows in the upper buckets.
    public static let joinBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// HELP text per family, for the families swift-metrics creates without
    /// one (`exposition` adds the lines).
    public static let help: [String: String] = [
        "vroom_rooms": "Rooms in progress on this node.",
        "vroom_participants": "Participants connected or reconnecting on this node.",
        "vroom_join_seconds": "Time from a join frame to its joined reply, in seconds.",
        "vroom_signaling_errors_total": "Signaling error and disconnected frames sent, by protocol error code.",
        "vroom_webhooks_pending": "Status callbacks queued or being retried.",
        "vroom_webhooks_failed_total": "Status callbacks given up after their retries, or refused when the queue was full.",
        "vroom_network_quality_participants": "Participants by their current network quality level (0-5; PROTOCOL.md 3.8).",
        "vroom_tls_handshakes_failed_total":
            "TLS connections closed before their handshake completed (with --tls-cert), by reason: timeout or error.",
    ]

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = ["vroom_join_seconds": Self.joinBuckets]
        self.factory = factory
        rooms = CoreMetrics.Gauge(label: "vroom_rooms", factory: factory)
        participants = CoreMetrics.Gauge(label: "vroom_participants", factory: factory)
        joinSeconds = CoreMetrics.Timer(label: "vroom_join_seconds", factory: factory)
        webhooksPending = CoreMetrics.Gauge(label: "vroom_webhooks_pending", factory: factory)
        webhooksFailed = CoreMetrics.Counter(label: "vroom_webhooks_failed_total", factory: factory)
        qualityLevels = (0...5).map {
            CoreMetrics.Gauge(label: "vroom_network_quality_participants", dimensions: [("level", String($0))], factory: factory)
        }
        // Every code at 0 from the start (Prometheus' advice for known label
        // values): a first error is then a rate, not a series appearing.
        for code in ProtocolErrorCode.allCases { _ = signalingErrors(code.rawValue) }
        for gauge in [rooms, participants, webhooksPending] + qualityLevels { gauge.record(0) }
    }

    private func signalingErrors(_ code: Int) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "vroom_signaling_errors_total", dimensions: [("code", String(code))], factory: factory)
    }

    /// Counts a TLS connection closed before its handshake completed
    /// (`reason`: `timeout`, a client that stopped half way; `error`, not
    /// TLS or refused). The family appears from the first call, which the
    /// server makes at start when TLS is on, so a plain-HTTP node shows none.
    public func tlsHandshakeFailed(reason: String) {
        CoreMetrics.Counter(label: "vroom_tls_handshakes_failed_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Registers `vroom_tls_handshakes_failed_total` at 0 for `reasons`
    /// (Prometheus' advice for known label values, as for the error codes).
    public func countTLSHandshakeFailures(reasons: [String]) {
        for reason in reasons {
            _ = CoreMetrics.Counter(label: "vroom_tls_handshakes_failed_total", dimensions: [("reason", reason)], factory: factory)
        }
    }

    /// What signaling reports here: join durations, error codes sent.
    public var signaling: SignalingMetrics {
        SignalingMetrics(
            joinCompleted: { [joinSeconds] duration in joinSeconds.recordNanoseconds(duration.wholeNanoseconds) },
            errorSent: { [self] code in signalingErrors(code).increment() })
    }

    /// Sets the gauges from `snapshot` and returns the whole exposition:
    /// the registry's families (each with HELP and TYPE), then the media
    /// families. Every family appears once.
    public func exposition(_ snapshot: NodeSnapshot) -> String {
        rooms.record(snapshot.rooms)
        participants.record(snapshot.participants)
        webhooksPending.record(snapshot.webhooksPending)
        let increase = webhooksFailedSeen.withLock { seen -> Int in
            let delta = max(0, snapshot.webhooksFailed - seen)
            seen = max(seen, snapshot.webhooksFailed)
            return delta
        }
        if increase > 0 { webhooksFailed.increment(by: increase) }
        for (level, gauge) in qualityLevels.enumerated() {
            gauge.record(level < snapshot.networkQuality.count ? snapshot.networkQuality[level] : 0)
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return Self.addingHelp(to: String(decoding: bytes, as: UTF8.self)) + snapshot.media.prometheusText
            + """
            # HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
            # TYPE process_cpu_seconds_total counter
            process_cpu_seconds_total \(snapshot.cpuSeconds)

            """
    }

    /// Puts a `# HELP` line (from `help`) before each `# TYPE` line that has none.
    static func addingHelp(to text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 1024)
        var previous: Substring = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst("# TYPE ".count).prefix { $0 != " " }
                if !previous.hasPrefix("# HELP \(name) "), let help = help[String(name)] {
                    out += "# HELP \(name) \(help)\n"
                }
            }
            out += line
            out += "\n"
            previous = line
        }
        // `split` keeps the empty piece after the final newline: drop its "\n".
        if out.hasSuffix("\n\n") { out.removeLast() }
        return out
    }
}

extension Duration {
    /// Whole nanoseconds (swift-metrics' timer unit), saturating at Int64's bounds.
    fileprivate var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || carry ? (seconds < 0 ? .min : .max) : sum
    }
}

/// What one scrape reads from the node, then hands to `NodeMetrics.exposition`.
public struct NodeSnapshot: Sendable {
    public var rooms: Int
    public var participants: Int
    public var webhooksPending: Int
    public var webhooksFailed: Int
    /// Participants per network quality level 0-5.
    public var networkQuality: [Int]
    public var media: MediaCounters
    /// The process's user and system CPU time so far (getrusage), for
    /// `process_cpu_seconds_total`: a load tester reads each node's.
    public var cpuSeconds: Double = 0

    public init(
        rooms: Int = 0, participants: Int = 0, webhooksPending: Int = 0, webhooksFailed: Int = 0,
        networkQuality: [Int] = [], media: MediaCounters? = nil
    ) {
        self.rooms = rooms
        self.participants = participants
        self.webhooksPending = webhooksPending
        self.webhooksFailed = webhooksFailed
        self.networkQuality = networkQuality
        self.media = media ?? MediaCounters()
    }

    /// Reads everything a scrape needs: the host's rooms and participants,
    /// the outbox's backlog and failures, the media workers' counters and
    /// quality levels (a job on each worker).
    public static func read(host: RoomHost, media: RoomMedia, webhooks: (any CallbackOutbox)?) async -> NodeSnapshot {
        let (rooms, participants) = await host.read { ($0.inProgressRoomCount, $0.participantCount) }
        var snapshot = NodeSnapshot(rooms: rooms, participants: participants)
        snapshot.cpuSeconds = ProcessCPU.totalSeconds()
        if let webhooks {
            snapshot.webhooksPending = await webhooks.pendingCount
            snapshot.webhooksFailed = await webhooks.failedCount
        }
        snapshot.media = await media.statistics()
        snapshot.networkQuality = await media.networkQualityCensus().participantsAtLevel
        return snapshot
    }
}
