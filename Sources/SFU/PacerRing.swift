/// A first-in first-out ring of `PacedPacket`s of fixed capacity, its
/// storage allocated once in `init`: pushing and popping move indices and
/// write in place, never allocate (the `Pacer` keeps one per class).
struct PacerRing: Sendable {
    private var slots: ContiguousArray<PacedPacket>
    private var head = 0
    private(set) var count = 0
    /// Sum of the sizes of the packets held.
    private(set) var bytes = 0

    init(capacity: Int) {
        slots = ContiguousArray(
            repeating: PacedPacket(handle: 0, size: 0, pacingClass: .padding, enqueued: .init(nanoseconds: 0)),
            count: max(1, capacity))
    }

    var capacity: Int { slots.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == slots.count }

    /// The oldest packet, nil when empty.
    var first: PacedPacket? { count == 0 ? nil : slots[head] }

    /// False (and nothing stored) when full.
    mutating func append(_ packet: PacedPacket) -> Bool {
        guard count < slots.count else { return false }
        var tail = head + count
        if tail >= slots.count { tail -= slots.count }
        slots[tail] = packet
        count += 1
        bytes += packet.size
        return true
    }

    mutating func removeFirst() -> PacedPacket? {
        guard count > 0 else { return nil }
        let packet = slots[head]
        head = head + 1 == slots.count ? 0 : head + 1
        count -= 1
        bytes -= packet.size
        return packet
    }
}
