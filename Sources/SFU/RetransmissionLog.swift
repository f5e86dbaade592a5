import Packets

/// When a DownTrack last resent each of its recent sequence numbers, so a
/// packet goes out again at most once per round trip: a receiver that
/// asks again before the first copy could have arrived (its NACK timer
/// runs on its own RTT, which a queue stretches) gets nothing more, as
/// libwebrtc's sender does. On a congested link every NACK answered twice
/// added a copy to the queue that caused the loss (bwe-grid: 130
/// retransmissions in 2 s to a 600 kbit/s subscriber, its whole link).
///
/// 256 slots indexed by the low bits of the sequence number, each holding
/// the number and the time; a slot taken by a newer number forgets the
/// older one, which then may be resent early (never wrongly withheld).
/// Allocated on the first NACK, not per packet.
struct RetransmissionLog {
    static let capacity = 256
    private var slots: [UInt64] = []

    /// True, and `sequenceNumber` recorded as resent at `now`, unless it
    /// was resent less than `interval` ago.
    mutating func mayResend(_ sequenceNumber: UInt16, now: MediaTime, interval: UInt64) -> Bool {
        if slots.isEmpty { slots = Array(repeating: .max, count: Self.capacity) }
        let index = Int(sequenceNumber) & (Self.capacity - 1)
        // The number in the top 16 bits, milliseconds in the rest (8,900
        // years of them).
        let milliseconds = now.nanoseconds / 1_000_000
        let entry = slots[index]
        if entry != .max, UInt16(truncatingIfNeeded: entry >> 48) == sequenceNumber {
            let last = entry & 0xFFFF_FFFF_FFFF
            if milliseconds >= last && (milliseconds - last) * 1_000_000 < interval { return false }
        }
        slots[index] = UInt64(sequenceNumber) << 48 | (milliseconds & 0xFFFF_FFFF_FFFF)
        return true
    }
}
