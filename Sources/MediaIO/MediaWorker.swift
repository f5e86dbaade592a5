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
    /// length of 0 marks a truncated one), from the UDP socket (`stream`
    /// 0) or as the frames of the ICE-TCP stream tagged `stream`, each slot
    /// named by its peer's address. Replies and forwarded packets go
    /// into `egress`, which the worker flushes after this call. Returns a
    /// time its timers must now run by when it became sooner than the last
    /// `fireTimers` said (a pacer held a packet back); nil otherwise.
    func received(_ ring: DatagramRing, count: Int, stream: UInt64, now: MediaTime, egress: EgressQueue) -> MediaTime?

    /// Runs the timers that are due (DTLS retransmissions, consent, RTCP
    /// reports, congestion feedback) and returns the next deadline.
    func fireTimers(now: MediaTime, egress: EgressQueue) -> MediaTime

    /// The worker listens on TCP too: its streams, for the handler's
    /// statistics and to mark streams authenticated.
    func attach(tcp: TCPStreamTable)

    /// Jobs ran (connections added, restarted, removed): any timer may have
    /// moved, so the next `fireTimers` looks at all of them.
    func jobsRan()

    /// The worker's receive ring: by default slots of its own; the rooms'
    /// ring takes its routers' pool buffers, so that NACK histories keep
    /// received packets without copying them.
    func makeIngressRing(capacity: Int) -> DatagramRing

    /// The worker was woken (`wake`, or a job): packets other workers
    /// relayed may be waiting. Returns a sooner deadline as `received` does.
    func woken(now: MediaTime, egress: EgressQueue) -> MediaTime?
}

extension MediaWorkerHandler {
    func attach(tcp: TCPStreamTable) {}
    func jobsRan() {}
    func makeIngressRing(capacity: Int) -> DatagramRing { DatagramRing(capacity: capacity) }
    func woken(now: MediaTime, egress: EgressQueue) -> MediaTime? { nil }
}

/// One media worker: one UDP socket, one thread (PROTOCOL.md section 1).
/// The thread waits (one epoll set) for datagrams, a job, its next timer,
/// and with ICE-TCP for connections on its TCP listener and frames on the
/// streams it accepted; receives in batches of up to 32 with `recvmmsg`
/// (TCP frames are copied into the same ring), hands them to its handler,
/// and sends what the handler queued with `sendmmsg` (TCP: one write per
/// stream per flush). The control plane reaches the handler only through
/// `enqueue`/`perform`, which run on the thread.
final class MediaWorker<Handler: MediaWorkerHandler>: Sendable {
    typealias Job = @Sendable (Handler) -> Void

    let index: Int
    let socket: UDPSocket
    /// The ICE-TCP listener at the UDP port's number, if TCP is on.
    let listener: TCPListener?
    private let tcpConfiguration: ICETCPConfiguration
    private let idleTimeoutSeconds: Double
    /// The eventfd that wakes the thread (`enqueue`, and other workers
    /// after a batch of relayed packets: `vroom_wake_signal`).
    let wakeDescriptor: Int32
    private let jobs = Mutex<[Job]>([])
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<[CheckedContinuation<Void, Never>]?>([])
    private let makeHandler: @Sendable () -> Handler

    /// - Parameter makeHandler: builds the handler on the worker's thread.
    /// - Parameter listener: ICE-TCP's listening socket; `idleTimeoutSeconds`
    ///   closes authenticated streams without input (the consent timeout).
    init(
        index: Int, socket: UDPSocket, listener: TCPListener? = nil, tcpConfiguration: ICETCPConfiguration = .init(),
        idleTimeoutSeconds: Double = 30, makeHandler: @escaping @Sendable () -> Handler
    ) throws(SocketError) {
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
        self.listener = listener
        self.tcpConfiguration = tcpConfiguration
        self.idleTimeoutSeconds = idleTimeoutSeconds
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

    /// epoll tags: the UDP socket, the wake eventfd, the TCP listener; streams from `firstStreamTag` on.
    private static var udpTag: UInt64 { 0 }
    private static var wakeTag: UInt64 { 1 }
    private static var listenerTag: UInt64 { 2 }
    private static var firstStreamTag: UInt64 { 16 }

    private func run(logger: Logger) {
        let handler = makeHandler()
        // 32 per batch: CPU cache-sized, and enough that one wakeup drains a
        // burst from 30 publishers.
        let ingress = handler.makeIngressRing(capacity: 32)
        let poll = vroom_poll_create()
        var tcp: TCPStreamTable?
        if poll >= 0 {
            _ = vroom_poll_add(poll, socket.descriptor, Self.udpTag, 0)
            _ = vroom_poll_add(poll, wakeDescriptor, Self.wakeTag, 0)
            if let listener, vroom_poll_add(poll, listener.descriptor, Self.listenerTag, 0) == 0 {
                tcp = TCPStreamTable(
                    listener: listener, pollDescriptor: poll, firstTag: Self.firstStreamTag, configuration: tcpConfiguration,
                    idleTimeoutSeconds: idleTimeoutSeconds, now: MediaClock.now())
            }
        } else {
            logger.error("media worker \(index): epoll_create failed (errno \(-poll)); stopping")
            stopping.store(true, ordering: .releasing)
        }
        if let tcp { handler.attach(tcp: tcp) }
        let egress = EgressQueue(descriptor: socket.descriptor, tcp: tcp)
        var deadline = handler.fireTimers(now: MediaClock.now(), egress: egress)
        egress.flush()
        let ready = UnsafeMutablePointer<vroom_poll_event>.allocate(capacity: 64)
        defer { ready.deallocate() }
        while !stopping.load(ordering: .acquiring) {
            let now = MediaClock.now()
            // Wake at the next timer, or every 100 ms at the latest (a cheap
            // upper bound in case a handler under-reports its deadline).
            let waitNanoseconds = min(deadline.nanoseconds(since: now), 100_000_000)
            let timeout = deadline <= now ? 0 : Int32((waitNanoseconds + 999_999) / 1_000_000)
            let count = vroom_poll_wait(poll, ready, 64, timeout)
            if count < 0 {
                logger.error("media worker \(index): epoll_wait failed (errno \(-count)); stopping")
                break
            }
            var udpReady = false
            var woken = false
            var listenerReady = false
            for i in 0..<Int(count) {
                switch ready[i].tag {
                case Self.udpTag: udpReady = true
                case Self.wakeTag: woken = true
                case Self.listenerTag: listenerReady = true
                default: break
                }
            }
            if woken {
                vroom_wake_clear(wakeDescriptor)
                let pending = jobs.withLock { queued -> [Job] in
                    defer { queued.removeAll(keepingCapacity: true) }
                    return queued
                }
                for job in pending { job(handler) }
                handler.jobsRan()
                if let sooner = handler.woken(now: MediaClock.now(), egress: egress) { deadline = min(deadline, sooner) }
                egress.flush()
                // A job may have armed a sooner timer (a new DTLS flight).
                deadline = MediaClock.now()
            }
            if udpReady {
                // Drain what is waiting, a batch at a time, but give timers a
                // turn after 16 batches (512 datagrams).
                for _ in 0..<16 {
                    let count = vroom_udp_receive_batch(socket.descriptor, ingress.datagrams, UInt32(ingress.capacity))
                    if count <= 0 { break }
                    if let sooner = handler.received(ingress, count: Int(count), stream: 0, now: MediaClock.now(), egress: egress) {
                        deadline = min(deadline, sooner)
                    }
                    egress.flush()
                    if Int(count) < ingress.capacity { break }
                }
            }
            if let tcp {
                let now = MediaClock.now()
                if listenerReady { tcp.acceptReady(now: now) }
                for i in 0..<Int(count) where ready[i].tag >= Self.firstStreamTag {
                    let tag = ready[i].tag
                    if ready[i].flags & UInt32(VROOM_POLL_WRITABLE) != 0 { tcp.writableReady(tag: tag) }
                    if ready[i].flags & UInt32(VROOM_POLL_READABLE) != 0 {
                        tcp.readReady(tag: tag, now: now, ring: ingress) { frames in
                            if let sooner = handler.received(ingress, count: frames, stream: tag, now: MediaClock.now(), egress: egress) {
                                deadline = min(deadline, sooner)
                            }
                        }
                        egress.flush()
                    }
                }
                tcp.sweep(now: now)
            }
            let after = MediaClock.now()
            if deadline <= after {
                deadline = handler.fireTimers(now: after, egress: egress)
                egress.flush()
            }
        }
        if let tcp { tcp.closeAll() } else { listener?.close() }
        if poll >= 0 { closeDescriptor(poll) }
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
