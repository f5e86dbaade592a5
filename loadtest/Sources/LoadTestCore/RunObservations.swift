import Foundation

/// Everything a run observed, as plain values: the input of the report math,
/// and what `--emit-observations` prints for `--merge` (the API secret is
/// never encoded: see `LoadTestConfiguration`).
public struct RunObservations: Sendable, Equatable, Codable {
    public var configuration: LoadTestConfiguration
    public var startedAt: Date
    public var rooms: [LoadPlan.Room]
    /// Room name -> why its REST create failed.
    public var roomFailures: [String: String]
    public var joins: [JoinRecord]
    /// Counters when the measurement window opened (all joins done + settle).
    public var windowStart: [ParticipantSnapshot]
    /// Counters when it closed.
    public var windowEnd: [ParticipantSnapshot]
    public var windowSeconds: Double
    /// Server scrapes before the first room was created and after the window closed.
    public var metricsBefore: MetricsSnapshot?
    public var metricsAfter: MetricsSnapshot?
    /// Why /metrics could not be read, when it could not.
    public var metricsError: String?
    /// Seconds between the two scrapes (and the two CPU readings).
    public var scrapeSeconds: Double
    public var cpuBefore: ProcessCPUTime?
    public var cpuAfter: ProcessCPUTime?
    /// With `--downlink-kbps`: per subscriber identity, its `/Stats` rows sampled through the window.
    public var downlinkSeries: [String: DownlinkSeries]
    /// Per shaped subscriber: datagrams its relay dropped at the bottleneck's queue.
    public var relayQueueDrops: [String: Int]
    /// Per node (`host:port`) its participants were connected through: the
    /// CPU seconds its process used during the window (its
    /// `process_cpu_seconds_total` at the window's end minus its start).
    public var nodeCPUSeconds: [String: Double] = [:]
    /// The load tester's own CPU and event-loop lag over the run (its
    /// processes' together with `--processes`).
    public var tester: LoadTesterHealth.Sample?

    public init(
        configuration: LoadTestConfiguration, startedAt: Date, rooms: [LoadPlan.Room], roomFailures: [String: String] = [:],
        joins: [JoinRecord], windowStart: [ParticipantSnapshot], windowEnd: [ParticipantSnapshot], windowSeconds: Double,
        metricsBefore: MetricsSnapshot? = nil, metricsAfter: MetricsSnapshot? = nil, metricsError: String? = nil,
        scrapeSeconds: Double, cpuBefore: ProcessCPUTime? = nil, cpuAfter: ProcessCPUTime? = nil,
        downlinkSeries: [String: DownlinkSeries] = [:], relayQueueDrops: [String: Int] = [:]
    ) {
        self.downlinkSeries = downlinkSeries
        self.relayQueueDrops = relayQueueDrops
        self.configuration = configuration
        self.startedAt = startedAt
        self.rooms = rooms
        self.roomFailures = roomFailures
        self.joins = joins
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.windowSeconds = windowSeconds
        self.metricsBefore = metricsBefore
        self.metricsAfter = metricsAfter
        self.metricsError = metricsError
        self.scrapeSeconds = scrapeSeconds
        self.cpuBefore = cpuBefore
        self.cpuAfter = cpuAfter
    }
}
