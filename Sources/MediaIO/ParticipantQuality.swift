import SFU

/// A participant's network quality as its media worker last rated it, for
/// `/Stats` and metrics: the figures behind the last `networkQuality`.
public struct ParticipantQuality: Sendable, Hashable {
    /// 0-5, nil before the first rating (no media yet, and not 5 s).
    public var level: Int?
    public var warnings: [MediaQualityWarning]
    /// The last sample's MOS (1-4.5), loss fraction (0...1, the worse
    /// direction), jitter and round-trip time in seconds; nil when unmeasured.
    public var mos: Double?
    public var lossFraction: Double?
    public var jitter: Double?
    public var roundTripTime: Double?

    init(_ monitor: NetworkQualityMonitor) {
        level = monitor.current?.level
        warnings = monitor.current?.warnings ?? []
        mos = monitor.lastMOS
        lossFraction = monitor.lastLoss
        jitter = monitor.lastJitter
        roundTripTime = monitor.lastRoundTripTime
    }
}
