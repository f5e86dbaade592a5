/// `vroom_subscriber_estimate_bps`: each subscriber connection's downlink
/// estimate, observed once a second while its client gives feedback, in
/// cumulative Prometheus buckets. Fields, not an array: the router's
/// counters are copied for deltas and must never copy on write.
public struct EstimateHistogram: Sendable, Equatable {
    /// Upper bounds in bits per second: audio only, a thumbnail, 360p,
    /// 720p, several videos; then +Inf.
    public static let bounds: [UInt64] = [
        100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000,
    ]

    private var b0: UInt64 = 0, b1: UInt64 = 0, b2: UInt64 = 0, b3: UInt64 = 0
    private var b4: UInt64 = 0, b5: UInt64 = 0, b6: UInt64 = 0
    /// Observations, and their sum in bits per second.
    public private(set) var count: UInt64 = 0
    public private(set) var sum: UInt64 = 0

    public init() {}

    /// Observations at or below `bounds[index]` (cumulative).
    public func cumulative(_ index: Int) -> UInt64 {
        switch index {
        case 0: b0
        case 1: b1
        case 2: b2
        case 3: b3
        case 4: b4
        case 5: b5
        default: b6
        }
    }

    public mutating func observe(_ bitsPerSecond: UInt64) {
        count &+= 1
        sum &+= bitsPerSecond
        if bitsPerSecond <= 100_000 { b0 &+= 1 }
        if bitsPerSecond <= 250_000 { b1 &+= 1 }
        if bitsPerSecond <= 500_000 { b2 &+= 1 }
        if bitsPerSecond <= 1_000_000 { b3 &+= 1 }
        if bitsPerSecond <= 2_500_000 { b4 &+= 1 }
        if bitsPerSecond <= 5_000_000 { b5 &+= 1 }
        if bitsPerSecond <= 10_000_000 { b6 &+= 1 }
    }

    public mutating func add(_ other: EstimateHistogram) {
        b0 &+= other.b0
        b1 &+= other.b1
        b2 &+= other.b2
        b3 &+= other.b3
        b4 &+= other.b4
        b5 &+= other.b5
        b6 &+= other.b6
        count &+= other.count
        sum &+= other.sum
    }
}
