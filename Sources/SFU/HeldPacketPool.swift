import Packets

/// Packets the pacer holds back (`Router+Pacing`): fixed slots in one
/// buffer, allocated at the first hold and never grown, with a free list,
/// so holding and releasing a packet never allocates. One per router (a
/// room), shared by its subscriber connections; when every slot is taken
/// the packet is dropped and counted, like a full queue.
///
/// Owned by the router's worker thread; not `Sendable`.
final class HeldPacketPool {
    /// Bytes per slot: a forwarded packet is the publisher's (at most an
    /// MTU of about 1,200-1,400 bytes) plus our header extensions.
    static let slotSize = 1_600
    /// Slots per router: 1,024 packets are about 1.2 MB, 1.6 MB of buffer,
    /// allocated only for a room whose subscribers are paced.
    static let capacity = 1_024

    /// Per held packet: where its transport-wide number goes (written when
    /// it leaves), its length and kind.
    struct Entry {
        var length: Int = 0
        var transportSequenceOffset: Int = -1
        var isRTP = true
    }

    private var storage: UnsafeMutableRawBufferPointer?
    private var free: [UInt32] = []
    private(set) var entries: [Entry] = []

    deinit { storage?.deallocate() }

    var available: Int { storage == nil ? Self.capacity : free.count }

    /// A free slot and its bytes; nil when all are taken.
    func take() -> (handle: UInt32, bytes: UnsafeMutableRawBufferPointer)? {
        if storage == nil {
            storage = .allocate(byteCount: Self.capacity * Self.slotSize, alignment: 16)
            free = (0..<UInt32(Self.capacity)).reversed()
            entries = Array(repeating: Entry(), count: Self.capacity)
        }
        guard let handle = free.popLast(), let storage else { return nil }
        return (handle, bytes(handle, in: storage))
    }

    /// The bytes of a taken slot.
    func bytes(_ handle: UInt32) -> UnsafeMutableRawBufferPointer {
        bytes(handle, in: storage!)
    }

    func release(_ handle: UInt32) {
        free.append(handle)
    }

    private func bytes(_ handle: UInt32, in storage: UnsafeMutableRawBufferPointer) -> UnsafeMutableRawBufferPointer {
        let start = Int(handle) &* Self.slotSize
        return UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start &+ Self.slotSize)])
    }

    func set(_ handle: UInt32, _ entry: Entry) { entries[Int(handle)] = entry }
}
