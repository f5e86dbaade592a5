/// Every sample of one `GET /metrics` scrape, with lookups by name and labels.
public struct MetricsSnapshot: Sendable, Equatable, Codable {
    public var samples: [MetricSample]
    /// Lines that were neither a comment, blank, nor a readable sample.
    public var malformedLines: Int

    public init(samples: [MetricSample], malformedLines: Int = 0) {
        self.samples = samples
        self.malformedLines = malformedLines
    }

    /// Reads a Prometheus text-format body line by line with
    /// `PrometheusExposition`'s sample reader; a line that cannot be read is
    /// skipped and counted, never fatal: one odd metric must not lose the
    /// whole report. (Families are not checked: a scrape only needs samples.)
    public init(parsing text: String) {
        var samples: [MetricSample] = []
        var malformed = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if PrometheusExposition.isSkippable(line) { continue }
            if let sample = try? PrometheusExposition.sample(fromLine: line) {
                samples.append(sample)
            } else {
                malformed += 1
            }
        }
        self.init(samples: samples, malformedLines: malformed)
    }

    /// Whether any sample of `name` is present.
    public func contains(_ name: String) -> Bool {
        samples.contains { $0.name == name }
    }

    /// The sum of `name` over the samples whose labels include `labels`
    /// (all of its samples when empty); nil when there is none.
    public func sum(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { $0.name == name && $0.matches(labels) }
        return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.value }
    }

    /// `name` summed per value of `label`, e.g. drops by `reason`.
    public func values(_ name: String, by label: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for sample in samples where sample.name == name {
            out[sample.labels[label] ?? "", default: 0] += sample.value
        }
        return out
    }
}
