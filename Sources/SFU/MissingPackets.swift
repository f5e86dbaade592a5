import Packets

/// The publisher packets a video receiver saw go missing, to NACK (RFC 4585
/// generic NACK) until they arrive, directly or as RTX.
///
/// At most 128 at a time: a longer gap is cheaper to end with a keyframe
/// (a burst that long is over 0.8 s of 150 packets/s video), and it is the
/// gap aiortc itself tolerates before resyncing (INTEROP.md). Each is asked
/// for up to 5 times, 100 ms apart (above a typical RTT, so a repair in
/// flight is not requested again). Storage is reserved once.
struct MissingPackets {
    static let capacity = 128
    static let maximumRequests: UInt8 = 5
    static let retryInterval: UInt64 = 100_000_000

    struct Entry {
        /// The publisher's extended sequence number.
        var sequence: UInt64
        var requests: UInt8 = 0
        var lastRequest: MediaTime?
    }

    private(set) var entries: [Entry] = []

    init() {
        entries.reserveCapacity(Self.capacity)
    }

    var isEmpty: Bool { entries.isEmpty }

    /// Numbers from `first` up to (not including) `end` went missing.
    /// Returns false when the gap is too long to repair by NACK.
    mutating func add(from first: UInt64, to end: UInt64) -> Bool {
        guard end &- first <= UInt64(Self.capacity) else { return false }
        var sequence = first
        while sequence < end {
            if entries.count == Self.capacity { entries.removeFirst() }
            entries.append(Entry(sequence: sequence))
            sequence &+= 1
        }
        return true
    }

    /// `sequence` arrived.
    mutating func remove(_ sequence: UInt64) {
        if let index = entries.firstIndex(where: { $0.sequence == sequence }) { entries.remove(at: index) }
    }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    /// Marks the entries due at `now` as requested and calls `body` with
    /// each one's 16-bit number; drops entries asked for too often or
    /// older than `oldest`.
    mutating func takeDue(now: MediaTime, oldest: UInt64, _ body: (UInt16) -> Void) {
        entries.removeAll { $0.requests >= Self.maximumRequests || $0.sequence < oldest }
        for index in entries.indices {
            if let last = entries[index].lastRequest, now.nanoseconds(since: last) < Self.retryInterval { continue }
            entries[index].requests &+= 1
            entries[index].lastRequest = now
            body(UInt16(truncatingIfNeeded: entries[index].sequence))
        }
    }

    /// Whether an entry will be due again (for `tick`'s deadline).
    var hasPending: Bool { !entries.isEmpty }
}
