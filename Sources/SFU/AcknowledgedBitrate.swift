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
    private(set) var bitsPerSecond: Double?

    mutating func add(arrival: Int64, size: Int) {
        guard let start = binStart else {
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
