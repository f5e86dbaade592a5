#if canImport(Glibc)
import Glibc
#endif
import CVroomUDP
import Packets
import WebRTC

/// A worker's ICE-TCP streams (RFC 6544, passive): accepts them, reads
/// RFC 4571 frames into the worker's ingress ring so that they meet the
/// same demux and transports as UDP datagrams (named by the peer's address
/// and handed over with the stream's tag: the path), queues egress frames
/// per stream and writes each stream's batch with one call per flush.
///
/// Bad input never reaches past a stream: a bad length or an undemuxable
/// frame closes that stream; streams without an authenticated STUN check
/// are limited in number and time; a slow reader loses whole frames from
/// its own bounded buffer. All counted in `counters`.
///
/// Not `Sendable`: created and used by one worker thread.
final class TCPStreamTable {
    let listener: TCPListener
    private let pollDescriptor: Int32
    private let configuration: ICETCPConfiguration
    /// Authenticated streams with no input this long are closed (the
    /// consent timeout: a live peer sends a check every few seconds).
    private let idleTimeoutNanoseconds: UInt64
    private let handshakeTimeoutNanoseconds: UInt64
    private var streams: [UInt64: TCPStream] = [:]
    /// One stream per peer address (a second connection from one is refused).
    private var byAddress: [STUNAddress: TCPStream] = [:]
    /// Unauthenticated streams, oldest first (at most `maximumUnauthenticated`).
    private var unauthenticated: [TCPStream] = []
    private var dirty: [TCPStream] = []
    private var nextTag: UInt64
    private var nextSweep: MediaTime
    private(set) var counters = TCPCounters()
    /// Told the tag of each stream that closes (the worker forgets its path).
    var onClose: ((UInt64) -> Void)?
    /// Frames of closed streams still count after they go.
    private var retiredDrops: UInt64 = 0
    private var retiredFrames: UInt64 = 0

    init(listener: TCPListener, pollDescriptor: Int32, firstTag: UInt64, configuration: ICETCPConfiguration,
         idleTimeoutSeconds: Double, now: MediaTime) {
        self.listener = listener
        self.pollDescriptor = pollDescriptor
        self.configuration = configuration
        self.idleTimeoutNanoseconds = UInt64(max(1, idleTimeoutSeconds) * 1e9)
        self.handshakeTimeoutNanoseconds = UInt64(max(0.001, configuration.handshakeTimeoutSeconds) * 1e9)
        self.nextTag = firstTag
        self.nextSweep = now
    }

    /// Counters with the gauges of now.
    var snapshot: TCPCounters {
        var c = counters
        c.open = streams.count
        c.unauthenticated = unauthenticated.count
        var buffered = 0
        var drops = retiredDrops
        var sent = retiredFrames
        for stream in streams.values {
            buffered += stream.output.pendingBytes
            drops &+= stream.output.droppedFrames
            sent &+= stream.output.framesQueued
        }
        c.bufferedBytes = buffered
        c.framesDroppedSlowReader = drops
        c.framesSent = sent
        return c
    }

    // MARK: Accepting

    /// Accepts what waits on the listening socket (at most 64 per call, so
    /// a flood cannot hold the thread; level-triggered polling comes back).
    func acceptReady(now: MediaTime) {
        for _ in 0..<64 {
            var family: UInt8 = 0
            var port: UInt16 = 0
            var address = (UInt64(0), UInt64(0))
            let fd = withUnsafeMutableBytes(of: &address) { bytes in
                vroom_tcp_accept(listener.descriptor, &family, &port, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
            guard fd >= 0 else { return }  // -EAGAIN: none left; other errors: try at the next readiness
            let peer = withUnsafeBytes(of: &address) { bytes in
                STUNAddress(addressBytes: UnsafeRawBufferPointer(rebasing: bytes[0..<(family == 6 ? 16 : 4)]), port: port)
            }
            guard let peer, byAddress[peer] == nil else {
                closeDescriptor(fd)
                continue
            }
            if configuration.socketSendBufferBytes > 0 {
                // SO_SNDBUF only (SO_RCVBUF 0 = unchanged; O_NONBLOCK is already set).
                _ = vroom_udp_configure(fd, 0, Int32(configuration.socketSendBufferBytes))
            }
            if unauthenticated.count >= configuration.maximumUnauthenticated, let oldest = unauthenticated.first {
                counters.closedUnauthenticatedLimit &+= 1
                close(oldest)
            }
            let stream = TCPStream(
                tag: nextTag, descriptor: fd, peer: peer, now: now, writeBufferBytes: configuration.writeBufferBytes)
            nextTag &+= 1
            guard vroom_poll_add(pollDescriptor, fd, stream.tag, 0) == 0 else {
                closeDescriptor(fd)
                continue
            }
            streams[stream.tag] = stream
            byAddress[peer] = stream
            unauthenticated.append(stream)
            counters.accepted &+= 1
        }
    }

    /// An authenticated STUN check came on stream `tag`: it is a live path
    /// from now on.
    func authenticate(tag: UInt64) {
        guard let stream = streams[tag], !stream.authenticated else { return }
        stream.authenticated = true
        unauthenticated.removeAll { $0 === stream }
    }

    // MARK: Reading

    /// Reads stream `tag` and hands its whole frames to `deliver` in
    /// batches of at most `ring.capacity`, each slot named by the peer's
    /// address. A bad length or an undemuxable frame closes the stream.
    func readReady(tag: UInt64, now: MediaTime, ring: DatagramRing, deliver: (Int) -> Void) {
        guard let stream = streams[tag] else { return }
        var filled = 0
        // At most 8 reads (32 KiB) per wake-up: other streams and the UDP
        // socket get their turn; level-triggered polling comes back.
        reading: for _ in 0..<8 {
            let free = UnsafeMutableRawBufferPointer(rebasing: stream.input[stream.inputCount...])
            let n = vroom_tcp_read(stream.descriptor, free.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(free.count))
            if n == -EAGAIN { break }
            if n <= 0 {
                if filled > 0 { deliver(filled) }
                counters.closedByPeer &+= 1
                close(stream)
                return
            }
            stream.inputCount += Int(n)
            var consumed = 0
            while true {
                let pending = UnsafeRawBufferPointer(rebasing: stream.input[consumed..<stream.inputCount])
                switch RFC4571Framing.next(in: pending) {
                case .incomplete:
                    break
                case .invalidLength:
                    if filled > 0 { deliver(filled) }
                    counters.closedBadLength &+= 1
                    close(stream)
                    return
                case .packet(let offset, let length):
                    let packet = UnsafeRawBufferPointer(rebasing: pending[offset..<(offset + length)])
                    if !acceptable(packet, on: stream) {
                        // The frames before it may authenticate the stream.
                        if filled > 0 {
                            deliver(filled)
                            filled = 0
                        }
                        if !acceptable(packet, on: stream) {
                            counters.closedGarbage &+= 1
                            close(stream)
                            return
                        }
                    }
                    ring.buffer(filled).copyMemory(from: packet)
                    ring.set(filled, length: length, destination: stream.peer)
                    filled += 1
                    consumed += offset + length
                    counters.framesReceived &+= 1
                    stream.lastInput = now
                    if filled == ring.capacity {
                        deliver(filled)
                        filled = 0
                        if stream.closed { return }
                    }
                    continue
                }
                break
            }
            if consumed > 0 {
                let rest = stream.inputCount - consumed
                if rest > 0, let base = stream.input.baseAddress {
                    base.copyMemory(from: base + consumed, byteCount: rest)
                }
                stream.inputCount = rest
            }
            if Int(n) < free.count { break reading }
        }
        if filled > 0 { deliver(filled) }
    }

    /// Before authentication only STUN (the peer's check) may come; after
    /// it, what the transport demuxes: STUN, DTLS, RTP, RTCP (RFC 7983).
    @inline(__always)
    private func acceptable(_ packet: UnsafeRawBufferPointer, on stream: TCPStream) -> Bool {
        switch PeerTransport.classify(packet) {
        case .stun: return true
        case .dtls, .rtp, .rtcp: return stream.authenticated
        default: return false
        }
    }

    // MARK: Writing

    /// Queues `packet` as a frame on stream `tag`; false when it has closed.
    /// A full buffer drops the frame (counted) and still answers true.
    @inline(__always)
    func enqueue(_ packet: UnsafeRawBufferPointer, stream tag: UInt64) -> Bool {
        guard let stream = streams[tag] else { return false }
        if stream.output.append(packet), !stream.dirty {
            stream.dirty = true
            dirty.append(stream)
        }
        return true
    }

    /// Writes what each stream queued since the last flush: one `send` per
    /// stream. What the kernel does not take waits (EPOLLOUT armed).
    func flush() {
        guard !dirty.isEmpty else { return }
        for stream in dirty {
            stream.dirty = false
            write(stream)
        }
        dirty.removeAll(keepingCapacity: true)
    }

    /// The kernel has room again on stream `tag`.
    func writableReady(tag: UInt64) {
        guard let stream = streams[tag] else { return }
        write(stream)
    }

    private func write(_ stream: TCPStream) {
        guard !stream.closed else { return }
        let ok = stream.output.flush { bytes in
            let n = vroom_tcp_write(stream.descriptor, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count))
            return n < 0 ? nil : Int(n)
        }
        guard ok else {
            counters.closedByPeer &+= 1
            close(stream)
            return
        }
        let waiting = !stream.output.isEmpty
        if waiting != stream.watchingWritable {
            stream.watchingWritable = waiting
            _ = vroom_poll_modify(pollDescriptor, stream.descriptor, stream.tag, waiting ? 1 : 0)
        }
    }

    // MARK: Timers

    /// Closes streams past their handshake or idle timeout; runs its sweep
    /// at most once a second (a timeout's resolution).
    func sweep(now: MediaTime) {
        guard now >= nextSweep else { return }
        nextSweep = now.adding(milliseconds: 1000)
        while let oldest = unauthenticated.first, now.nanoseconds(since: oldest.acceptedAt) >= handshakeTimeoutNanoseconds {
            counters.closedHandshakeTimeout &+= 1
            close(oldest)
        }
        for stream in streams.values where stream.authenticated && now.nanoseconds(since: stream.lastInput) >= idleTimeoutNanoseconds {
            counters.closedIdle &+= 1
            close(stream)
        }
    }

    // MARK: Closing

    private func close(_ stream: TCPStream) {
        guard !stream.closed else { return }
        stream.closed = true
        retiredDrops &+= stream.output.droppedFrames
        retiredFrames &+= stream.output.framesQueued
        _ = vroom_poll_remove(pollDescriptor, stream.descriptor)
        closeDescriptor(stream.descriptor)
        streams[stream.tag] = nil
        if byAddress[stream.peer] === stream { byAddress[stream.peer] = nil }
        if !stream.authenticated { unauthenticated.removeAll { $0 === stream } }
        onClose?(stream.tag)
    }

    /// Closes every stream and the listening socket (the worker stops).
    func closeAll() {
        for stream in Array(streams.values) { close(stream) }
        listener.close()
    }
}
