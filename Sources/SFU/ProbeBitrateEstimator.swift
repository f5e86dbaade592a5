/// Measures what a probe cluster proved: the rate its packets left at and
/// the rate they arrived at, from their transport-cc feedback. If the link
/// carried the probe, the arrivals keep pace with the sends; if not, the
/// bottleneck spaced them out and the arrival rate is the link's. The rules
/// follow libwebrtc's ProbeBitrateEstimator: a cluster needs most of its
/// packets back, and one received at under half its send rate is not
/// trusted (cross traffic, not capacity, spaced it out).
struct ProbeBitrateEstimator: Sendable {
    private struct Cluster: Sendable {
        var id = -1
        var firstSend: UInt64 = .max
        var lastSend: UInt64 = 0
        var lastSendSize = 0
        var firstArrival: Int64 = .max
        var lastArrival: Int64 = .min
        var firstArrivalSize = 0
        var bytes = 0
        var received = 0
    }

    /// Clusters are numbered in order and at most two are in flight at once
    /// (the initial 3x and 6x): four slots keep one being measured while
    /// late feedback of the previous ones still comes in.
    static let slots = 4
    /// Of the packets asked for, 80% must come back for a measurement.
    static let requiredFraction = 0.8
    /// Send at more than twice the arrival rate: not a measurement.
    static let maximumRatio = 2.0
    /// Arrivals slower than 90% of sends: the probe saturated the link, take
    /// 95% of the arrival rate (a little under the measured capacity).
    static let saturatedRatio = 0.9
    static let saturatedUtilisation = 0.95
    /// Intervals longer than 1 s are not a burst.
    static let maximumInterval: Double = 1.0

    private var clusters = [Cluster](repeating: Cluster(), count: ProbeBitrateEstimator.slots)
    /// Per slot: the cluster sent there and the bytes it was to carry.
    private var expected = [(id: Int, bytes: Int)](repeating: (-1, 0), count: ProbeBitrateEstimator.slots)

    /// Cluster `id` goes out with at least `minimumBytes`: a measurement
    /// then also needs 80% of those bytes back, as libwebrtc asks. A few
    /// small packets are not enough: a bottleneck's token bucket (a shaper's
    /// burst of a packet or two) lets them through at the sender's speed,
    /// and the result reads several times the link.
    mutating func expect(cluster id: Int, minimumBytes: Int) {
        guard id >= 0 else { return }
        expected[id % Self.slots] = (id, minimumBytes)
    }

    /// Adds one received probe packet; returns the cluster's measured rate
    /// when it has enough packets back for one.
    mutating func add(
        cluster id: Int, minimumPackets: Int, sendTime: UInt64, arrival: Int64, size: Int
    ) -> Double? {
        guard id >= 0 else { return nil }
        let slot = id % Self.slots
        if clusters[slot].id != id { clusters[slot] = Cluster(id: id) }
        var c = clusters[slot]
        if sendTime < c.firstSend { c.firstSend = sendTime }
        if sendTime >= c.lastSend {
            c.lastSend = sendTime
            c.lastSendSize = size
        }
        if arrival < c.firstArrival {
            c.firstArrival = arrival
            c.firstArrivalSize = size
        }
        if arrival > c.lastArrival { c.lastArrival = arrival }
        c.bytes += size
        c.received += 1
        clusters[slot] = c
        let minimumBytes = expected[slot].id == id ? expected[slot].bytes : 0
        return Self.measure(c, minimumPackets: minimumPackets, minimumBytes: minimumBytes)
    }

    private static func measure(_ c: Cluster, minimumPackets: Int, minimumBytes: Int) -> Double? {
        guard Double(c.received) >= requiredFraction * Double(max(minimumPackets, 2)),
            Double(c.bytes) >= requiredFraction * Double(minimumBytes)
        else { return nil }
        let sendInterval = Double(c.lastSend - c.firstSend) / 1e9
        let arrivalInterval = Double(c.lastArrival - c.firstArrival) / 1e9
        guard sendInterval > 0, sendInterval <= maximumInterval,
              arrivalInterval > 0, arrivalInterval <= maximumInterval else { return nil }
        // The last packet sent and the first received open and close the
        // intervals: their bytes fall outside them.
        let sendRate = Double(c.bytes - c.lastSendSize) * 8 / sendInterval
        let arrivalRate = Double(c.bytes - c.firstArrivalSize) * 8 / arrivalInterval
        guard sendRate <= maximumRatio * arrivalRate else { return nil }
        if arrivalRate < saturatedRatio * sendRate {
            return saturatedUtilisation * arrivalRate
        }
        return min(sendRate, arrivalRate)
    }
}
