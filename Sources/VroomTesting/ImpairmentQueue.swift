/// Datagrams waiting for their sending time, in the order they leave.
/// Sans-I/O: times are monotonic nanoseconds from the caller's clock.
///
/// Order rule: a datagram that was not picked for reordering never leaves
/// before one that arrived earlier and was not picked either (its time is
/// raised to that one's), so jitter delays without reordering; a reordered
/// datagram keeps its own, later, time and is overtaken.
public struct ImpairmentQueue<Payload> {
    private struct Entry {
        var release: UInt64
        var order: UInt64
        var payload: Payload
    }

    /// Sorted by (release, order): the next to leave is first. Inserting
    /// is O(n), fine for the few hundred datagrams a test link holds.
    private var entries: [Entry] = []
    private var nextOrder: UInt64 = 0
    private var lastInOrderRelease: UInt64 = 0

    public init() {}

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// When the first datagram is due, nil when empty.
    public var nextRelease: UInt64? { entries.first?.release }

    /// Queues `payload` (twice when the decision duplicates it), unless the
    /// decision drops it; returns the time at which it leaves, nil if dropped.
    @discardableResult
    public mutating func schedule(_ payload: Payload, decision: ImpairmentDecision, now: UInt64) -> UInt64? {
        guard !decision.dropped else { return nil }
        var release = now &+ decision.delayNanoseconds
        if !decision.reordered {
            release = max(release, lastInOrderRelease)
            lastInOrderRelease = release
        }
        insert(Entry(release: release, order: nextOrder, payload: payload))
        nextOrder &+= 1
        if decision.duplicated {
            insert(Entry(release: release, order: nextOrder, payload: payload))
            nextOrder &+= 1
        }
        return release
    }

    /// Removes and returns the first datagram if it is due at `now`.
    public mutating func popDue(now: UInt64) -> Payload? {
        guard let first = entries.first, first.release <= now else { return nil }
        return entries.removeFirst().payload
    }

    private mutating func insert(_ entry: Entry) {
        // Binary search for the first entry that leaves after this one.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let other = entries[middle]
            if (other.release, other.order) <= (entry.release, entry.order) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        entries.insert(entry, at: low)
    }
}
