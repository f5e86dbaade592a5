import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Packets
import Synchronization

/// A seeded UDP impairment relay (the kernel here has no netem): listens on
/// `listenHost:port`, forwards every client's datagrams to the target from a
/// socket of that client's own (so the target sees one distinct address per
/// client) and the target's replies back to the client, impairing each
/// direction by its `ImpairmentProfile`.
///
/// One thread, `poll` over the listening socket, the client sockets and a
/// wake-up pipe; decisions come from `ImpairmentModel`s seeded from
/// `seed` (upstream and downstream each get their own stream), sending times
/// from `ImpairmentQueue`s, after a `BottleneckModel` when a profile sets a
/// rate. A test utility, also used by `vroom-impair`:
/// it copies each datagram once, which a test's rates do not notice.
///
/// ```swift
/// let relay = try UDPImpairmentRelay(.init(targetPort: serverPort,
///     upstream: .init(dropProbability: 0.05), downstream: .none, seed: 1))
/// relay.start()          // clients send to 127.0.0.1:relay.port
/// defer { relay.stop() }
/// ```
public final class UDPImpairmentRelay: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// A dotted IPv4 address to listen on.
        public var listenHost: String
        /// 0: the kernel picks (read `port`).
        public var listenPort: UInt16
        /// A dotted IPv4 address.
        public var targetHost: String
        public var targetPort: UInt16
        /// Client -> target.
        public var upstream: ImpairmentProfile
        /// Target -> client.
        public var downstream: ImpairmentProfile
        public var seed: UInt64
        /// Datagrams from further new addresses are dropped and counted.
        public var maximumClients: Int

        public init(
            listenHost: String = "127.0.0.1", listenPort: UInt16 = 0, targetHost: String = "127.0.0.1",
            targetPort: UInt16, upstream: ImpairmentProfile = .none, downstream: ImpairmentProfile = .none,
            seed: UInt64 = 1, maximumClients: Int = 256
        ) {
            self.listenHost = listenHost
            self.listenPort = listenPort
            self.targetHost = targetHost
            self.targetPort = targetPort
            self.upstream = upstream
            self.downstream = downstream
            self.seed = seed
            self.maximumClients = maximumClients
        }
    }

    private enum Phase {
        case idle
        case running
        case stopped
    }

    private struct Shared {
        var phase = Phase.idle
        var counters = RelayCounters()
        /// Profiles set while running, and a count of changes the relay
        /// thread compares with its own.
        var profiles: (upstream: ImpairmentProfile, downstream: ImpairmentProfile)?
        var profileGeneration = 0
    }

    public let configuration: Configuration
    /// The port the relay listens on.
    public let port: UInt16
    let listenAddress: STUNAddress
    let targetAddress: STUNAddress
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let shared = Mutex(Shared())
    private let finished = DispatchSemaphore(value: 0)

    /// Binds the listening socket (so `port` is known before `start`).
    public init(_ configuration: Configuration) throws(UDPRelayError) {
        guard let listen = UDPRelaySocket.address(host: configuration.listenHost, port: configuration.listenPort)
        else { throw UDPRelayError("listen address \(configuration.listenHost)", errorNumber: EINVAL) }
        guard let target = UDPRelaySocket.address(host: configuration.targetHost, port: configuration.targetPort)
        else { throw UDPRelayError("target address \(configuration.targetHost)", errorNumber: EINVAL) }
        self.configuration = configuration
        self.targetAddress = target
        let fd = try UDPRelaySocket.open(bindingTo: listen)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            let error = errno
            close(fd)
            throw UDPRelayError("pipe", errorNumber: error)
        }
        self.listenFD = fd
        self.wakeRead = pipeFDs[0]
        self.wakeWrite = pipeFDs[1]
        self.port = UDPRelaySocket.localPort(fd)
        self.listenAddress = STUNAddress(ipv4: listen.ipv4 ?? 0, port: port)
    }

    deinit {
        // A started relay's thread holds `self`, so here it is idle or stopped.
        if shared.withLock({ $0.phase }) == .idle { closeSockets() }
    }

    /// Starts the relay thread; a second call does nothing.
    public func start() {
        let starting = shared.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        guard starting else { return }
        let thread = Thread { [self] in
            var loop = RelayLoop(relay: self)
            loop.run()
            loop.closeClients()
            finished.signal()
        }
        thread.name = "vroom-impair"
        thread.start()
    }

    /// Stops the thread (datagrams still queued are dropped), closes every
    /// socket and returns the final counters. Safe to call more than once.
    @discardableResult
    public func stop() -> RelayCounters {
        let previous = shared.withLock { state -> Phase in
            let phase = state.phase
            state.phase = .stopped
            return phase
        }
        switch previous {
        case .running:
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            finished.wait()
            closeSockets()
        case .idle:
            closeSockets()
        case .stopped:
            break
        }
        return counters
    }

    /// Changes both directions' impairment at run time (a link that gets
    /// worse or recovers): applies from the next datagram the relay handles.
    /// Datagrams already queued keep their delays.
    public func setProfiles(upstream: ImpairmentProfile, downstream: ImpairmentProfile) {
        shared.withLock { state in
            state.profiles = (upstream, downstream)
            state.profileGeneration += 1
        }
    }

    /// The profiles in use now: the configuration's until `setProfiles`.
    public var profiles: (upstream: ImpairmentProfile, downstream: ImpairmentProfile) {
        shared.withLock { $0.profiles } ?? (configuration.upstream, configuration.downstream)
    }

    /// The counters as of the relay thread's last pass (at most one poll ago).
    public var counters: RelayCounters { shared.withLock { $0.counters } }

    private func closeSockets() {
        close(listenFD)
        close(wakeRead)
        close(wakeWrite)
    }

    // MARK: the relay thread

    /// The relay thread's state: owned by that thread alone.
    private struct RelayLoop {
        struct Client {
            var address: STUNAddress
            var peer: sockaddr_in
            var fd: Int32
        }

        struct Outgoing {
            var bytes: [UInt8]
            var client: Int
        }

        let relay: UDPImpairmentRelay
        var clients: [Client] = []
        var clientIndex: [STUNAddress: Int] = [:]
        var upstream: ImpairmentModel
        var downstream: ImpairmentModel
        /// The bottlenecks of profiles with a rate, nil without.
        var upstreamBottleneck: BottleneckModel?
        var downstreamBottleneck: BottleneckModel?
        var upstreamQueue = ImpairmentQueue<Outgoing>()
        var downstreamQueue = ImpairmentQueue<Outgoing>()
        var sent = (upstream: 0, downstream: 0)
        var sendErrors = (upstream: 0, downstream: 0)
        var queueDropped = (upstream: 0, downstream: 0)
        var refusedClients = 0
        var profileGeneration = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)

        init(relay: UDPImpairmentRelay) {
            self.relay = relay
            // Two independent streams from one seed: the first two outputs
            // of SplitMix64 seeded with it.
            var seeds = SeededGenerator(seed: relay.configuration.seed)
            upstream = ImpairmentModel(profile: relay.configuration.upstream, seed: seeds.next())
            downstream = ImpairmentModel(profile: relay.configuration.downstream, seed: seeds.next())
            upstreamBottleneck = Self.bottleneck(relay.configuration.upstream, keeping: nil)
            downstreamBottleneck = Self.bottleneck(relay.configuration.downstream, keeping: nil)
        }

        /// The bottleneck a profile asks for: `current` with the new rate
        /// (its backlog kept), or a new one, or nil.
        static func bottleneck(_ profile: ImpairmentProfile, keeping current: BottleneckModel?) -> BottleneckModel? {
            guard let rate = profile.rateKilobitsPerSecond else { return nil }
            guard var current else {
                return BottleneckModel(kilobitsPerSecond: rate, queueMilliseconds: profile.queueMilliseconds)
            }
            current.set(kilobitsPerSecond: rate, queueMilliseconds: profile.queueMilliseconds)
            return current
        }

        /// When a datagram arriving at `now` enters the delay stage: `now`
        /// without a bottleneck, its departure from one, nil if its queue
        /// was full.
        static func pass(_ bottleneck: inout BottleneckModel?, length: Int, now: UInt64) -> UInt64? {
            guard bottleneck != nil else { return now }
            return bottleneck?.admit(length: length, now: now)
        }

        mutating func run() {
            while true {
                let now = UDPRelaySocket.monotonicNanoseconds()
                flush(now: now)
                publishCounters()
                var timeout: Int32 = 1_000
                for release in [upstreamQueue.nextRelease, downstreamQueue.nextRelease].compactMap({ $0 }) {
                    // Round up to whole milliseconds: poll's granularity.
                    let wait = release > now ? (release - now + 999_999) / 1_000_000 : 0
                    timeout = Int32(min(UInt64(timeout), wait))
                }
                var fds = [
                    pollfd(fd: relay.wakeRead, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: relay.listenFD, events: Int16(POLLIN), revents: 0),
                ]
                for client in clients { fds.append(pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)) }
                let ready = poll(&fds, nfds_t(fds.count), timeout)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if fds[0].revents != 0 { return }
                // Before deciding about what just arrived.
                adoptProfiles()
                // Clients polled this pass only: reading the listening socket may add some.
                let polledClients = fds.count - 2
                if fds[1].revents != 0 { readFromClients() }
                for index in 0..<polledClients where fds[2 + index].revents != 0 {
                    readFromTarget(client: index)
                }
            }
        }

        mutating func closeClients() {
            for client in clients { close(client.fd) }
            clients.removeAll()
        }

        /// Datagrams on the listening socket: from clients, to the target.
        mutating func readFromClients() {
            while true {
                var from = sockaddr_in()
                var fromLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let count = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &from) {
                        // The IPv4 layout of sockaddr, sized by fromLength.
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(relay.listenFD, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &fromLength)
                        }
                    }
                }
                guard count >= 0 else { return }
                guard let client = client(for: from) else { continue }
                let decision = upstream.decide(length: count)
                guard !decision.dropped else { continue }
                guard
                    let departure = Self.pass(
                        &upstreamBottleneck, length: count, now: UDPRelaySocket.monotonicNanoseconds())
                else {
                    queueDropped.upstream += 1
                    continue
                }
                var bytes = Array(buffer[0..<count])
                if let flip = decision.corruption { bytes[flip.index] ^= flip.mask }
                upstreamQueue.schedule(Outgoing(bytes: bytes, client: client), decision: decision, now: departure)
            }
        }

        /// Datagrams on a client's socket: from the target, to that client.
        mutating func readFromTarget(client: Int) {
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    recv(clients[client].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                guard count >= 0 else { return }
                let decision = downstream.decide(length: count)
                guard !decision.dropped else { continue }
                guard
                    let departure = Self.pass(
                        &downstreamBottleneck, length: count, now: UDPRelaySocket.monotonicNanoseconds())
                else {
                    queueDropped.downstream += 1
                    continue
                }
                var bytes = Array(buffer[0..<count])
                if let flip = decision.corruption { bytes[flip.index] ^= flip.mask }
                downstreamQueue.schedule(Outgoing(bytes: bytes, client: client), decision: decision, now: departure)
            }
        }

        /// The index of the client at `from`, opening its socket on first sight.
        mutating func client(for from: sockaddr_in) -> Int? {
            let address = UDPRelaySocket.address(from)
            if let index = clientIndex[address] { return index }
            guard clients.count < relay.configuration.maximumClients,
                let local = UDPRelaySocket.address(host: relay.configuration.listenHost, port: 0),
                let fd = try? UDPRelaySocket.open(bindingTo: local, connectingTo: relay.targetAddress)
            else {
                refusedClients += 1
                return nil
            }
            clients.append(Client(address: address, peer: from, fd: fd))
            clientIndex[address] = clients.count - 1
            return clients.count - 1
        }

        mutating func flush(now: UInt64) {
            while let out = upstreamQueue.popDue(now: now) {
                let result = out.bytes.withUnsafeBytes {
                    send(clients[out.client].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                if result < 0 { sendErrors.upstream += 1 } else { sent.upstream += 1 }
            }
            while let out = downstreamQueue.popDue(now: now) {
                var peer = clients[out.client].peer
                let result = out.bytes.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &peer) {
                        // The IPv4 layout of sockaddr.
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(
                                relay.listenFD, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0,
                                socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                if result < 0 { sendErrors.downstream += 1 } else { sent.downstream += 1 }
            }
        }

        /// Takes profiles set by `setProfiles` since the last pass.
        mutating func adoptProfiles() {
            let (generation, profiles) = relay.shared.withLock { ($0.profileGeneration, $0.profiles) }
            guard generation != profileGeneration, let profiles else { return }
            profileGeneration = generation
            upstream.setProfile(profiles.upstream)
            downstream.setProfile(profiles.downstream)
            upstreamBottleneck = Self.bottleneck(profiles.upstream, keeping: upstreamBottleneck)
            downstreamBottleneck = Self.bottleneck(profiles.downstream, keeping: downstreamBottleneck)
        }

        func publishCounters() {
            var counters = RelayCounters()
            counters.upstream = upstream.counters
            counters.upstream.sent = sent.upstream
            counters.upstream.sendErrors = sendErrors.upstream
            counters.upstream.queueDropped = queueDropped.upstream
            counters.downstream = downstream.counters
            counters.downstream.sent = sent.downstream
            counters.downstream.sendErrors = sendErrors.downstream
            counters.downstream.queueDropped = queueDropped.downstream
            counters.clients = clients.count
            counters.refusedClients = refusedClients
            relay.shared.withLock { $0.counters = counters }
        }
    }
}
