import CVroomUDP
import Packets
import SFU

/// A worker that holds some of a room's subscribers, as the room's home
/// worker hands packets to it.
struct RelayTarget {
    let worker: Int
    let ring: RelayRing
    /// That worker's eventfd (`MediaWorker.wakeDescriptor`).
    let wake: Int32
}

/// What another worker measured of one participant's subscriber connection
/// since the home last sampled it.
struct RemoteLink {
    var sample = LinkSample()
    var heardAt: MediaTime
}

/// One worker's part in rooms spread over several workers (issue 16): as
/// a room's home, the workers it relays the room's publishers to; as
/// another worker, the rooms it holds subscribers of and what their homes
/// set up.
final class RelayState {
    /// Home: per room, the workers its publishers' packets go to.
    var targets: [RoomHandle: [RelayTarget]] = [:]
    /// The rings other workers push into.
    var incoming: [RelayRing] = []
    /// Rooms whose home is another worker: that worker.
    var homes: [RoomHandle: Int] = [:]
    /// What each such room's router was last set up from.
    var layouts: [RoomHandle: RoomRelayLayout] = [:]
    /// Eventfds to signal after this batch (reserved: no allocation per batch).
    var pendingWakes: [Int32] = []
    /// Home: the simulcast layers each worker's subscribers need, by room
    /// and track, and the union last reported.
    var layerDemands: [RoomHandle: [TrackID: [Int: [String]]]] = [:]
    var reportedLayers: [RoomHandle: [TrackID: [String]]] = [:]
    /// Home: downlink samples of subscribers on other workers, not yet
    /// taken, and when each was last heard of.
    var remoteLinks: [RoomHandle: [ParticipantHandle: RemoteLink]] = [:]
    /// Other worker: when each room's subscriber links are sampled next.
    var nextLinkSample: [RoomHandle: MediaTime] = [:]

    init() {
        pendingWakes.reserveCapacity(64)
    }
}

extension MediaWorkerRooms {
    // MARK: - Home worker: packets out

    /// Hands a packet from one of `room`'s publishers to each worker that
    /// holds some of its subscribers: one copy per worker.
    @inline(__always)
    func handOff(_ packet: UnsafeRawBufferPointer, kind: RelayRing.Kind, from source: TransportID, room: RoomHandle) {
        guard let targets = relay.targets[room] else { return }
        for target in targets {
            if target.ring.push(room: room, source: source, kind: kind, packet: packet) {
                table.counters.relayed &+= 1
                if !relay.pendingWakes.contains(target.wake) { relay.pendingWakes.append(target.wake) }
            } else {
                table.counters.relayDropped &+= 1
            }
        }
    }

    /// Wakes the workers this batch handed packets to: once per batch.
    func wakeRelayTargets() {
        for wake in relay.pendingWakes { vroom_wake_signal(wake) }
        relay.pendingWakes.removeAll(keepingCapacity: true)
    }

    func addRelayTarget(_ target: RelayTarget, room: RoomHandle) {
        relay.targets[room, default: []].removeAll { $0.worker == target.worker }
        relay.targets[room, default: []].append(target)
        // Its subscribers favour the dominant speaker's video too.
        if let speaker = routers[room]?.dominantSpeaker {
            peers.enqueue(on: target.worker) { rooms in rooms.routers[room]?.setDominantSpeaker(publisher: speaker) }
        }
    }

    /// `worker` no longer holds any of `room`'s subscribers.
    func removeRelayTarget(room: RoomHandle, worker: Int) {
        relay.targets[room]?.removeAll { $0.worker == worker }
        if relay.targets[room]?.isEmpty == true { relay.targets[room] = nil }
        guard let tracks = relay.layerDemands[room] else { return }
        for track in tracks.keys {
            relay.layerDemands[room]?[track]?[worker] = nil
            reportLayers(room: room, track: track)
        }
    }

    /// Stops handing packets to other workers (the plane is stopping: their
    /// eventfds are about to close).
    func removeAllRelayTargets() {
        relay.targets.removeAll()
    }

    /// What `worker`'s subscribers of `room` need of `track`'s layers; the
    /// publisher hears the union of all workers' (`publisherLayers`).
    func demandLayers(room: RoomHandle, track: TrackID, worker: Int, active: [String]) {
        relay.layerDemands[room, default: [:]][track, default: [:]][worker] = active
        reportLayers(room: room, track: track)
    }

    private func reportLayers(room: RoomHandle, track: TrackID) {
        let demands = relay.layerDemands[room]?[track] ?? [:]
        let wanted = Set(demands.values.joined())
        let order = routers[room]?.layerRIDs(track: track) ?? []
        let union = order.isEmpty ? wanted.sorted() : order.filter(wanted.contains)
        guard union != relay.reportedLayers[room]?[track] else { return }
        relay.reportedLayers[room, default: [:]][track] = union
        events(.publisherLayers(room: room, track: TrackHandle(rawValue: track.rawValue), active: union))
    }

    /// Downlink samples another worker took of its subscribers of `room`.
    func receiveRemoteLinks(room: RoomHandle, _ samples: [(ParticipantHandle, LinkSample)]) {
        let now = MediaClock.now()
        for (participant, sample) in samples {
            var link = relay.remoteLinks[room]?[participant] ?? RemoteLink(heardAt: now)
            link.sample.addDownlink(of: sample)
            link.heardAt = now
            relay.remoteLinks[room, default: [:]][participant] = link
        }
    }

    /// The downlink samples of `room`'s subscribers on other workers since
    /// the last call, by participant: one for each heard of within three
    /// sampling intervals (an interval whose sample is late gives an empty
    /// one, not a lost monitor); older ones are forgotten.
    func takeRemoteLinks(room: RoomHandle, now: MediaTime) -> [ParticipantHandle: LinkSample] {
        guard var links = relay.remoteLinks[room] else { return [:] }
        let horizon = 3 * qualityConfiguration.minimumInterval
        links = links.filter { now.nanoseconds(since: $0.value.heardAt) <= horizon }
        let samples = links.mapValues(\.sample)
        for participant in links.keys { links[participant]?.sample = LinkSample() }
        relay.remoteLinks[room] = links.isEmpty ? nil : links
        return samples
    }

    // MARK: - Other worker: packets in

    func addIncoming(_ ring: RelayRing) {
        guard !relay.incoming.contains(where: { $0 === ring }) else { return }
        relay.incoming.append(ring)
    }

    /// Forwards what the homes of this worker's rooms relayed.
    package func woken(now: MediaTime, egress: EgressQueue) -> MediaTime? {
        guard !relay.incoming.isEmpty else { return nil }
        var sink = ConnectionSink(connections: table, egress: egress)
        var sooner: MediaTime?
        for ring in relay.incoming {
            ring.drain { header, packet in
                table.counters.relayReceived &+= 1
                guard relay.homes[header.room] != nil, let router = routers[header.room] else {
                    table.counters.relayUnknown &+= 1
                    return
                }
                switch header.kind {
                case .rtp:
                    router.receiveRTP(packet, length: header.length, from: header.source, now: now, into: &sink)
                    tickWanted(by: router, in: header.room, sooner: &sooner)
                case .rtcp:
                    router.receiveRTCP(packet, length: header.length, from: header.source, now: now, into: &sink)
                }
            }
        }
        sendRelayedKeyframeRequests()
        return sooner
    }

    /// The keyframes this worker's routers want of relayed publishers, to
    /// the rooms' homes (which throttle them with their own).
    func sendRelayedKeyframeRequests() {
        for (room, home) in relay.homes {
            guard let router = routers[room], !router.relayedKeyframeRequests.isEmpty else { continue }
            let requests = router.takeRelayedKeyframeRequests()
            peers.enqueue(on: home) { rooms in
                guard let router = rooms.routers[room] else { return }
                for request in requests { router.requestKeyframe(publisher: request.publisher, ssrc: request.ssrc) }
                rooms.touch(room)
            }
        }
    }

    /// Sets this worker's router for `room` (whose home is `home`) up as
    /// `layout` says: relayed publishers and their receivers, so that the
    /// DownTracks of the subscribers here have sources.
    func syncRelayed(room: RoomHandle, home: Int, layout: RoomRelayLayout) {
        relay.homes[room] = home
        let router = router(for: room)
        let old = relay.layouts[room] ?? RoomRelayLayout()
        for (track, was) in old.receivers {
            if let now = layout.receivers[track], now.isSameReceiver(as: was),
                layout.publishers[now.publisher] == old.publishers[now.publisher]
            { continue }
            router.removeReceiver(track: track)
        }
        for (transport, was) in old.publishers where layout.publishers[transport] != was {
            router.removePublisher(transport: transport)
        }
        for (transport, publisher) in layout.publishers where old.publishers[transport] != publisher {
            do {
                try router.addPublisher(
                    transport: transport, transportCCExtensionID: nil, midExtensionID: publisher.midExtensionID,
                    audioLevelExtensionID: publisher.audioLevelExtensionID, ridExtensionID: publisher.ridExtensionID,
                    repairedRIDExtensionID: publisher.repairedRIDExtensionID, relayed: true)
            } catch {
                logger.error("relayed publisher \(transport) in \(room) not added: \(error)")
            }
        }
        let now = MediaClock.now()
        // Running receivers first: a track moved to another m-line frees
        // its old SSRCs before a new one may declare them.
        for (track, receiver) in layout.receivers {
            guard router.receiverSSRCs(track: track) != nil, let was = old.receivers[track] else { continue }
            let (plan, before) = (receiver.plan, was.plan)
            if plan.mid != before.mid { try? router.updateReceiverMID(track: track, mid: plan.mid) }
            if plan.ssrc != before.ssrc || plan.rtxSSRC != before.rtxSSRC {
                try? router.updateReceiverSSRCs(track: track, ssrc: plan.ssrc, rtxSSRC: plan.rtxSSRC)
            }
            if plan.enabled != before.enabled { try? router.setForwarding(track: track, enabled: plan.enabled, now: now) }
            if plan.priority != before.priority { try? router.setPublisherPriority(track: track, plan.priority) }
        }
        for (track, receiver) in layout.receivers where router.receiverSSRCs(track: track) == nil {
            let plan = receiver.plan
            do {
                try router.addReceiver(
                    track: track, publisher: receiver.publisher, kind: plan.kind, mid: plan.mid,
                    payloadType: plan.payloadType, rtxPayloadType: plan.rtxPayloadType, ssrc: plan.ssrc,
                    rtxSSRC: plan.rtxSSRC, clockRate: plan.clockRate, enabled: plan.enabled, layers: plan.layers,
                    priority: plan.priority)
                attachPendingDownTracks(of: track, in: room)
            } catch {
                logger.error("relayed track \(track) in \(room) not routed: \(error)")
            }
        }
        relay.layouts[room] = layout
        touch(room)
    }

    /// This worker holds no more of `room`'s subscribers.
    func endRelayed(room: RoomHandle) {
        guard relay.homes.removeValue(forKey: room) != nil else { return }
        if let router = routers[room], let layout = relay.layouts[room] {
            for transport in layout.publishers.keys { router.removePublisher(transport: transport) }
        }
        relay.layouts[room] = nil
        relay.nextLinkSample[room] = nil
        dropRouterIfUnused(room)
    }

    /// Sends the room's home what this worker measured of its subscribers'
    /// links, at the network quality's sampling interval; returns when next.
    func sampleRelayedLinks(room: RoomHandle, home: Int, router: Router, now: MediaTime) -> MediaTime {
        let interval = qualityConfiguration.minimumInterval
        guard let due = relay.nextLinkSample[room], now < due else {
            var samples: [(ParticipantHandle, LinkSample)] = []
            for connection in table.byID.values where connection.room == room && connection.role == .subscriber {
                samples.append((connection.participant, router.takeLinkSample(publisher: nil, subscriber: connection.id, now: now)))
            }
            if !samples.isEmpty {
                let taken = samples
                peers.enqueue(on: home) { rooms in rooms.receiveRemoteLinks(room: room, taken) }
            }
            let next = now.adding(nanoseconds: interval)
            relay.nextLinkSample[room] = next
            return next
        }
        return due
    }
}
