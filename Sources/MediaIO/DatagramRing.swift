import CVroomUDP
import Packets
import SFU

/// A fixed set of datagram slots allocated once, for `recvmmsg`/`sendmmsg`
/// batches (DESIGN.md, "The packet path"): the packet path reads and writes
/// these bytes in place and never allocates.
///
/// Each slot holds `slotSize` bytes: 1500 for the largest datagram an
/// Ethernet path carries plus SRTP's 144-byte trailer allowance, rounded to
/// 2048 by default. A receive ring's slots are buffers of the worker's
/// `PacketBufferPool`: a router may keep a slot's buffer for its NACK
/// history and `replace` it with another of the pool's.
public final class DatagramRing {
    public let capacity: Int
    let slotSize: Int
    /// The send ring's slots, in one block; nil for a ring of pool buffers.
    private let storage: UnsafeMutableRawBufferPointer?
    private let pool: PacketBufferPool?
    /// The C descriptors of the slots; `data` points at each slot's buffer.
    public let datagrams: UnsafeMutablePointer<vroom_datagram>
    /// Slots in use (filled by a receive, or queued for a send).
    package var count = 0

    /// A ring whose slots are one block of its own.
    public init(capacity: Int, slotSize: Int = 2048) {
        self.capacity = capacity
        self.slotSize = slotSize
        pool = nil
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * slotSize, alignment: 16)
        self.storage = storage
        datagrams = .allocate(capacity: capacity)
        for index in 0..<capacity {
            datagrams[index] = vroom_datagram()
            datagrams[index].data = storage.baseAddress!.advanced(by: index * slotSize).assumingMemoryBound(to: UInt8.self)
            datagrams[index].capacity = UInt32(slotSize)
        }
    }

    /// A receive ring whose slots are buffers taken from `pool` (given back
    /// when the ring goes).
    public init(capacity: Int, buffers pool: PacketBufferPool) {
        self.capacity = capacity
        slotSize = pool.bufferSize
        self.pool = pool
        storage = nil
        datagrams = .allocate(capacity: capacity)
        for index in 0..<capacity {
            datagrams[index] = vroom_datagram()
            datagrams[index].data = pool.take().assumingMemoryBound(to: UInt8.self)
            datagrams[index].capacity = UInt32(slotSize)
        }
    }

    deinit {
        if let storage {
            storage.deallocate()
        } else if let pool {
            for index in 0..<capacity { pool.give(UnsafeMutableRawPointer(datagrams[index].data)) }
        }
        datagrams.deallocate()
    }

    /// The whole buffer of slot `index` (for writing a packet into it).
    @inline(__always)
    public func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: datagrams[index].data, count: slotSize)
    }

    /// Slot `index` of a pool ring receives into `buffer` from now on (a
    /// router kept the old one): `buffer` is one of the pool's, and the
    /// ring owns it now.
    @inline(__always)
    package func replace(_ index: Int, with buffer: UnsafeMutableRawBufferPointer) {
        assert(pool != nil && buffer.count == slotSize, "only a pool ring's slots move")
        datagrams[index].data = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
    }

    /// The datagram's length in slot `index`.
    @inline(__always)
    public func length(_ index: Int) -> Int { Int(datagrams[index].length) }

    /// The datagram's peer address (source after a receive, destination for a send).
    @inline(__always)
    public func address(_ index: Int) -> STUNAddress? {
        STUNAddress(datagram: datagrams[index])
    }

    @inline(__always)
    package func set(_ index: Int, length: Int, destination: STUNAddress) {
        datagrams[index].length = UInt32(length)
        destination.store(into: &datagrams[index])
    }
}

extension STUNAddress {
    /// The address a C datagram slot carries (nil for an unknown family).
    @inline(__always)
    init?(datagram: vroom_datagram) {
        var copy = datagram
        let port = datagram.port
        switch datagram.family {
        case 4:
            let bytes = withUnsafeBytes(of: &copy.address) { UnsafeRawBufferPointer(rebasing: $0[0..<4]) }
            self.init(addressBytes: bytes, port: port)
        case 6:
            let bytes = withUnsafeBytes(of: &copy.address) { $0 }
            self.init(addressBytes: bytes, port: port)
        default:
            return nil
        }
    }

    /// Writes this address into a C datagram slot.
    @inline(__always)
    func store(into datagram: inout vroom_datagram) {
        datagram.port = port
        datagram.family = family == .ipv4 ? 4 : 6
        withUnsafeAddressBytes { bytes in
            withUnsafeMutableBytes(of: &datagram.address) { out in
                out.copyMemory(from: bytes)
            }
        }
    }
}
