/// The rate at which the receiver actually got our packets, from the arrival
/// times transport-cc feedback reports. A decrease aims below this rate, not
/// below what we sent: on a congested link the two differ by exactly the
/// excess that builds the queue.
struct AcknowledgedBitrate: Sendable {
    /// Arrivals are summed in bins of 150 ms of the receiver's clock: a
    /// shorter bin at 300 kbit/s holds 4 packets and swings with each one, a
    /// longer one lags a halved link by more than the 1 s we allow to react.
    static let binLength: Int64 = 150_000_000
    /// Weight of the newest bin in the smoothed rate.
    static let newWeight = 0.7

    private var binStart: Int64?
    private var binBytes = 0
    private var lastArrival: Int64 = 0
    private(set) var bitsPerSecond: Double?

    mutating func add(arrival: Int64, size: Int) {
        guard let start = binStart else {
            binStart = arrival
            binBytes = size
            lastArrival = arrival
            return
        }
        defer { lastArrival = max(lastArrival, arrival) }
        if arrival - lastArrival > Self.binLength {
            // Nothing arrived for longer than a bin: the packets were held
            // (ICE-TCP's head-of-line blocking behind one retransmission) or
            // none were sent, and either way the silence is no reading of
            // the link's rate. Summed into the open bin it was one: a 400 ms
            // stall at 340 kbit/s read 160 kbit/s, and the cut that followed
            // switched a video off for 5 s. Drop the bin and start afresh at
            // this packet, as libwebrtc's BitrateEstimator does after a full
            // window without arrivals.
            binStart = arrival
            binBytes = size
            return
        }
        if arrival < start {
            // Reordered across a bin boundary: count it in the open bin.
            binBytes += size
            return
        }
        let elapsed = arrival - start
        if elapsed < Self.binLength {
            binBytes += size
            return
        }
        let sample = Double(binBytes) * 8 / (Double(elapsed) / 1e9)
        if let current = bitsPerSecond {
            bitsPerSecond = (1 - Self.newWeight) * current + Self.newWeight * sample
        } else {
            bitsPerSecond = sample
        }
        binStart = arrival
        binBytes = size
    }
}
