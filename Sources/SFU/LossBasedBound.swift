/// An upper bound on the estimate from the loss rate: libwebrtc's classic
/// rule (its SendSideBandwidthEstimation). Under 2% loss is noise the codec
/// hides and the bound grows 8% per second until it no longer binds; over
/// 10% the link is dropping what we send, so the bound is cut by half the
/// loss fraction, at most once per 300 ms + RTT; in between it holds. The
/// delay trend does not see random loss (a lossy radio link, a policer), so
/// this is what makes the estimate back off there.
struct LossBasedBound: Sendable {
    static let lowLoss = 0.02
    static let highLoss = 0.10
    /// Fractions over fewer packets say too little: accumulate at least 20.
    static let minimumPackets = 20
    static let decreaseInterval: UInt64 = 300_000_000

    /// nil: loss does not bind the estimate.
    private(set) var bitsPerSecond: Double?
    private var lost = 0
    private var expected = 0
    private var lastUpdate: UInt64?
    private var lastDecrease: UInt64?
    private(set) var lastFraction = 0.0

    /// Counts transport-cc results; applies a fraction once 20 packets are in.
    mutating func add(lost: Int, received: Int, current: Double, rtt: UInt64, now: UInt64) {
        self.lost += lost
        expected += lost + received
        guard expected >= Self.minimumPackets else { return }
        let fraction = Double(self.lost) / Double(expected)
        self.lost = 0
        expected = 0
        apply(fraction: fraction, current: current, rtt: rtt, now: now)
    }

    /// A probe cluster came back whole at `bitsPerSecond`: unless media is
    /// being lost now, the bound is what a past congestion left, and it is
    /// raised to the probe's result (libwebrtc likewise sets its loss-based
    /// target from a probe's result); true when it moved. Without this, a
    /// bound cut during congestion held for good once little or nothing
    /// else was sent (every video switched off): only reports on media grow
    /// it, 8% a second. Media lost now (the last fraction over 2%, reported
    /// within the last second) keeps the bound: a lossy link's probes get
    /// through now and then, and must not undo its cuts.
    mutating func raise(to bitsPerSecond: Double, now: UInt64) -> Bool {
        guard let bound = self.bitsPerSecond, bound < bitsPerSecond else { return false }
        guard (recentFraction(now: now) ?? 0) < Self.lowLoss else { return false }
        self.bitsPerSecond = bitsPerSecond
        return true
    }

    /// The last loss fraction, when it was reported within the last second:
    /// the loss now.
    func recentFraction(now: UInt64) -> Double? {
        guard let lastUpdate, now < lastUpdate + 1_000_000_000 else { return nil }
        return lastFraction
    }

    /// Applies one loss fraction (a receiver report's, or accumulated
    /// feedback's) against the current target.
    mutating func apply(fraction: Double, current: Double, rtt: UInt64, now: UInt64) {
        lastFraction = fraction
        let elapsed = lastUpdate.map { Double(now >= $0 ? now - $0 : 0) / 1e9 } ?? 0
        lastUpdate = now
        if fraction < Self.lowLoss {
            guard let bound = bitsPerSecond else { return }
            // 8% per second (linearised over at most 1 s), +1 kbit/s so a
            // tiny bound still moves.
            let grown = bound * (1 + 0.08 * min(elapsed, 1)) + 1000
            bitsPerSecond = grown >= current ? nil : grown
        } else if fraction > Self.highLoss {
            if let last = lastDecrease, now < last + Self.decreaseInterval + rtt { return }
            let base = min(bitsPerSecond ?? current, current)
            bitsPerSecond = base * (1 - fraction / 2)
            lastDecrease = now
        }
    }
}
