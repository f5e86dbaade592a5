/// Turns inter-group delay variations into a congestion signal: the slope of
/// the accumulated one-way delay over the last `windowSize` groups (a least
/// squares fit of smoothed delay against arrival time), scaled and compared
/// against an `AdaptiveThreshold`. A positive slope means packets wait
/// longer and longer: a queue is building at the bottleneck before it drops
/// anything. This is the shape of libwebrtc's TrendlineEstimator.
struct TrendlineFilter: Sendable {
    private struct Point: Sendable {
        var x: Double
        var y: Double
    }

    /// 20 groups of ~5 ms: the fit spans about 100 ms of sending at rate,
    /// enough to see a queue grow within one RTT.
    static let windowSize = 20
    /// Exponential smoothing of the accumulated delay: arrival jitter is a
    /// few ms per group, the trend it hides is tenths of a ms per group.
    static let smoothing = 0.9
    /// The slope is tiny (ms of delay per ms); scaling by the number of
    /// deltas (capped at 60) and by 4 brings it to the threshold's range.
    static let gain = 4.0
    static let maxDeltaCount = 60.0
    /// Overuse must last this long (ms of sending) before it counts: one
    /// burst of cross traffic is not congestion.
    static let overuseTime = 10.0

    private var window = RingBuffer(capacity: TrendlineFilter.windowSize, filler: Point(x: 0, y: 0))
    private var firstArrival: Double?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    private var deltaCount = 0.0
    private var previousTrend = 0.0
    private var overuseDuration = -1.0
    private var overuseCount = 0
    private(set) var threshold = AdaptiveThreshold()
    private(set) var usage = BandwidthUsage.normal
    /// The last scaled trend compared against the threshold (for tests and
    /// stats).
    private(set) var modifiedTrend = 0.0

    mutating func update(_ delta: InterArrival.Delta) {
        let variation = delta.arrivalDelta - delta.sendDelta
        deltaCount = min(deltaCount + 1, 1000)
        accumulatedDelay += variation
        smoothedDelay = Self.smoothing * smoothedDelay + (1 - Self.smoothing) * accumulatedDelay
        let origin = firstArrival ?? delta.arrivalTime
        firstArrival = origin
        window.append(Point(x: delta.arrivalTime - origin, y: smoothedDelay))
        var trend = previousTrend
        if window.isFull, let slope = fittedSlope() {
            trend = slope
        }
        detect(trend: trend, sendDelta: delta.sendDelta, nowMs: delta.arrivalTime)
    }

    /// Least squares slope of the window; nil when all points share one x.
    private func fittedSlope() -> Double? {
        let n = Double(window.count)
        var sumX = 0.0
        var sumY = 0.0
        for i in 0..<window.count {
            sumX += window[i].x
            sumY += window[i].y
        }
        let meanX = sumX / n
        let meanY = sumY / n
        var numerator = 0.0
        var denominator = 0.0
        for i in 0..<window.count {
            let dx = window[i].x - meanX
            numerator += dx * (window[i].y - meanY)
            denominator += dx * dx
        }
        return denominator == 0 ? nil : numerator / denominator
    }

    private mutating func detect(trend: Double, sendDelta: Double, nowMs: Double) {
        defer { previousTrend = trend }
        guard deltaCount >= 2 else {
            usage = .normal
            return
        }
        let modified = min(deltaCount, Self.maxDeltaCount) * trend * Self.gain
        modifiedTrend = modified
        if modified > threshold.value {
            if overuseDuration < 0 {
                // Half a group: the overuse began somewhere inside it.
                overuseDuration = sendDelta / 2
            } else {
                overuseDuration += sendDelta
            }
            overuseCount += 1
            if overuseDuration > Self.overuseTime, overuseCount > 1, trend >= previousTrend {
                overuseDuration = 0
                overuseCount = 0
                usage = .overusing
            }
        } else if modified < -threshold.value {
            overuseDuration = -1
            overuseCount = 0
            usage = .underusing
        } else {
            overuseDuration = -1
            overuseCount = 0
            usage = .normal
        }
        threshold.update(trend: modified, nowMs: nowMs)
    }
}
