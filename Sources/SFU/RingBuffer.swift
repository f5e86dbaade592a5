/// A fixed-capacity FIFO that overwrites its oldest element when full. The
/// storage is allocated once, in `init`; `append` only writes a slot, so the
/// bandwidth estimator's per-packet paths never reach the allocator.
struct RingBuffer<Element: Sendable>: Sendable {
    private var storage: [Element]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int, filler: Element) {
        precondition(capacity > 0)
        storage = Array(repeating: filler, count: capacity)
    }

    var capacity: Int { storage.count }
    var isFull: Bool { count == storage.count }

    mutating func append(_ element: Element) {
        let slot = (head + count) % storage.count
        storage[slot] = element
        if count < storage.count {
            count += 1
        } else {
            head = (head + 1) % storage.count
        }
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    /// The element `index` places after the oldest.
    subscript(index: Int) -> Element {
        storage[(head + index) % storage.count]
    }
}
