import Packets
import SFU
import Synchronization

/// A bounded single-producer, single-consumer ring of packets from one
/// media worker to another (issue 16, "a big room over every core"): the
/// room's home worker copies each packet it receives from the room's
/// publishers once per other worker that holds some of the room's
/// subscribers, and that worker's router forwards it to them. One handoff
/// per worker, not per subscriber.
///
/// Slots are allocated once, in one block. The producer writes a slot, then
/// publishes it by storing `tail` (release); the consumer reads `tail`
/// (acquire), handles the slots up to it, then frees them by storing `head`
/// (release). A full ring drops the packet and counts it: a slow consumer
/// never stalls the producer's rooms.
final class RelayRing: @unchecked Sendable {
    // @unchecked Sendable: exactly one thread pushes and one drains; a slot
    // is touched only by the side that owns it per `head`/`tail`, which are
    // atomics with release/acquire ordering.

    /// What a slot carries.
    enum Kind: UInt8 {
        case rtp = 1
        case rtcp = 2
    }

    /// Each slot's header, before the packet's bytes.
    struct Header {
        var room: RoomHandle
        var source: TransportID
        var kind: Kind
        var length: Int
    }

    let capacity: Int
    let slotSize: Int
    private static let headerSize = 16
    private let storage: UnsafeMutableRawBufferPointer
    /// Next slot to read (consumer-owned), and next slot to write (producer-owned), both unwrapped.
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    /// Packets the producer found no room for.
    private let droppedCount = Atomic<UInt64>(0)
    /// Packets handed over.
    private let pushedCount = Atomic<UInt64>(0)

    /// - Parameter capacity: slots, a power of two.
    init(capacity: Int = 1024, slotSize: Int = 2048) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        self.slotSize = slotSize
        storage = .allocate(byteCount: capacity * slotSize, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The most bytes of packet a slot holds.
    var maxPacketLength: Int { slotSize - Self.headerSize }

    var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }
    var pushed: UInt64 { pushedCount.load(ordering: .relaxed) }

    // MARK: Producer

    /// Copies `packet` into the next slot; false (counted) when the ring is
    /// full or the packet does not fit a slot. Allocates nothing.
    @discardableResult
    func push(room: RoomHandle, source: TransportID, kind: Kind, packet: UnsafeRawBufferPointer) -> Bool {
        let written = tail.load(ordering: .relaxed)
        guard written &- head.load(ordering: .acquiring) < capacity, packet.count <= maxPacketLength,
            let bytes = packet.baseAddress
        else {
            droppedCount.add(1, ordering: .relaxed)
            return false
        }
        let slot = storage.baseAddress!.advanced(by: (written & (capacity - 1)) * slotSize)
        slot.storeBytes(of: room.rawValue, toByteOffset: 0, as: UInt32.self)
        slot.storeBytes(of: source.rawValue, toByteOffset: 4, as: UInt32.self)
        slot.storeBytes(of: UInt32(packet.count), toByteOffset: 8, as: UInt32.self)
        slot.storeBytes(of: kind.rawValue, toByteOffset: 12, as: UInt8.self)
        (slot + Self.headerSize).copyMemory(from: bytes, byteCount: packet.count)
        tail.store(written &+ 1, ordering: .releasing)
        pushedCount.add(1, ordering: .relaxed)
        return true
    }

    // MARK: Consumer

    /// Calls `body` with each packet pushed so far, oldest first, then frees
    /// their slots; returns how many. The buffer is the slot's (mutable:
    /// SRTP protects copies out of it), valid only during the call.
    @discardableResult
    func drain(_ body: (Header, UnsafeMutableRawBufferPointer) -> Void) -> Int {
        let read = head.load(ordering: .relaxed)
        let written = tail.load(ordering: .acquiring)
        var index = read
        while index != written {
            let slot = storage.baseAddress!.advanced(by: (index & (capacity - 1)) * slotSize)
            let length = Int(slot.load(fromByteOffset: 8, as: UInt32.self))
            let header = Header(
                room: RoomHandle(rawValue: slot.load(fromByteOffset: 0, as: UInt32.self)),
                source: TransportID(slot.load(fromByteOffset: 4, as: UInt32.self)),
                kind: Kind(rawValue: slot.load(fromByteOffset: 12, as: UInt8.self)) ?? .rtp, length: length)
            body(header, UnsafeMutableRawBufferPointer(start: slot + Self.headerSize, count: maxPacketLength))
            index &+= 1
        }
        head.store(written, ordering: .releasing)
        return written &- read
    }

    /// Packets waiting (a snapshot).
    var waiting: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }
}
