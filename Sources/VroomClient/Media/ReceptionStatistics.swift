import Packets
import WebRTC

/// RFC 3550 appendix A reception statistics of one remote RTP stream:
/// extended highest sequence, cumulative and interval loss, interarrival
/// jitter, and the LSR/DLSR of the sender's last SR, for receiver reports.
struct ReceptionStatistics {
    let clockRate: UInt32
    private var unwrapper = SequenceUnwrapper()
    private var baseSequence: Int64?
    private(set) var received: Int64 = 0
    private(set) var bytes: Int64 = 0
    /// RFC 3550 A.8 jitter in RTP timestamp units, as a double (J).
    private(set) var jitter: Double = 0
    private var lastTransit: Int64?
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    /// The middle 32 bits of the last SR's NTP timestamp, and when it came.
    private var lastSenderReport: (ntp: UInt32, arrival: MediaTime)?

    init(clockRate: UInt32) {
        self.clockRate = clockRate
    }

    var extendedHighest: Int64 { unwrapper.highest ?? 0 }

    /// Expected minus received since the first packet (A.3); never negative
    /// here (duplicates and repairs can exceed the expected count).
    var cumulativeLost: Int64 {
        guard let baseSequence else { return 0 }
        return max(0, extendedHighest - baseSequence + 1 - received)
    }

    /// Jitter in milliseconds.
    var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    /// Counts one packet that arrived at `now` (any order, repairs included).
    mutating func record(sequenceNumber: UInt16, timestamp: UInt32, size: Int, now: MediaTime) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        if baseSequence == nil || sequence < baseSequence! { baseSequence = sequence }
        received += 1
        bytes += Int64(size)
        // A.8: transit = arrival - timestamp in RTP units; D = |transit delta|.
        let arrival = Int64(now.nanoseconds / 1000) * Int64(clockRate) / 1_000_000
        let transit = arrival - Int64(timestamp)
        if let lastTransit {
            var delta = transit - lastTransit
            // Timestamp wrap-around: differences are taken modulo 2^32.
            delta = Int64(Int32(truncatingIfNeeded: delta))
            jitter += (Double(abs(delta)) - jitter) / 16
        }
        lastTransit = transit
    }

    mutating func recordSenderReport(ntpTimestamp: UInt64, now: MediaTime) {
        lastSenderReport = (UInt32(truncatingIfNeeded: ntpTimestamp >> 16), now)
    }

    /// The report block for the interval since the previous one (A.3).
    mutating func report(ssrc: SSRC, now: MediaTime) -> ReceptionReport? {
        guard let baseSequence else { return nil }
        let expected = extendedHighest - baseSequence + 1
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 =
            expectedInterval <= 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var delay: UInt32 = 0
        if let lastSenderReport {
            // DLSR in 1/65536 s.
            delay = UInt32(truncatingIfNeeded: now.nanoseconds(since: lastSenderReport.arrival) * 65536 / 1_000_000_000)
        }
        // The cumulative count is a 24-bit field; A.3 clamps it. The
        // unwrapper starts in cycle 1 (room for early reordering): report
        // the cycles the sender counted, from 0.
        return ReceptionReport(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(min(cumulativeLost, 0x7F_FFFF)),
            extendedHighestSequence: UInt32(truncatingIfNeeded: max(0, extendedHighest - 0x1_0000)), jitter: UInt32(jitter),
            lastSR: lastSenderReport?.ntp ?? 0, delaySinceLastSR: delay)
    }
}
