import Packets

/// A bitrate and a packet rate, per second.
public struct TrackRate: Sendable, Equatable {
    public var bitsPerSecond: Double
    public var packetsPerSecond: Double

    public init(bitsPerSecond: Double, packetsPerSecond: Double) {
        self.bitsPerSecond = bitsPerSecond
        self.packetsPerSecond = packetsPerSecond
    }
}

/// The rate of a track's cumulative byte and packet counters over about the
/// last second, for stats. The router marks the counters once a second (its
/// report tick, `Router.markRates`); a rate is read against the older of the
/// last two marks, so its window is 1-2 s long and never nearly empty right
/// after a mark (a 20 ms window would see one Opus packet or none). Plain
/// fields, no array: marking never allocates.
public struct RateMeter: Sendable, Equatable {
    struct Mark: Sendable, Equatable {
        var bytes: UInt64
        var packets: UInt64
        var at: MediaTime
    }

    private var older: Mark?
    private var newer: Mark?

    /// A window shorter than 200 ms says little: no rate from it (10 Opus
    /// packets, a fraction of a video frame's burst).
    static let minimumWindow: UInt64 = 200_000_000

    public init() {}

    /// Records the counters at `now`.
    public mutating func mark(bytes: UInt64, packets: UInt64, now: MediaTime) {
        older = newer
        newer = Mark(bytes: bytes, packets: packets, at: now)
    }

    /// The rate from the older mark (or the only one) to `now`; nil before
    /// any mark or while the window is shorter than `minimumWindow`.
    public func rate(bytes: UInt64, packets: UInt64, now: MediaTime) -> TrackRate? {
        guard let base = older ?? newer, now > base.at else { return nil }
        let elapsed = now.nanoseconds(since: base.at)
        guard elapsed >= Self.minimumWindow else { return nil }
        let seconds = Double(elapsed) / 1e9
        // Counters restart only with a new object; a smaller value would be a
        // bug, and reads as 0 rather than as a huge unsigned difference.
        let byteDelta = bytes >= base.bytes ? bytes - base.bytes : 0
        let packetDelta = packets >= base.packets ? packets - base.packets : 0
        return TrackRate(bitsPerSecond: Double(byteDelta) * 8 / seconds, packetsPerSecond: Double(packetDelta) / seconds)
    }
}
