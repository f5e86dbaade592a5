import Packets
import WebRTC

/// Decides which missing sequence numbers of one remote stream to NACK
/// (RFC 4585 generic NACK) and when: each at once when first missed, then
/// again every `retryInterval` up to `maximumAttempts` times; a number no
/// longer missing is forgotten.
struct NACKScheduler {
    struct Entry {
        var attempts: Int
        var lastSent: MediaTime
    }

    /// 5 attempts 60 ms apart span 300 ms: a few round trips on a 50 ms path.
    var maximumAttempts = 5
    var retryInterval: UInt64 = 60_000_000

    private var entries: [UInt16: Entry] = [:]

    /// The numbers to NACK now, given all that are missing.
    mutating func due(missing: [UInt16], now: MediaTime) -> [UInt16] {
        let missingSet = Set(missing)
        entries = entries.filter { missingSet.contains($0.key) }
        var due: [UInt16] = []
        for sequence in missing {
            if var entry = entries[sequence] {
                guard entry.attempts < maximumAttempts, now.nanoseconds(since: entry.lastSent) >= retryInterval else {
                    continue
                }
                entry.attempts += 1
                entry.lastSent = now
                entries[sequence] = entry
            } else {
                entries[sequence] = Entry(attempts: 1, lastSent: now)
            }
            due.append(sequence)
        }
        return due
    }
}
