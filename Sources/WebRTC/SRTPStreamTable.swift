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
/// Not thread-safe; one media worker owns the `SRTPContext` that owns it.
final class SRTPStreamTable<State> {
    /// How many slots are allocated now; `limit` at most.
    private(set) var capacity: Int
    let limit: Int
    private(set) var count = 0
    private var ssrcs: UnsafeMutablePointer<UInt32>
    private var lastUse: UnsafeMutablePointer<UInt64>
    private var states: UnsafeMutablePointer<State>
    private var clock: UInt64 = 0
    private var lastSlot = 0

    init(initialCapacity: Int, limit: Int) {
        precondition(initialCapacity > 0 && initialCapacity <= limit)
        capacity = initialCapacity
        self.limit = limit
        ssrcs = .allocate(capacity: initialCapacity)
        lastUse = .allocate(capacity: initialCapacity)
        states = .allocate(capacity: initialCapacity)
    }

    deinit {
        states.deinitialize(count: count)
        states.deallocate()
        ssrcs.deallocate()
        lastUse.deallocate()
    }

    /// The slot of `ssrc`, marked as just used; nil if the table has none.
    @inline(__always)
    func slot(of ssrc: UInt32) -> Int? {
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
    func insert(_ ssrc: UInt32, _ state: State) -> Int {
        let slot: Int
        if count < capacity {
            slot = count
            count += 1
            states.advanced(by: slot).initialize(to: state)
        } else if capacity < limit {
            grow()
            slot = count
            count += 1
            states.advanced(by: slot).initialize(to: state)
        } else {
            var oldest = 0
            for candidate in 1..<count where lastUse[candidate] < lastUse[oldest] { oldest = candidate }
            slot = oldest
            states[slot] = state
        }
        ssrcs[slot] = ssrc
        touch(slot)
        lastSlot = slot
        return slot
    }

    /// The state in `slot` (from `slot(of:)` or `insert`), to read or update
    /// in place; valid until the next `insert`.
    @inline(__always)
    func state(at slot: Int) -> UnsafeMutablePointer<State> {
        states.advanced(by: slot)
    }

    @inline(__always)
    private func touch(_ slot: Int) {
        clock &+= 1
        lastUse[slot] = clock
    }

    private func grow() {
        let newCapacity = min(capacity * 2, limit)
        let newSSRCs = UnsafeMutablePointer<UInt32>.allocate(capacity: newCapacity)
        let newLastUse = UnsafeMutablePointer<UInt64>.allocate(capacity: newCapacity)
        let newStates = UnsafeMutablePointer<State>.allocate(capacity: newCapacity)
        newSSRCs.initialize(from: ssrcs, count: count)
        newLastUse.initialize(from: lastUse, count: count)
        newStates.moveInitialize(from: states, count: count)
        ssrcs.deallocate()
        lastUse.deallocate()
        states.deallocate()
        ssrcs = newSSRCs
        lastUse = newLastUse
        states = newStates
        capacity = newCapacity
    }
}
