import CVroomUDP
import Packets

/// A fixed set of datagram slots allocated once, for `recvmmsg`/`sendmmsg`
/// batches (DESIGN.md, "The packet path"): the packet path reads and writes
/// these bytes in place and never allocates.
///
/// Each slot holds `slotSize` bytes: 1500 for the largest datagram an
/// Ethernet path carries plus SRTP's 144-byte trailer allowance, rounded to
/// 2048 by default.
public final class DatagramRing {
    public let capacity: Int
    let slotSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    /// The C descriptors of the slots; `data` points into `storage`.
    public let datagrams: UnsafeMutablePointer<vroom_datagram>
    /// Slots in use (filled by a receive, or queued for a send).
    package var count = 0

    public init(capacity: Int, slotSize: Int = 2048) {
        self.capacity = capacity
        self.slotSize = slotSize
        storage = .allocate(byteCount: capacity * slotSize, alignment: 16)
        datagrams = .allocate(capacity: capacity)
        for index in 0..<capacity {
            datagrams[index] = vroom_datagram()
            datagrams[index].data = storage.baseAddress!.advanced(by: index * slotSize).assumingMemoryBound(to: UInt8.self)
            datagrams[index].capacity = UInt32(slotSize)
        }
    }

    deinit {
        storage.deallocate()
        datagrams.deallocate()
    }

    /// The whole buffer of slot `index` (for writing a packet into it).
    @inline(__always)
    public func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage.baseAddress! + index * slotSize, count: slotSize)
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
