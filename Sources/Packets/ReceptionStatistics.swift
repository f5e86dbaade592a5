/// What a receiver knows about one incoming RTP stream for its RTCP receiver
/// report: loss (RFC 3550 appendix A.3) and interarrival jitter (appendix
/// A.8), on extended sequence numbers (`SequenceNumberUnwrapper`'s, which
/// start at cycle 1). The SFU's Receiver and the client SDK's remote tracks
/// both keep one; both may import Packets.
public struct ReceptionStatistics: Sendable, Equatable {
    /// The stream's RTP clock, in Hz (48,000 for Opus, 90,000 for VP8).
    public let clockRate: UInt32
    /// The first extended sequence number received (A.3's base_seq).
    public private(set) var baseSequence: UInt64?
    /// The newest extended sequence number (A.3's max_seq with its cycles).
    public private(set) var highestSequence: UInt64 = 0
    /// Packets received, duplicates excluded, retransmissions included.
    public private(set) var received: UInt64 = 0
    /// Gaps seen when a packet arrived beyond the next expected number, and
    /// the packets in them (late arrivals are not taken back): the burst
    /// ratio of network quality's E-model.
    public private(set) var gaps: UInt64 = 0
    public private(set) var gapPackets: UInt64 = 0
    /// Jitter times 16, in RTP timestamp units (A.8's integer form).
    private var jitterQ4: UInt32 = 0
    private var lastTransit: UInt32?
    /// Expected and received at the last report, for the fraction lost.
    private var expectedPrior: UInt64 = 0
    private var receivedPrior: UInt64 = 0
    /// The middle 32 bits of the last sender report's NTP timestamp (LSR)
    /// and when it arrived, in nanoseconds, for the DLSR (RFC 3550 6.4.1).
    private var lastSenderReport: UInt32?
    private var lastSenderReportArrival: MediaTimeValue = 0

    public init(clockRate: UInt32) {
        self.clockRate = clockRate
    }

    /// Packets expected from the first to the newest sequence number.
    public var expected: UInt64 {
        guard let baseSequence else { return 0 }
        return highestSequence &- baseSequence &+ 1
    }

    /// Cumulative packets lost (negative with duplicates in A.3; here never,
    /// since duplicates are not counted), clamped to the RR's 24 bits.
    public var cumulativeLost: Int32 {
        let lost = Int64(bitPattern: expected) &- Int64(bitPattern: received)
        return Int32(clamping: min(max(lost, -0x80_0000), 0x7F_FFFF))
    }

    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32 { jitterQ4 >> 4 }

    /// Interarrival jitter in seconds.
    public var jitterSeconds: Double { Double(jitter) / Double(clockRate) }

    /// Records a packet. `arrival` feeds the jitter only for a first
    /// transmission (`retransmitted == false`, A.8 excludes repairs).
    public mutating func record(
        extendedSequence: UInt64, timestamp: UInt32, arrival: MediaTimeValue, retransmitted: Bool
    ) {
        if baseSequence == nil {
            baseSequence = extendedSequence
            highestSequence = extendedSequence
        } else if extendedSequence > highestSequence {
            if extendedSequence > highestSequence &+ 1 {
                gaps &+= 1
                gapPackets &+= extendedSequence &- highestSequence &- 1
            }
            highestSequence = extendedSequence
        } else if extendedSequence < baseSequence! {
            baseSequence = extendedSequence
        }
        received &+= 1
        guard !retransmitted else { return }
        // Arrival in RTP units: microseconds times the clock rate fits in 64
        // bits for 6 years of uptime at 90 kHz; the wrap to 32 bits is what
        // A.8 does with its own clock too.
        let arrivalUnits = UInt32(truncatingIfNeeded: (arrival / 1000) &* UInt64(clockRate) / 1_000_000)
        let transit = arrivalUnits &- timestamp
        if let lastTransit {
            let d = Int32(bitPattern: transit &- lastTransit).magnitude
            // J += (|D| - J) / 16, kept times 16: J16 += |D| - J16/16 (A.8).
            jitterQ4 = jitterQ4 &+ d &- ((jitterQ4 &+ 8) >> 4)
        }
        lastTransit = transit
    }

    /// The fraction lost since the previous call, in 1/256 (A.3), and moves
    /// the interval on.
    public mutating func takeFractionLost() -> UInt8 {
        let expectedInterval = expected &- expectedPrior
        let receivedInterval = received &- receivedPrior
        expectedPrior = expected
        receivedPrior = received
        guard expectedInterval > 0, receivedInterval < expectedInterval else { return 0 }
        let lostInterval = expectedInterval - receivedInterval
        return UInt8(truncatingIfNeeded: min(255, (lostInterval << 8) / expectedInterval))
    }

    /// Notes a sender report from this stream's source, which arrived at
    /// `arrival` (nanoseconds), for the next report's LSR and DLSR.
    public mutating func recordSenderReport(ntpTimestamp: UInt64, arrival: MediaTimeValue) {
        lastSenderReport = UInt32(truncatingIfNeeded: ntpTimestamp >> 16)
        lastSenderReportArrival = arrival
    }

    /// The report block for `ssrc` at `now` (nanoseconds), moving the
    /// fraction-lost interval on; nil before the first packet.
    public mutating func takeReport(ssrc: SSRC, now: MediaTimeValue) -> ReceptionReport? {
        guard baseSequence != nil else { return nil }
        let fraction = takeFractionLost()
        // DLSR in 1/65536 s.
        let delay = lastSenderReport == nil ? 0 : UInt32(truncatingIfNeeded: ((now &- lastSenderReportArrival) << 16) / 1_000_000_000)
        return ReceptionReport(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: cumulativeLost,
            // Our extended numbers start at cycle 1 (SequenceNumberUnwrapper); RTCP's at 0.
            extendedHighestSequence: UInt32(truncatingIfNeeded: highestSequence &- 0x1_0000),
            jitter: jitter, lastSR: lastSenderReport ?? 0, delaySinceLastSR: delay)
    }
}

/// Nanoseconds on the caller's clock (`MediaTime.nanoseconds`).
public typealias MediaTimeValue = UInt64
