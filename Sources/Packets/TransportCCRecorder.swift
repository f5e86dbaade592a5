/// The arrival times of one connection's packets, by transport-wide
/// sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01), and
/// the feedback built from them: what a receiver keeps so that the sender's
/// congestion control can see the delays. The server keeps one per
/// publisher connection, the client SDK one on its subscriber connection.
///
/// A ring of 1,024 arrivals: feedback goes out every 50 ms, so the ring
/// covers 20 intervals at 1,000 packets a second (more than a 2.5 Mbit/s
/// stream sends) before an unreported arrival is overwritten.
public final class TransportCCRecorder {
    public static let capacity: UInt64 = 1024
    /// At most this many packets per feedback: 500 two-byte deltas plus
    /// chunks stay under 1,200 bytes.
    public static let maximumPacketsPerFeedback: UInt64 = 500

    private var sequences: [UInt64]
    private var arrivals: [UInt64]
    private var unwrapper = SequenceNumberUnwrapper()
    /// The first sequence number the next feedback reports.
    private var nextToReport: UInt64?
    private var feedbackCount: UInt8 = 0

    public init() {
        sequences = Array(repeating: .max, count: Int(Self.capacity))
        arrivals = Array(repeating: 0, count: Int(Self.capacity))
    }

    /// Records the arrival of transport-wide sequence number `sequence`.
    public func record(_ sequence: UInt16, at now: MediaTime) {
        let extended = unwrapper.unwrap(sequence)
        if let next = nextToReport, extended < next { return }
        if nextToReport == nil { nextToReport = extended }
        let index = Int(extended % Self.capacity)
        sequences[index] = extended
        arrivals[index] = now.nanoseconds
    }

    /// Whether there are arrivals not yet reported.
    public var hasPending: Bool {
        guard let next = nextToReport, let highest = unwrapper.highest else { return false }
        return next <= highest
    }

    /// The next feedback, covering arrivals from the last reported one on
    /// (at most `maximumPacketsPerFeedback`); nil when nothing is pending.
    public func nextFeedback(senderSSRC: SSRC, mediaSSRC: SSRC) -> TransportCCFeedback? {
        guard var next = nextToReport, let highest = unwrapper.highest, next <= highest else { return nil }
        if highest &- next >= Self.capacity { next = highest &- Self.capacity &+ 1 }
        var end = min(highest, next &+ Self.maximumPacketsPerFeedback &- 1)
        var first: UInt64?
        var probe = next
        while probe <= end {
            if sequences[Int(probe % Self.capacity)] == probe {
                first = probe
                break
            }
            probe &+= 1
        }
        guard let first else {
            nextToReport = end &+ 1
            return nil
        }
        // Reference time in 64 ms units; deltas in 250 us units (1/256 of it).
        let reference = arrivals[Int(first % Self.capacity)] / 64_000_000
        var last = Int64(reference) &* 256
        var deltas: [Int16?] = []
        deltas.reserveCapacity(Int(end &- next &+ 1))
        var sequence = next
        while sequence <= end {
            let index = Int(sequence % Self.capacity)
            if sequences[index] == sequence {
                let time = Int64(arrivals[index] / 250_000)
                let delta = time &- last
                guard let small = Int16(exactly: delta) else {
                    // More than 8 s apart: end this feedback before it.
                    end = sequence &- 1
                    break
                }
                deltas.append(small)
                last = time
            } else {
                deltas.append(nil)
            }
            sequence &+= 1
        }
        // Trailing losses are reported by the next feedback, after a packet.
        while deltas.last == .some(nil) { deltas.removeLast() }
        let feedback = TransportCCFeedback(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: UInt16(truncatingIfNeeded: next),
            referenceTime: Int32(truncatingIfNeeded: reference), feedbackPacketCount: feedbackCount,
            deltas: deltas)
        feedbackCount &+= 1
        nextToReport = next &+ UInt64(deltas.count)
        return feedback
    }
}
