import CVroomUDP
import Packets
import WebRTC

/// Datagrams waiting for the worker's next `sendmmsg`: slots are written in
/// place (a forwarded packet's header, then SRTP encrypts its payload from
/// the ingress slot straight after it: the one pass over it) and sent
/// as one batch per receive batch or timer run. A full queue is flushed, not
/// grown, so memory stays fixed.
///
/// A packet for a path on an ICE-TCP stream goes as an RFC 4571 frame into
/// that stream's write buffer instead (one copy), written at the same
/// flush. The path, not the address, decides: a TCP peer's address may be
/// another client's UDP address (one NAT).
package final class EgressQueue {
    private let ring: DatagramRing
    private let descriptor: Int32
    /// The worker's ICE-TCP streams, when it listens on TCP.
    let tcp: TCPStreamTable?
    /// Datagrams the kernel refused (socket buffer full, unreachable): dropped, never retried.
    package private(set) var sendFailures: UInt64 = 0
    package private(set) var datagramsSent: UInt64 = 0

    init(descriptor: Int32, capacity: Int = 256, tcp: TCPStreamTable?) {
        self.descriptor = descriptor
        self.tcp = tcp
        ring = DatagramRing(capacity: capacity)
    }

    /// A queue for a socket with no ICE-TCP streams beside it (the
    /// production path's benchmark, `ForwardingPath`).
    package convenience init(descriptor: Int32, capacity: Int = 256) {
        self.init(descriptor: descriptor, capacity: capacity, tcp: nil)
    }

    /// The next free slot's whole buffer; the caller writes a packet at its
    /// start and then calls `commit`. Flushes first when the queue is full.
    @inline(__always)
    func reserve() -> UnsafeMutableRawBufferPointer {
        if ring.count == ring.capacity { flush() }
        return ring.buffer(ring.count)
    }

    /// Queues the packet written into the reserved slot for `destination`:
    /// a frame on its ICE-TCP stream, or a datagram.
    @inline(__always)
    func commit(length: Int, to destination: TransportPath) {
        if destination.stream == 0 {
            commitDatagram(length: length, to: destination.address)
        } else {
            commitFrame(length: length, stream: destination.stream)
        }
    }

    /// Queues the packet written into the reserved slot as a frame on the
    /// ICE-TCP stream `stream`; drops it (a send failure) when that stream
    /// has closed: never UDP to a TCP peer's port, nor another stream.
    @inline(__always)
    func commitFrame(length: Int, stream: UInt64) {
        guard let tcp, tcp.enqueue(UnsafeRawBufferPointer(rebasing: ring.buffer(ring.count)[0..<length]), stream: stream)
        else {
            sendFailures &+= 1
            return
        }
    }

    /// Queues the packet written into the reserved slot as a UDP datagram.
    @inline(__always)
    func commitDatagram(length: Int, to destination: STUNAddress) {
        ring.set(ring.count, length: length, destination: destination)
        ring.count += 1
    }

    /// Copies a control datagram (STUN response, DTLS flight) into a slot.
    func enqueue(copying bytes: UnsafeRawBufferPointer, to destination: TransportPath) {
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
    package func flush() {
        tcp?.flush()
        guard ring.count > 0 else { return }
        let sent = vroom_udp_send_batch(descriptor, ring.datagrams, UInt32(ring.count))
        let accepted = max(0, Int(sent))
        datagramsSent &+= UInt64(accepted)
        sendFailures &+= UInt64(ring.count - accepted)
        ring.count = 0
    }
}
