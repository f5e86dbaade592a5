/// Groups acknowledged packets into send groups and reports, for each pair of
/// consecutive groups, how much longer (or shorter) the receiver took to see
/// them than the sender took to send them. A pacer sends in bursts a few ms
/// apart and a receiver's clock ticks coarsely, so single packets are too
/// noisy: libwebrtc's and str0m's inter-arrival stages group by a 5 ms send
/// window, and so does this one.
struct InterArrival: Sendable {
    /// One pair of consecutive send groups, in milliseconds.
    struct Delta: Sendable, Equatable {
        /// Between the groups' last send times.
        var sendDelta: Double
        /// Between the groups' last arrival times (the receiver's clock).
        var arrivalDelta: Double
        /// The newer group's last arrival, ms on the receiver's clock.
        var arrivalTime: Double
    }

    private struct Group: Sendable {
        var firstSend: UInt64
        var lastSend: UInt64
        var lastArrival: Int64
    }

    /// Packets sent within 5 ms of a group's first packet belong to it: one
    /// pacer burst (libwebrtc's kTimestampGroupLengthMs).
    static let groupSpan: UInt64 = 5_000_000
    /// An arrival gap this long means the receiver's clock or the path
    /// changed (a 3 s freeze, a new route): start over rather than read it as
    /// queueing.
    static let resetGap: Int64 = 3_000_000_000

    private var current: Group?
    private var previous: Group?

    /// Adds one received packet (feedback order); returns a delta when the
    /// packet closes a group that has a predecessor.
    mutating func add(sendTime: UInt64, arrival: Int64) -> Delta? {
        guard var group = current else {
            current = Group(firstSend: sendTime, lastSend: sendTime, lastArrival: arrival)
            return nil
        }
        // A packet sent before the group began was reordered: its delay says
        // nothing about the trend.
        if sendTime < group.firstSend { return nil }
        if sendTime - group.firstSend <= Self.groupSpan {
            group.lastSend = max(group.lastSend, sendTime)
            group.lastArrival = max(group.lastArrival, arrival)
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            let arrivalDelta = group.lastArrival - previous.lastArrival
            if arrivalDelta < 0 || arrivalDelta > Self.resetGap {
                // Reordered groups or a clock jump: forget both.
                self.previous = nil
                self.current = Group(firstSend: sendTime, lastSend: sendTime, lastArrival: arrival)
                return nil
            }
            delta = Delta(
                sendDelta: Double(group.lastSend - previous.lastSend) / 1e6,
                arrivalDelta: Double(arrivalDelta) / 1e6,
                arrivalTime: Double(group.lastArrival) / 1e6
            )
        }
        previous = group
        current = Group(firstSend: sendTime, lastSend: sendTime, lastArrival: arrival)
        return delta
    }
}
