/// Per-SSRC stream state in storage allocated up front, so the packet path
/// never allocates. A lookup scans a compact array of SSRCs (64 of them are
/// 4 cache lines, faster than hashing at this size); when the table is full
/// a new SSRC takes the least recently used slot.
///
/// Inbound, the bound is what stops a flood of packets with random SSRCs from
/// growing memory (and only authenticated packets ever insert). Outbound the
/// SSRCs are our own: the table starts small and doubles up to its bound, so
/// the rare growth happens when a new SSRC appears, never per packet.
///
/// Laid out for a forwarding worker that protects each copy with another
/// subscriber's context, so each lookup starts with cold caches: the table
/// is a noncopyable value inside its `SRTPContext` (no object of its own to
/// load), the SSRCs and the entries share one allocation, and a stream's
/// last use sits beside its state. A packet of a stream already in the
/// table touches the context, one line of SSRCs and its entry.
///
/// Not thread-safe; one media worker owns the `SRTPContext` that owns it.
struct SRTPStreamTable<State>: ~Copyable {
    /// A stream's state and when it was last used (for eviction).
    struct Entry {
        var lastUse: UInt64
        var state: State
    }

    /// How many slots are allocated now; `limit` at most.
    private(set) var capacity: Int
    let limit: Int
    private(set) var count = 0
    /// `capacity` SSRCs, then (aligned) `capacity` entries: one allocation.
    private var ssrcs: UnsafeMutablePointer<UInt32>
    private var entries: UnsafeMutablePointer<Entry>
    private var clock: UInt64 = 0
    private var lastSlot = 0

    init(initialCapacity: Int, limit: Int) {
        precondition(initialCapacity > 0 && initialCapacity <= limit)
        capacity = initialCapacity
        self.limit = limit
        (ssrcs, entries) = Self.allocate(capacity: initialCapacity)
    }

    deinit {
        entries.deinitialize(count: count)
        ssrcs.deallocate()
    }

    /// The slot of `ssrc`, marked as just used; nil if the table has none.
    @inline(__always)
    mutating func slot(of ssrc: UInt32) -> Int? {
        // Consecutive packets are mostly of one stream: try its slot first.
        if lastSlot < count && ssrcs[lastSlot] == ssrc {
            touch(lastSlot)
            return lastSlot
        }
        for slot in 0..<count where ssrcs[slot] == ssrc {
            touch(slot)
            lastSlot = slot
            return slot
        }
        return nil
    }

    /// Adds `ssrc` with `state` (which must not be in the table yet),
    /// growing up to `limit`, then evicting the least recently used stream.
    mutating func insert(_ ssrc: UInt32, _ state: State) -> Int {
        let slot: Int
        if count < capacity || capacity < limit {
            if count == capacity { grow() }
            slot = count
            count += 1
            entries.advanced(by: slot).initialize(to: Entry(lastUse: 0, state: state))
        } else {
            var oldest = 0
            for candidate in 1..<count where entries[candidate].lastUse < entries[oldest].lastUse { oldest = candidate }
            slot = oldest
            entries[slot].state = state
        }
        ssrcs[slot] = ssrc
        touch(slot)
        lastSlot = slot
        return slot
    }

    /// The entry in `slot` (from `slot(of:)` or `insert`), to read or
    /// update its state in place; valid until the next `insert`.
    @inline(__always)
    func entry(at slot: Int) -> UnsafeMutablePointer<Entry> {
        entries.advanced(by: slot)
    }

    @inline(__always)
    private mutating func touch(_ slot: Int) {
        clock &+= 1
        entries[slot].lastUse = clock
    }

    private mutating func grow() {
        let newCapacity = min(capacity * 2, limit)
        let (newSSRCs, newEntries) = Self.allocate(capacity: newCapacity)
        newSSRCs.update(from: ssrcs, count: count)
        newEntries.moveInitialize(from: entries, count: count)
        ssrcs.deallocate()
        ssrcs = newSSRCs
        entries = newEntries
        capacity = newCapacity
    }

    /// One allocation: the SSRCs at its start, the entries after them at
    /// `Entry`'s alignment. Deallocated through the SSRC pointer.
    private static func allocate(capacity: Int) -> (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<Entry>) {
        let alignment = max(MemoryLayout<Entry>.alignment, MemoryLayout<UInt32>.alignment)
        let offset = (capacity * MemoryLayout<UInt32>.stride + alignment - 1) / alignment * alignment
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: offset + capacity * MemoryLayout<Entry>.stride, alignment: alignment)
        let ssrcs = raw.bindMemory(to: UInt32.self, capacity: capacity)
        ssrcs.initialize(repeating: 0, count: capacity)
        let entries = (raw + offset).bindMemory(to: Entry.self, capacity: capacity)
        return (ssrcs, entries)
    }
}
