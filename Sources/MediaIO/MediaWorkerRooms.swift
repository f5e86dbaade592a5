import Logging
import Packets
import SFU
import WebRTC

/// Everything a media worker owns: the connections of the participants of
/// its rooms and one `Router` per room (DESIGN.md, "One owner per state").
/// It is the `MediaWorkerHandler` of the worker's thread; the control plane
/// changes it only through jobs (`MediaPlane`).
package final class MediaWorkerRooms: MediaWorkerHandler {
    let table = MediaConnectionTable()
    private(set) var routers: [RoomHandle: Router] = [:]
    /// When each router wants `tick` next (now, after a command that may
    /// have queued a keyframe request).
    private var routerDeadlines: [RoomHandle: MediaTime] = [:]
    /// Counters of routers and connections that are gone (totals only grow).
    var retired = MediaStatistics()
    /// The egress queue's counters, as of the last timer run.
    var egressCounters: (sent: UInt64, failures: UInt64) = (0, 0)
    /// DownTracks waiting for their track's receiver.
    var pendingDownTracks: [TrackID: [(RoomHandle, DownTrackPlan)]] = [:]
    /// Network quality and dominant speaker per room.
    var signals: [RoomHandle: RoomSignals] = [:]
    /// What each subscriber asked for the video it receives, by track.
    var subscriberPreferences: [ParticipantHandle: [TrackID: DownTrackPreferences]] = [:]
    /// The worker's ICE-TCP streams, when it listens on TCP.
    private(set) var tcp: TCPStreamTable?
    /// The earliest transport timer as of the last visit, brought forward
    /// by handled packets; nil: unknown (after jobs), visit them all.
    private var transportsDue: MediaTime?
    let events: @Sendable (MediaEvent) -> Void
    let logger: Logger
    let qualityConfiguration: NetworkQualityMonitor.Configuration
    let speakerConfiguration: DominantSpeakerConfiguration
    /// The buffers of the receive ring and of every router's NACK histories
    /// (`PacketBufferPool`).
    let buffers = PacketBufferPool()
    /// This worker's index among the plane's, and how it reaches the others.
    let index: Int
    let peers: MediaWorkerPeers
    /// Rooms spread over several workers (`MediaWorkerRooms+Relay`).
    let relay = RelayState()

    package init(
        events: @escaping @Sendable (MediaEvent) -> Void, logger: Logger,
        networkQuality: NetworkQualityMonitor.Configuration = .init(),
        dominantSpeaker: DominantSpeakerConfiguration = .init(), index: Int = 0, peers: MediaWorkerPeers = MediaWorkerPeers()
    ) {
        self.index = index
        self.peers = peers
        self.events = events
        self.logger = logger
        self.qualityConfiguration = networkQuality
        self.speakerConfiguration = dominantSpeaker
    }

    // MARK: - Commands (run as jobs on the worker thread)

    /// The room's router, created on first use. `ntpAtZero` ties the
    /// monotonic clock to wall-clock NTP time for sender reports.
    package func router(for room: RoomHandle) -> Router {
        if let router = routers[room] { return router }
        let router = Router(ntpAtZero: NTPClock.ntpAtMonotonicZero(), buffers: buffers)
        routers[room] = router
        routerDeadlines[room] = MediaClock.now()
        return router
    }

    /// The router wants a `tick` soon (a command may have asked for a PLI).
    func touch(_ room: RoomHandle) {
        routerDeadlines[room] = MediaClock.now()
    }

    package func add(_ connection: MediaConnection) {
        table.add(connection)
    }

    func attach(tcp: TCPStreamTable) {
        self.tcp = tcp
        // Unowned: the worker's thread holds this handler for as long as
        // its stream table lives (it closes every stream before it ends).
        tcp.onClose = { [unowned self] tag in table.byStream[tag] = nil }
    }

    func jobsRan() {
        transportsDue = nil
    }

    func connection(_ id: TransportID) -> MediaConnection? { table.byID[id] }

    func removeConnection(_ id: TransportID) {
        guard let connection = table.byID[id] else { return }
        retired.transport.add(connection.transport.counters)
        if let router = routers[connection.room] {
            switch connection.role {
            case .publisher: router.removePublisher(transport: id)
            case .subscriber: router.removeSubscriber(transport: id)
            }
        }
        table.remove(id)
    }

    /// A room with no connections left loses its router (one this worker
    /// holds subscribers of for another worker keeps it until `endRelayed`).
    func dropRouterIfUnused(_ room: RoomHandle) {
        guard relay.homes[room] == nil, !table.byID.values.contains(where: { $0.room == room }) else { return }
        if let router = routers[room] { retired.router.add(router.counters) }
        routers[room] = nil
        routerDeadlines[room] = nil
        signals[room] = nil
        relay.layerDemands[room] = nil
        relay.reportedLayers[room] = nil
        relay.remoteLinks[room] = nil
    }

    func restartICE(_ id: TransportID, local: ICECredentials, remote: RemoteTransportParameters) {
        guard let connection = table.byID[id] else { return }
        table.byUfrag = table.byUfrag.filter { $0.value != id }
        connection.transport.restartICE(local: local, remote: remote)
        if let key = UfragKey(local.ufrag) { table.byUfrag[key] = id }
    }

    package var counters: MediaWorkerCounters { table.counters }

    // MARK: - The packet path

    package func makeIngressRing(capacity: Int) -> DatagramRing {
        DatagramRing(capacity: capacity, buffers: buffers)
    }

    package func received(_ ring: DatagramRing, count: Int, stream: UInt64, now: MediaTime, egress: EgressQueue) -> MediaTime? {
        var sink = ConnectionSink(connections: table, egress: egress)
        var sooner: MediaTime?
        for index in 0..<count {
            table.counters.received &+= 1
            let length = ring.length(index)
            guard length > 0, let address = ring.address(index) else {
                table.counters.truncated &+= 1
                continue
            }
            let source = TransportPath(address, stream: stream)
            let buffer = ring.buffer(index)
            guard let connection = table.lookup(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), from: source) else {
                table.counters.unknownTuple &+= 1
                continue
            }
            switch connection.transport.receive(buffer, length: length, from: source, now: now) {
            case .rtp(let plain):
                guard connection.role == .publisher, let router = routers[connection.room] else {
                    table.counters.unexpected &+= 1
                    break
                }
                // Other workers' subscribers of the room get a copy first.
                if !relay.targets.isEmpty {
                    handOff(UnsafeRawBufferPointer(rebasing: buffer[0..<plain]), kind: .rtp, from: connection.id, room: connection.room)
                }
                // The router may keep the slot's buffer (NACK history) and
                // give the slot another.
                var slot = buffer
                router.receiveRTP(slot: &slot, length: plain, from: connection.id, now: now, into: &sink)
                if slot.baseAddress != buffer.baseAddress { ring.replace(index, with: slot) }
                // A pacer held a copy back: the router's tick sends it.
                tickWanted(by: router, in: connection.room, sooner: &sooner)
            case .rtcp(let plain):
                guard let router = routers[connection.room] else {
                    table.counters.unexpected &+= 1
                    break
                }
                // A publisher's SRs time the other workers' DownTracks too.
                if connection.role == .publisher && !relay.targets.isEmpty {
                    handOff(UnsafeRawBufferPointer(rebasing: buffer[0..<plain]), kind: .rtcp, from: connection.id, room: connection.room)
                }
                router.receiveRTCP(buffer, length: plain, from: connection.id, now: now, into: &sink)
                // A probe result queued the next cluster.
                tickWanted(by: router, in: connection.room, sooner: &sooner)
            case .handled:
                drainControl(connection, egress: egress)
                // A STUN or DTLS packet may have armed a sooner timer.
                if let due = connection.transport.nextTimeout, due < transportsDue ?? due.adding(nanoseconds: 1) {
                    transportsDue = due
                    sooner = min(sooner ?? due, due)
                }
            case .dropped:
                break  // counted by the transport
            }
        }
        if !relay.pendingWakes.isEmpty { wakeRelayTargets() }
        // A subscriber's PLI for a track relayed from another worker.
        if !relay.homes.isEmpty { sendRelayedKeyframeRequests() }
        return sooner
    }

    /// Brings the room's timer forward to when its router asked to tick
    /// (`Router.tickWanted`), and `sooner` with it.
    @inline(__always)
    func tickWanted(by router: Router, in room: RoomHandle, sooner: inout MediaTime?) {
        guard let wanted = router.tickWanted, wanted < routerDeadlines[room] ?? wanted.adding(nanoseconds: 1) else { return }
        routerDeadlines[room] = wanted
        sooner = min(sooner ?? wanted, wanted)
    }

    package func fireTimers(now: MediaTime, egress: EgressQueue) -> MediaTime {
        egressCounters = (egress.datagramsSent, egress.sendFailures)
        // 100 ms at the latest: the worker's own cap on waiting.
        var next = now.adding(milliseconds: 100)
        // The transports' timers (ICE consent, DTLS flights) are seconds
        // apart; the routers tick every few milliseconds. So the transports
        // are visited only when the earliest of their timers is due or one
        // may have moved (a handled STUN or DTLS packet, a job), not at
        // every tick: that visit took about 5% of the server's CPU at
        // 1 x 30 in ../shared/bench (perf, issue 16).
        if transportsDue.map({ $0 <= now }) ?? true {
            var earliest: MediaTime?
            for connection in table.byID.values {
                if let due = connection.transport.nextTimeout {
                    if due <= now {
                        connection.transport.handleTimeout(now: now)
                        drainControl(connection, egress: egress)
                    }
                    if let again = connection.transport.nextTimeout { earliest = min(earliest ?? again, max(again, now)) }
                }
            }
            transportsDue = earliest
        }
        if let transportsDue, transportsDue < next { next = transportsDue }
        var sink = ConnectionSink(connections: table, egress: egress)
        for (room, router) in routers {
            var deadline = routerDeadlines[room] ?? now
            if deadline <= now {
                deadline = router.tick(now: now, into: &sink)
                routerDeadlines[room] = deadline
            }
            if deadline < next { next = deadline }
            reportLayerEvents(of: router, room: room)
            let signalsDue =
                if let home = relay.homes[room] {
                    sampleRelayedLinks(room: room, home: home, router: router, now: now)
                } else {
                    runSignals(room: room, router: router, now: now)
                }
            if signalsDue < next { next = signalsDue }
        }
        if !relay.homes.isEmpty { sendRelayedKeyframeRequests() }
        return next
    }

    /// Sends what the transport queued (STUN responses, DTLS flights), each
    /// on the path it names, and acts on its events: a validated source
    /// joins the demux table (a UDP address, or an ICE-TCP stream, which is
    /// then a live path).
    private func drainControl(_ connection: MediaConnection, egress: EgressQueue) {
        while let (datagram, destination) = connection.transport.pollTransmit() {
            datagram.withUnsafeBytes { egress.enqueue(copying: $0, to: destination) }
        }
        while let event = connection.transport.pollEvent() {
            switch event {
            case .addressValidated(let source):
                if source.stream == 0 {
                    table.byAddress[source.address] = connection.id
                } else {
                    table.byStream[source.stream] = connection.id
                    tcp?.authenticate(tag: source.stream)
                }
            case .selected(let path):
                logger.debug("\(connection.participant) \(connection.role.rawValue): sending to \(path)")
            case .connected(let profile):
                logger.debug("\(connection.participant) \(connection.role.rawValue): DTLS-SRTP up (\(profile))")
                if !connection.reportedConnected {
                    connection.reportedConnected = true
                    events(.connected(participant: connection.participant, connection: connection.role))
                }
                // Keyframes for what this connection starts to receive.
                if connection.role == .subscriber {
                    routers[connection.room]?.subscriberConnected(transport: connection.id)
                }
                touch(connection.room)
            case .failed(let error):
                guard !connection.reportedFailure else { break }
                connection.reportedFailure = true
                events(.failed(participant: connection.participant, connection: connection.role, code: error.code, message: error.message))
            case .closedByPeer:
                logger.debug("\(connection.participant) \(connection.role.rawValue): DTLS close_notify")
            }
        }
    }
}
