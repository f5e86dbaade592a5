import Packets
import CVroomUDP
import Foundation
import Logging
import Synchronization
import WebRTC

/// What a media worker drives: the state of the rooms pinned to it, owned
/// by the worker's thread alone (DESIGN.md, "One owner per state"), so the
/// packet path takes no locks.
protocol MediaWorkerHandler: AnyObject, SendableMetatype {
    /// `count` datagrams were received into `ring` (slots 0..<count; a
    /// length of 0 marks a truncated one). Replies and forwarded packets go
    /// into `egress`, which the worker flushes after this call. Returns a
    /// time its timers must now run by when it became sooner than the last
    /// `fireTimers` said (a pacer held a packet back); nil otherwise.
    func received(_ ring: DatagramRing, count: Int, now: MediaTime, egress: EgressQueue) -> MediaTime?

    /// Runs the timers that are due (DTLS retransmissions, consent, RTCP
    /// reports, congestion feedback) and returns the next deadline.
    func fireTimers(now: MediaTime, egress: EgressQueue) -> MediaTime
}

/// One media worker: one UDP socket, one thread (PROTOCOL.md section 1).
/// The thread waits for datagrams, a job, or its next timer; receives in
/// batches of up to 32 with `recvmmsg`, hands them to its handler, and sends
/// what the handler queued with `sendmmsg`. The control plane reaches the
/// handler only through `enqueue`/`perform`, which run on the thread.
final class MediaWorker<Handler: MediaWorkerHandler>: Sendable {
    typealias Job = @Sendable (Handler) -> Void

    let index: Int
    let socket: UDPSocket
    private let wakeDescriptor: Int32
    private let jobs = Mutex<[Job]>([])
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<[CheckedContinuation<Void, Never>]?>([])
    private let makeHandler: @Sendable () -> Handler

    /// - Parameter makeHandler: builds the handler on the worker's thread.
    init(index: Int, socket: UDPSocket, makeHandler: @escaping @Sendable () -> Handler) throws(SocketError) {
        let wake = vroom_wake_create()
        guard wake >= 0 else { throw SocketError(operation: "eventfd", code: -wake) }
        // 4 MiB each way: about 3500 full-size datagrams, 0.3 s of a 100 Mbit/s
        // burst, so a scheduling hiccup of the worker does not drop media.
        let configured = vroom_udp_configure(socket.descriptor, 4 << 20, 4 << 20)
        guard configured == 0 else {
            closeDescriptor(wake)
            throw SocketError(operation: "configure UDP socket", code: -configured)
        }
        self.index = index
        self.socket = socket
        self.wakeDescriptor = wake
        self.makeHandler = makeHandler
    }

    /// Starts the worker's thread.
    func start(logger: Logger) {
        let thread = Thread { [self] in
            run(logger: logger)
        }
        thread.name = "vroom-media-\(index)"
        thread.start()
    }

    /// Runs `job` on the worker's thread, soon; never blocks the caller.
    func enqueue(_ job: @escaping Job) {
        jobs.withLock { $0.append(job) }
        vroom_wake_signal(wakeDescriptor)
    }

    /// Runs `body` on the worker's thread and returns its result.
    func perform<Value: Sendable>(_ body: @escaping @Sendable (Handler) -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            enqueue { handler in continuation.resume(returning: body(handler)) }
        }
    }

    /// Stops the thread (after the jobs already queued) and closes the socket.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyDone = finished.withLock { waiting -> Bool in
                guard waiting != nil else { return true }
                waiting!.append(continuation)
                return false
            }
            if alreadyDone {
                continuation.resume()
            } else {
                stopping.store(true, ordering: .releasing)
                vroom_wake_signal(wakeDescriptor)
            }
        }
    }

    private func run(logger: Logger) {
        let handler = makeHandler()
        // 32 per batch: CPU cache-sized, and enough that one wakeup drains a
        // burst from 30 publishers.
        let ingress = DatagramRing(capacity: 32)
        let egress = EgressQueue(descriptor: socket.descriptor)
        var deadline = handler.fireTimers(now: MediaClock.now(), egress: egress)
        egress.flush()
        while !stopping.load(ordering: .acquiring) {
            let now = MediaClock.now()
            // Wake at the next timer, or every 100 ms at the latest (a cheap
            // upper bound in case a handler under-reports its deadline).
            let waitNanoseconds = min(deadline.nanoseconds(since: now), 100_000_000)
            let timeout = deadline <= now ? 0 : Int32((waitNanoseconds + 999_999) / 1_000_000)
            let ready = vroom_udp_wait(socket.descriptor, wakeDescriptor, timeout)
            if ready < 0 {
                logger.error("media worker \(index): poll failed (errno \(-ready)); stopping")
                break
            }
            if ready & 2 != 0 {
                vroom_wake_clear(wakeDescriptor)
                let pending = jobs.withLock { queued -> [Job] in
                    defer { queued.removeAll(keepingCapacity: true) }
                    return queued
                }
                for job in pending { job(handler) }
                egress.flush()
                // A job may have armed a sooner timer (a new DTLS flight).
                deadline = MediaClock.now()
            }
            if ready & 1 != 0 {
                // Drain what is waiting, a batch at a time, but give timers a
                // turn after 16 batches (512 datagrams).
                for _ in 0..<16 {
                    let count = vroom_udp_receive_batch(socket.descriptor, ingress.datagrams, UInt32(ingress.capacity))
                    if count <= 0 { break }
                    if let sooner = handler.received(ingress, count: Int(count), now: MediaClock.now(), egress: egress) {
                        deadline = min(deadline, sooner)
                    }
                    egress.flush()
                    if Int(count) < ingress.capacity { break }
                }
            }
            let after = MediaClock.now()
            if deadline <= after {
                deadline = handler.fireTimers(now: after, egress: egress)
                egress.flush()
            }
        }
        // Jobs queued before the stop still run, so no `perform` waits forever.
        let pending = jobs.withLock { queued -> [Job] in
            defer { queued.removeAll() }
            return queued
        }
        for job in pending { job(handler) }
        socket.close()
        closeDescriptor(wakeDescriptor)
        let waiting = finished.withLock { waiting -> [CheckedContinuation<Void, Never>] in
            defer { waiting = nil }
            return waiting ?? []
        }
        waiting.forEach { $0.resume() }
    }
}
