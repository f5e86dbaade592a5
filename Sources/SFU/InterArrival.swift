/// Groups acknowledged packets into send groups and reports, for each pair of
/// consecutive groups, how much longer (or shorter) the receiver took to see
/// them than the sender took to send them. A pacer sends in bursts a few ms
/// apart and a receiver's clock ticks coarsely, so single packets are too
/// noisy: libwebrtc's and str0m's inter-arrival stages group by a 5 ms send
/// window, and so does this one.
///
/// Like libwebrtc's `InterArrivalDelta::BelongsToBurst`, packets that reach
/// the receiver together (within 5 ms of the group's last arrival, sooner
/// after it than they were sent, the burst spanning under 100 ms of
/// arrivals) join the group whatever their send times: a receiver that
/// stops reading for a while (an app busy on its network thread, Wi-Fi
/// aggregation) stamps everything it then reads at once, and read as send
/// groups that stall is a delay spike and a drain, which the trend takes for
/// a queue. Measured with the SDK in the load test: its event loop stalled
/// 50-120 ms once a second (the audio analysis its statistics ran), and
/// each stall read as overuse until every subscriber was at the 30 kbit/s
/// floor on an unshaped loopback link.
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
        var firstArrival: Int64
        var lastArrival: Int64

        init(firstSend: UInt64, lastSend: UInt64, lastArrival: Int64) {
            self.firstSend = firstSend
            self.lastSend = lastSend
            self.firstArrival = lastArrival
            self.lastArrival = lastArrival
        }
    }

    /// Packets sent within 5 ms of a group's first packet belong to it: one
    /// pacer burst (libwebrtc's kTimestampGroupLengthMs).
    static let groupSpan: UInt64 = 5_000_000
    /// A packet arriving this soon after the group's last one, sooner after
    /// it than it was sent, is part of a burst (libwebrtc's
    /// kBurstDeltaThreshold).
    static let burstArrivalSpan: Int64 = 5_000_000
    /// A burst spans at most this much arrival time (kMaxBurstDuration): a
    /// link that keeps delivering faster than the sender sends is draining
    /// a queue, and the drain must show.
    static let maximumBurst: Int64 = 100_000_000
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
        if sendTime - group.firstSend <= Self.groupSpan || belongsToBurst(group, sendTime: sendTime, arrival: arrival) {
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

    /// libwebrtc's `BelongsToBurst`: arrived within 5 ms of the group's last
    /// arrival, less time after it than it was sent after it, and the group
    /// has been arriving for under 100 ms.
    private func belongsToBurst(_ group: Group, sendTime: UInt64, arrival: Int64) -> Bool {
        let arrivalDelta = arrival - group.lastArrival
        let sendDelta = Int64(sendTime) - Int64(group.lastSend)
        if sendDelta == 0 { return true }
        return arrivalDelta - sendDelta < 0 && arrivalDelta <= Self.burstArrivalSpan
            && arrival - group.firstArrival < Self.maximumBurst
    }
}
