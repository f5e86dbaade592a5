import Histogram

/// Percentiles of a set of samples in milliseconds, through an HdrHistogram
/// at 1 µs resolution and 3 significant digits (values up to 1 hour; a
/// larger one is clamped, as a latency that long is a failure anyway).
public struct Distribution: Sendable, Equatable, Codable {
    public var count: Int
    public var p50: Double?
    public var p99: Double?
    public var max: Double?
    public var mean: Double?

    public init(count: Int = 0, p50: Double? = nil, p99: Double? = nil, max: Double? = nil, mean: Double? = nil) {
        self.count = count
        self.p50 = p50
        self.p99 = p99
        self.max = max
        self.mean = mean
    }

    public init(milliseconds samples: [Double]) {
        var recorder = Recorder()
        recorder.record(milliseconds: samples)
        self = recorder.distribution
    }

    /// Accumulates samples; negative and non-finite values are skipped (a
    /// clock step makes a latency negative: it measures nothing).
    public struct Recorder: Sendable {
        static let highestMicroseconds: UInt64 = 3_600_000_000
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestMicroseconds, numberOfSignificantValueDigits: .three)
        public private(set) var skipped = 0

        public init() {}

        public mutating func record(milliseconds value: Double) {
            guard value.isFinite, value >= 0 else { skipped += 1; return }
            let micros = Swift.min(UInt64((value * 1000).rounded()), Self.highestMicroseconds)
            _ = histogram.record(micros)
        }

        public mutating func record(milliseconds values: [Double]) {
            for value in values { record(milliseconds: value) }
        }

        public var distribution: Distribution {
            guard histogram.totalCount > 0 else { return Distribution() }
            return Distribution(
                count: Int(histogram.totalCount),
                p50: Double(histogram.valueAtPercentile(50)) / 1000,
                p99: Double(histogram.valueAtPercentile(99)) / 1000,
                max: Double(histogram.max) / 1000,
                mean: histogram.mean / 1000)
        }
    }
}
