import VroomTesting

/// The narrowest hop of a simulated path, for the bandwidth estimator's
/// tests: a link serialising packets at `bitsPerSecond` behind a drop-tail
/// queue that holds `queueLimit` seconds of it (100 ms: a home router's
/// buffer), then `propagation` of fixed delay, with optional random loss
/// before the queue (a lossy radio hop). Times are virtual nanoseconds.
struct BottleneckLink {
    var bitsPerSecond: Double
    var queueLimit: Double = 0.1
    var propagation: UInt64 = 30_000_000
    var randomLoss: Double = 0
    /// Seeded, so a lossy run is the same run every time.
    var random = SeededGenerator(seed: 13)
    /// When the link finishes sending everything queued so far.
    private var busyUntil: UInt64 = 0
    private(set) var dropped = 0
    private(set) var delivered = 0
    /// Sum of delivered packets' queueing delays, ns.
    private(set) var queueingDelayTotal: UInt64 = 0

    /// Forgets the counts (to measure from a point of a run on).
    mutating func resetCounts() {
        dropped = 0
        delivered = 0
        queueingDelayTotal = 0
    }

    init(bitsPerSecond: Double, propagation: UInt64 = 30_000_000, randomLoss: Double = 0) {
        self.bitsPerSecond = bitsPerSecond
        self.propagation = propagation
        self.randomLoss = randomLoss
    }

    /// A packet enters the link at `now`: its arrival at the far end, or
    /// nil when it is lost or the queue is full.
    mutating func send(size: Int, at now: UInt64) -> UInt64? {
        if randomLoss > 0, Double(random.next() >> 11) / Double(UInt64(1) << 53) < randomLoss {
            dropped += 1
            return nil
        }
        let start = max(now, busyUntil)
        // Waiting longer than the queue's worth of time means more bytes are
        // queued than it holds: drop the newcomer.
        if Double(start - now) / 1e9 > queueLimit {
            dropped += 1
            return nil
        }
        delivered += 1
        queueingDelayTotal += start - now
        busyUntil = start + UInt64(Double(size * 8) / bitsPerSecond * 1e9)
        return busyUntil + propagation
    }
}
