/// Whether the sender is application-limited: sending well below the
/// estimate because it has nothing more to send (one audio track, a paused
/// layer), not because the link refuses more. libwebrtc's AlrDetector idea:
/// a byte budget refilled at 65% of the estimate and drained by what is sent;
/// a budget that stays nearly full means the sender is not using the link.
/// Plain fields: `onSent` runs per packet and never allocates.
struct ApplicationLimitedDetector: Sendable {
    /// The budget refills at 65% of the estimate: a sender at 70% of the
    /// estimate is using the link; one at 30% is not.
    static let usageRatio = 0.65
    /// The budget holds at most 500 ms of refill: one keyframe burst (tens of
    /// kB) drains it, a second of silence fills it.
    static let window = 0.5
    /// Enter ALR when the budget is 80% full, leave it below 50%
    /// (hysteresis, so one burst does not toggle it).
    static let startRatio = 0.8
    static let endRatio = 0.5

    private var budgetBits = 0.0
    private var lastUpdate: UInt64?
    private(set) var isApplicationLimited = false
    /// When the sender last entered ALR.
    private(set) var since: UInt64?

    /// Refills the budget up to `now` at the estimate's rate.
    mutating func advance(now: UInt64, estimate: Double) {
        defer { lastUpdate = max(lastUpdate ?? now, now) }
        guard let last = lastUpdate, now > last else { return }
        let seconds = Double(now - last) / 1e9
        let capacity = estimate * Self.usageRatio * Self.window
        budgetBits = min(budgetBits + estimate * Self.usageRatio * seconds, capacity)
        evaluate(capacity: capacity, now: now)
    }

    mutating func onSent(bytes: Int, now: UInt64, estimate: Double) {
        advance(now: now, estimate: estimate)
        let capacity = estimate * Self.usageRatio * Self.window
        budgetBits = max(budgetBits - Double(bytes) * 8, -capacity)
        evaluate(capacity: capacity, now: now)
    }

    private mutating func evaluate(capacity: Double, now: UInt64) {
        guard capacity > 0 else { return }
        let ratio = budgetBits / capacity
        if !isApplicationLimited, ratio > Self.startRatio {
            isApplicationLimited = true
            since = now
        } else if isApplicationLimited, ratio < Self.endRatio {
            isApplicationLimited = false
            since = nil
        }
    }
}
