import SFU
import WebRTC

/// A node's media counters, summed over its workers (DESIGN.md,
/// "Metrics"): what the routers forwarded and dropped, what the transports
/// refused, what no connection claimed. Counters of rooms and connections
/// that ended are kept, so every total only grows.
public struct MediaStatistics: Sendable, Equatable {
    public var router = RouterCounters()
    public var transport = TransportCounters()
    /// Datagrams for no known connection (STUN username or 5-tuple).
    public var unknownTuple: UInt64 = 0
    public var truncated: UInt64 = 0
    /// RTP on a subscriber connection, or RTP/RTCP for a room without a router.
    public var unexpected: UInt64 = 0
    public var datagramsReceived: UInt64 = 0
    public var datagramsSent: UInt64 = 0
    /// Packets a room's home worker handed to other workers holding some of
    /// its subscribers, those a full ring dropped, those the other workers
    /// took, and those for a room they no longer held (`RelayRing`).
    public var relayed: UInt64 = 0
    public var relayDropped: UInt64 = 0
    public var relayReceived: UInt64 = 0
    public var relayUnknown: UInt64 = 0
    public var sendFailures: UInt64 = 0
    /// ICE-TCP streams: accepted, framed, refused, dropped.
    public var tcp = TCPCounters()
    public var rooms = 0
    public var connections = 0
    /// Subscribed video tracks switched off now, by reason (a gauge).
    public var tracksSwitchedOff: [SwitchOffReason: Int] = [:]

    public init() {}

    mutating func add(_ other: MediaStatistics) {
        router.add(other.router)
        transport.add(other.transport)
        unknownTuple &+= other.unknownTuple
        truncated &+= other.truncated
        unexpected &+= other.unexpected
        datagramsReceived &+= other.datagramsReceived
        datagramsSent &+= other.datagramsSent
        relayed &+= other.relayed
        relayDropped &+= other.relayDropped
        relayReceived &+= other.relayReceived
        relayUnknown &+= other.relayUnknown
        sendFailures &+= other.sendFailures
        tcp.add(other.tcp)
        rooms += other.rooms
        connections += other.connections
        tracksSwitchedOff.merge(other.tracksSwitchedOff, uniquingKeysWith: +)
    }
}

extension TransportCounters {
    mutating func add(_ o: TransportCounters) {
        datagramsReceived &+= o.datagramsReceived
        stunHandled &+= o.stunHandled
        dtlsHandled &+= o.dtlsHandled
        rtpReceived &+= o.rtpReceived
        rtcpReceived &+= o.rtcpReceived
        rtpProtected &+= o.rtpProtected
        rtcpProtected &+= o.rtcpProtected
        protectFailures &+= o.protectFailures
        for reason in TransportDropReason.allCases { self[dropped: reason] &+= o[dropped: reason] }
    }
}

extension MediaWorkerRooms {
    /// This worker's counters, live and retired (egress as of the last timer run).
    func statistics() -> MediaStatistics {
        var s = retired
        for router in routers.values {
            s.router.add(router.counters)
            router.countSwitchedOff(into: &s.tracksSwitchedOff)
        }
        for connection in table.byID.values { s.transport.add(connection.transport.counters) }
        s.unknownTuple &+= table.counters.unknownTuple
        s.truncated &+= table.counters.truncated
        s.unexpected &+= table.counters.unexpected
        s.datagramsReceived &+= table.counters.received
        s.relayed &+= table.counters.relayed
        s.relayDropped &+= table.counters.relayDropped
        s.relayReceived &+= table.counters.relayReceived
        s.relayUnknown &+= table.counters.relayUnknown
        s.datagramsSent &+= egressCounters.sent
        s.sendFailures &+= egressCounters.failures
        if let tcp { s.tcp = tcp.snapshot }
        // A room spread over workers counts once: on its home.
        s.rooms = routers.keys.count { relay.homes[$0] == nil }
        s.connections = table.byID.count
        return s
    }
}

extension MediaPlane {
    /// The node's media counters now (asks every worker).
    public func statistics() async -> MediaStatistics {
        var total = MediaStatistics()
        for worker in workers {
            total.add(await worker.perform { rooms in rooms.statistics() })
        }
        return total
    }
}

extension MediaStatistics: CustomStringConvertible {
    /// One line for the log: the non-zero counters.
    public var description: String {
        var parts: [String] = []
        func add(_ name: String, _ value: UInt64) { if value != 0 { parts.append("\(name)=\(value)") } }
        add("received.audio", router.packetsReceived.audio)
        add("received.video", router.packetsReceived.video)
        add("forwarded.audio", router.packetsForwarded.audio)
        add("forwarded.video", router.packetsForwarded.video)
        for reason in DropReason.allCases { add("dropped.\(reason.metricLabel)", router.dropped(reason)) }
        for reason in TransportDropReason.allCases { add("dropped.transport.\(reason)", transport[dropped: reason]) }
        add("dropped.unknown_tuple", unknownTuple)
        add("dropped.unexpected", unexpected)
        add("nack.received", router.nackReceived)
        add("nack.sent", router.nackSent)
        add("retransmissions", router.retransmissions)
        add("nack.misses", router.nackMisses)
        add("pli.sent", router.pliSent)
        add("twcc.sent", router.transportCCFeedbackSent)
        add("probes.sent", router.probePacketsSent)
        add("layer.switches", router.layerSwitches)
        add("rtcp.received", router.rtcpReceived)
        add("rtcp.sent", router.rtcpSent)
        add("relay.out", relayed)
        add("relay.in", relayReceived)
        add("dropped.relay_full", relayDropped)
        add("dropped.relay_unknown", relayUnknown)
        add("udp.sent", datagramsSent)
        add("udp.send_failures", sendFailures)
        add("tcp.accepted", tcp.accepted)
        add("tcp.frames_received", tcp.framesReceived)
        add("tcp.frames_sent", tcp.framesSent)
        add("tcp.dropped.slow_reader", tcp.framesDroppedSlowReader)
        add("tcp.closed.bad_length", tcp.closedBadLength)
        add("tcp.closed.garbage", tcp.closedGarbage)
        add("tcp.closed.handshake_timeout", tcp.closedHandshakeTimeout)
        add("tcp.closed.unauthenticated_limit", tcp.closedUnauthenticatedLimit)
        return parts.joined(separator: " ")
    }
}
