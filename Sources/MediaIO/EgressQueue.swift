import CVroomUDP
import Packets

/// Datagrams waiting for the worker's next `sendmmsg`: slots are written in
/// place (the one copy forwarding needs, then SRTP protect in place) and sent
/// as one batch per receive batch or timer run. A full queue is flushed, not
/// grown, so memory stays fixed.
final class EgressQueue {
    private let ring: DatagramRing
    private let descriptor: Int32
    /// Datagrams the kernel refused (socket buffer full, unreachable): dropped, never retried.
    private(set) var sendFailures: UInt64 = 0
    private(set) var datagramsSent: UInt64 = 0

    init(descriptor: Int32, capacity: Int = 256) {
        self.descriptor = descriptor
        ring = DatagramRing(capacity: capacity)
    }

    /// The next free slot's whole buffer; the caller writes a packet at its
    /// start and then calls `commit`. Flushes first when the queue is full.
    @inline(__always)
    func reserve() -> UnsafeMutableRawBufferPointer {
        if ring.count == ring.capacity { flush() }
        return ring.buffer(ring.count)
    }

    /// Queues the packet written into the reserved slot.
    @inline(__always)
    func commit(length: Int, to destination: STUNAddress) {
        ring.set(ring.count, length: length, destination: destination)
        ring.count += 1
    }

    /// Copies a control datagram (STUN response, DTLS flight) into a slot.
    func enqueue(copying bytes: UnsafeRawBufferPointer, to destination: STUNAddress) {
        let slot = reserve()
        guard bytes.count <= slot.count else {
            sendFailures &+= 1
            return
        }
        slot.copyMemory(from: bytes)
        commit(length: bytes.count, to: destination)
    }

    var pending: Int { ring.count }

    /// Sends everything queued with as few `sendmmsg` calls as the kernel allows.
    func flush() {
        guard ring.count > 0 else { return }
        let sent = vroom_udp_send_batch(descriptor, ring.datagrams, UInt32(ring.count))
        let accepted = max(0, Int(sent))
        datagramsSent &+= UInt64(accepted)
        sendFailures &+= UInt64(ring.count - accepted)
        ring.count = 0
    }
}
