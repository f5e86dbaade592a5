/// One sample line of the Prometheus text format: a metric name, its labels
/// and a value, e.g. `vroom_packets_dropped_total{reason="replay"} 3`.
public struct MetricSample: Sendable, Equatable, Codable {
    public var name: String
    public var labels: [String: String]
    public var value: Double

    public init(name: String, labels: [String: String] = [:], value: Double) {
        self.name = name
        self.labels = labels
        self.value = value
    }

    /// True when every label in `subset` is present here with the same value.
    public func matches(_ subset: [String: String]) -> Bool {
        subset.allSatisfy { labels[$0.key] == $0.value }
    }
}
