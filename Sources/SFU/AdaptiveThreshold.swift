/// The bound the delay trend is compared against. A fixed bound either
/// starves against a loss-based TCP flow (too low) or reacts late (too
/// high); adapting it to the recent trend lets the estimator hold its share
/// (Carlucci et al., "Analysis and design of the Google Congestion Control",
/// section 4.2). It rises slowly toward large trends and falls quickly
/// toward small ones.
struct AdaptiveThreshold: Sendable {
    /// Starting bound, in the trend's unit (ms of modified slope).
    private(set) var value = 12.5
    private var lastUpdate: Double?

    /// Gains per millisecond: up when the trend is above the bound, down
    /// when below (the paper's k_u and k_d).
    static let upGain = 0.0087
    static let downGain = 0.039
    static let range = 6.0...600.0
    /// A trend this far above the bound is a spike (a keyframe burst, a
    /// route change), not a new normal: the bound does not chase it.
    static let spikeMargin = 15.0

    mutating func update(trend: Double, nowMs: Double) {
        defer { lastUpdate = nowMs }
        let magnitude = abs(trend)
        guard let last = lastUpdate else { return }
        if magnitude > value + Self.spikeMargin { return }
        let gain = magnitude < value ? Self.downGain : Self.upGain
        // An update after a long silence must not swing the bound in one
        // step: count at most 100 ms.
        let elapsed = min(max(nowMs - last, 0), 100)
        value += gain * (magnitude - value) * elapsed
        value = min(max(value, Self.range.lowerBound), Self.range.upperBound)
    }
}
