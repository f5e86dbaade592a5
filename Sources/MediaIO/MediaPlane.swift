import Foundation
import Logging
import Packets
import SFU
import Synchronization
import WebRTC

/// A node's media plane, as the control plane sees it (DESIGN.md, "Control
/// path"): the UDP workers, the process's DTLS certificate, and per
/// participant what was negotiated. Signaling calls it to answer publish
/// offers, build subscriber offers and apply answers; room events
/// (enable/disable, audio pause, participant gone) come through `handle`.
/// Everything that touches live media runs as a job on the room's worker.
public final class MediaPlane: Sendable {
    public let configuration: MediaConfiguration
    public let certificate: DTLSCertificate
    let workers: [MediaWorker<MediaWorkerRooms>]
    let logger: Logger
    let state = Mutex<State>(State())

    struct State: Sendable {
        var participants: [ParticipantHandle: ParticipantMedia] = [:]
        var nextTransport: UInt32 = 1
        /// Per room: where its subscribers are and what its publishers
        /// publish (`MediaPlane+Spread`).
        var spreads: [RoomHandle: RoomSpread] = [:]
        /// The ring from worker i to worker j, at `i * workers + j`, made on first need.
        var rings: [Int: RelayRing] = [:]
    }

    /// Binds one UDP socket per worker. `events` is called on a worker
    /// thread: it must only enqueue.
    public init(
        configuration: MediaConfiguration, logger: Logger, events: @escaping @Sendable (MediaEvent) -> Void
    ) throws {
        self.configuration = configuration
        self.logger = logger
        certificate = try DTLSCertificate.generate()
        let peers = MediaWorkerPeers()
        var workers: [MediaWorker<MediaWorkerRooms>] = []
        for k in 0..<configuration.workers {
            let port = configuration.basePort == 0 ? 0 : configuration.basePort &+ UInt16(k)
            let (socket, listener) = try Self.bind(configuration, port: port)
            let workerLogger = logger
            workers.append(try MediaWorker(
                index: k, socket: socket, listener: listener, tcpConfiguration: configuration.iceTCP,
                idleTimeoutSeconds: configuration.consentTimeoutSeconds
            ) {
                MediaWorkerRooms(
                    events: events, logger: workerLogger, networkQuality: configuration.networkQuality,
                    dominantSpeaker: configuration.dominantSpeaker, index: k, peers: peers)
            })
        }
        self.workers = workers
        peers.set(workers.map { worker in { job in worker.enqueue(job) } })
    }

    /// A worker's UDP socket and, with ICE-TCP, its TCP listener at the
    /// same port number. With port 0 the kernel picks the UDP port, which
    /// may be taken on TCP: then another pick, up to 20 times.
    private static func bind(_ configuration: MediaConfiguration, port: UInt16) throws -> (UDPSocket, TCPListener?) {
        var attempt = 0
        while true {
            let socket = try UDPSocket(address: configuration.bindAddress, port: port)
            guard configuration.iceTCP.enabled else { return (socket, nil) }
            do {
                // `::` fell back to IPv4 alone where the kernel has no IPv6: the listener too.
                let address = socket.families == [.ipv4] && configuration.bindAddress == "::" ? "0.0.0.0" : configuration.bindAddress
                return (socket, try TCPListener(address: address, port: socket.localPort))
            } catch {
                socket.close()
                attempt += 1
                guard port == 0, attempt < 20 else { throw error }
            }
        }
    }

    /// Participants with negotiation state here (bounded by the live ones:
    /// `remove` forgets a participant).
    public var participantCount: Int { state.withLock { $0.participants.count } }

    /// The UDP port of each worker (the kernel's choice with base port 0).
    public var ports: [UInt16] { workers.map { $0.socket.localPort } }

    public func start() {
        for worker in workers { worker.start(logger: logger) }
    }

    public func stop() async {
        // No worker signals another's eventfd once that one closed it.
        for worker in workers { await worker.perform { $0.removeAllRelayTargets() } }
        for worker in workers { await worker.stop() }
    }

    /// The worker a room lives on. `Node` numbers rooms in order, so
    /// consecutive rooms spread over the workers.
    func workerIndex(for room: RoomHandle) -> Int {
        Int(room.rawValue % UInt32(workers.count))
    }

    /// The server's transport in SDP for a connection on `worker`.
    func negotiationTransport(ice: ICECredentials, worker: Int) -> NegotiationTransport {
        let socket = workers[worker].socket
        let port = socket.localPort
        // Only what the socket can answer from: an IPv6 address on an
        // IPv4 socket (or the reverse) would be a candidate nobody reaches.
        let candidates = configuration.announcedAddresses.compactMap { STUNAddress(text: $0, port: port) }
            .filter { socket.families.contains($0.family) }
        // ICE-TCP listens at the same port number, on the same families (PROTOCOL.md section 9).
        let tcp = workers[worker].listener == nil ? [] : candidates
        return NegotiationTransport(ice: ice, fingerprint: certificate.fingerprint, candidates: candidates, tcpCandidates: tcp)
    }

    var transportConfiguration: PeerTransportConfiguration {
        var c = PeerTransportConfiguration()
        c.consentTimeout = .milliseconds(Int64(configuration.consentTimeoutSeconds * 1000))
        return c
    }

    // MARK: - Publisher connection

    /// Answers a publish offer (PROTOCOL.md 3.2 and 5) without changing
    /// anything: parses and checks the offer (53402), then that `trackMIDs`
    /// names each of its sending m-lines exactly once (53300), that each
    /// entry of `trackKinds` (by position, as `trackMIDs`) is `audio` or
    /// `video` (53300, a bad track description) and names an m-line of that
    /// kind (53403: the offer contradicts its tracks), and that
    /// each has Opus or VP8 (53404). Call `applyPublish` once the room
    /// accepted the tracks.
    public func answerPublish(
        participant: ParticipantHandle, room: RoomHandle, offer text: String, trackMIDs: [String],
        trackKinds: [String]? = nil
    ) throws(MediaError) -> PendingPublish {
        let offer = try PublishOffer(parsing: text)
        let (worker, previous, local, version) = state.withLock { state in
            let media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            return (media.worker, media.publisher?.answer, media.publisher?.local ?? .random(), (media.publisher?.sessionVersion ?? 0) + 1)
        }
        let sessionID = Self.sessionID(participant, connection: 1)
        var ice = local
        var answer = try PublishNegotiation.answer(
            offer: offer.sdp, transport: negotiationTransport(ice: ice, worker: worker), sessionID: sessionID,
            sessionVersion: version, previous: previous)
        if answer.iceRestart {
            // RFC 8445 section 9: both sides change credentials on a restart.
            ice = .random()
            answer = try PublishNegotiation.answer(
                offer: offer.sdp, transport: negotiationTransport(ice: ice, worker: worker), sessionID: sessionID,
                sessionVersion: version, previous: previous)
        }
        // Exactly one `tracks` entry per sending m-line, matched by mid
        // (PROTOCOL.md section 5), once the offer's structure is known sound.
        guard Set(trackMIDs) == offer.sendingMIDs, trackMIDs.count == offer.sendingMIDs.count else {
            throw MediaError(code: 53300, message: "the tracks must name each sending m-line of the offer once")
        }
        if let trackKinds { try answer.requireKinds(trackKinds, forMIDs: trackMIDs) }
        try answer.requireCodecs(forMIDs: trackMIDs)
        return PendingPublish(answer: answer, local: ice)
    }

    /// Applies an answer the room accepted: creates or updates the
    /// publisher connection on the room's worker and one receiver per
    /// published track, removing the tracks that are gone. Throws 53401
    /// when the server cannot set up its side (the connection or a track's
    /// receiver); what could be set up stays.
    public func applyPublish(
        participant: ParticipantHandle, room: RoomHandle, _ pending: PendingPublish, tracks: [PublishedTrackMedia]
    ) async throws(MediaError) {
        let (answer, local) = (pending.answer, pending.local)
        let extensions = answer.media.first(where: \.isAccepted)?.headerExtensions ?? NegotiatedHeaderExtensions()
        // Audio level is negotiated on audio m-lines only (the BUNDLE shares
        // IDs, but a video-first offer has none on its first m-line).
        let audioLevelID = answer.media.lazy.filter(\.isAccepted).compactMap(\.headerExtensions.audioLevel).first
        let plan = state.withLock { state -> PublishPlan in
            var media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            let existing = media.publisher
            let transport = existing?.transport ?? TransportID(state.allocateTransport())
            var published: [String: PublishedMediaTrack] = [:]
            for track in tracks {
                published[track.mid] = PublishedMediaTrack(handle: track.handle, kind: track.kind)
            }
            let previous = existing.map { Array($0.tracks.values) } ?? []
            let kept = Set(published.values.map(\.handle))
            let removed = previous.filter { !kept.contains($0.handle) }
            let previousTracks = Set(previous.map(\.handle))
            media.publisher = PublisherMedia(
                transport: transport, local: local, answer: answer,
                sessionVersion: (existing?.sessionVersion ?? 0) + 1, tracks: published)
            state.participants[participant] = media
            let plan = PublishPlan(
                worker: media.worker, transport: transport, isNew: existing == nil,
                restart: existing.map { $0.local != local } ?? false, removed: removed.map(\.handle),
                receivers: tracks.compactMap { track in
                    guard let negotiated = answer.media(withMID: track.mid), let codec = negotiated.codec else { return nil }
                    let layers = (negotiated.simulcast?.rids ?? []).map { rid in
                        let hint = track.layerHints.first { $0.rid == rid }
                        return SimulcastLayer(rid: rid, width: hint?.width, height: hint?.height)
                    }
                    return ReceiverPlan(
                        track: track.handle.trackID, kind: track.kind, mid: track.mid, payloadType: codec.payloadType,
                        rtxPayloadType: codec.rtxPayloadType, ssrc: negotiated.remoteSSRCs.primary,
                        rtxSSRC: negotiated.remoteSSRCs.rtx, clockRate: codec.clockRate, enabled: track.enabled,
                        isNew: !previousTracks.contains(track.handle), layers: layers, priority: track.priority)
                })
            // Workers holding some of the room's subscribers relay these.
            updateLayout(&state, room: room) { layout in
                layout.removePublisher(transport)
                layout.publishers[transport] = RelayedPublisher(
                    midExtensionID: extensions.mid, audioLevelExtensionID: audioLevelID,
                    ridExtensionID: answer.ridExtensionID, repairedRIDExtensionID: answer.repairedRIDExtensionID)
                for receiver in plan.receivers {
                    var kept = receiver
                    kept.isNew = false
                    layout.receivers[receiver.track] = RelayedReceiver(publisher: transport, plan: kept)
                }
            }
            return plan
        }
        let certificate = self.certificate
        let configuration = transportConfiguration
        let logger = self.logger
        let failures = await workers[plan.worker].perform { rooms -> [String] in
            let router = rooms.router(for: room)
            if plan.isNew {
                do {
                    let transport = try PeerTransport(
                        certificate: certificate, localICE: local, remote: answer.remote, dtlsRole: answer.dtlsRole,
                        iceMode: .lite, configuration: configuration, now: MediaClock.now())
                    rooms.add(MediaConnection(id: plan.transport, participant: participant, room: room, role: .publisher, transport: transport))
                    try router.addPublisher(
                        transport: plan.transport, transportCCExtensionID: extensions.transportCC, midExtensionID: extensions.mid,
                        audioLevelExtensionID: audioLevelID, ridExtensionID: answer.ridExtensionID,
                        repairedRIDExtensionID: answer.repairedRIDExtensionID)
                } catch {
                    logger.error("\(participant): publisher connection not created: \(error)")
                    rooms.removeConnection(plan.transport)
                    return ["publisher connection not created: \(error)"]
                }
            } else if plan.restart {
                rooms.restartICE(plan.transport, local: local, remote: answer.remote)
            }
            for track in plan.removed { router.removeReceiver(track: track.trackID) }
            var failures: [String] = []
            // Kept tracks first: one moved to another m-line frees its old
            // SSRCs before a new track may declare them.
            for receiver in plan.receivers.filter({ !$0.isNew }) + plan.receivers.filter(\.isNew) {
                do {
                    if receiver.isNew || router.receiverSSRCs(track: receiver.track) == nil {
                        try router.addReceiver(
                            track: receiver.track, publisher: plan.transport, kind: receiver.kind, mid: receiver.mid,
                            payloadType: receiver.payloadType, rtxPayloadType: receiver.rtxPayloadType,
                            ssrc: receiver.ssrc, rtxSSRC: receiver.rtxSSRC, clockRate: receiver.clockRate,
                            enabled: receiver.enabled, layers: receiver.layers, priority: receiver.priority)
                        rooms.attachPendingDownTracks(of: receiver.track, in: room)
                    } else {
                        try router.updateReceiverMID(track: receiver.track, mid: receiver.mid)
                        try router.updateReceiverSSRCs(track: receiver.track, ssrc: receiver.ssrc, rtxSSRC: receiver.rtxSSRC)
                    }
                } catch {
                    logger.error("\(participant): track \(receiver.mid) not routed: \(error)")
                    failures.append("mid '\(receiver.mid)' not routed: \(error)")
                }
            }
            rooms.touch(room)
            return failures
        }
        if plan.isNew, failures.first?.hasPrefix("publisher connection") == true {
            // Nothing exists on the worker: the next offer starts afresh.
            state.withLock { state in
                guard state.participants[participant]?.publisher?.transport == plan.transport else { return }
                state.participants[participant]?.publisher = nil
                updateLayout(&state, room: room) { $0.removePublisher(plan.transport) }
            }
        }
        if !failures.isEmpty { throw .serverLocalDescFailed(failures.joined(separator: "; ")) }
    }

    /// A track unpublished by `unpublish` (not by a renegotiation): its
    /// receiver and DownTracks go.
    public func unpublish(participant: ParticipantHandle, track: TrackHandle) async {
        let found = state.withLock { state -> (Int, RoomHandle)? in
            guard var media = state.participants[participant], var publisher = media.publisher,
                let mid = publisher.tracks.first(where: { $0.value.handle == track })?.key
            else { return nil }
            publisher.tracks[mid] = nil
            media.publisher = publisher
            state.participants[participant] = media
            updateLayout(&state, room: media.room) { $0.receivers[track.trackID] = nil }
            return (media.worker, media.room)
        }
        guard let (worker, room) = found else { return }
        await workers[worker].perform { rooms in
            rooms.routers[room]?.removeReceiver(track: track.trackID)
            rooms.forgetPendingDownTracks(of: track.trackID)
        }
    }

    // MARK: - Commands from the room

    /// Forwards `track`'s packets or not (its effective enabled state); a
    /// PLI asks the publisher for a keyframe when it turns on.
    public func setForwarding(room: RoomHandle, track: TrackHandle, forwarded: Bool) {
        state.withLock { state in
            updateLayout(&state, room: room) { $0.receivers[track.trackID]?.plan.enabled = forwarded }
        }
        workers[workerIndex(for: room)].enqueue { rooms in
            try? rooms.routers[room]?.setForwarding(track: track.trackID, enabled: forwarded, now: MediaClock.now())
            rooms.touch(room)
        }
    }

    /// The bandwidth profile `participant` joined with (PROTOCOL.md 7): how
    /// its downlink is shared among the tracks it receives. Kept for a
    /// subscriber connection that does not exist yet.
    public func setAllocationProfile(participant: ParticipantHandle, room: RoomHandle, _ profile: MediaAllocationProfile) {
        updateSubscriber(participant, room: room, keep: { $0.allocationProfile = profile }) { router, transport in
            try? router.setAllocationProfile(subscriber: transport, profile)
        }
    }

    /// Pauses or resumes the audio forwarded to `participant` (an audio
    /// interruption). Kept for a subscriber connection that does not exist
    /// yet: it starts paused.
    public func setRemoteAudioPaused(participant: ParticipantHandle, room: RoomHandle, paused: Bool) {
        updateSubscriber(participant, room: room, keep: { $0.remoteAudioPaused = paused }) { router, transport in
            try? router.setAudioPaused(subscriber: transport, paused: paused)
        }
    }

    /// Keeps a setting of `participant`'s subscriber side (`keep`, applied
    /// again when its subscriber connection is made) and, when that
    /// connection exists, applies it to its router on the worker.
    private func updateSubscriber(
        _ participant: ParticipantHandle, room: RoomHandle, keep: (inout ParticipantMedia) -> Void,
        apply: @escaping @Sendable (Router, TransportID) -> Void
    ) {
        let (transport, worker) = state.withLock { state -> (TransportID?, Int) in
            var media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            keep(&media)
            let worker = placeSubscriber(&state, &media)
            state.participants[participant] = media
            return (media.subscriber.transport, worker)
        }
        guard let transport else { return }
        workers[worker].enqueue { rooms in
            if let router = rooms.routers[room] { apply(router, transport) }
        }
    }

    /// What `participant` asked for `track` it receives (PROTOCOL.md 7):
    /// `setContentPreferences`, `setTrackPriority`, `switchOffTrack` /
    /// `switchOnTrack`. Kept for a DownTrack that does not exist yet.
    public func updatePreferences(
        participant: ParticipantHandle, room: RoomHandle, track: TrackHandle,
        _ change: @escaping @Sendable (inout DownTrackPreferences) -> Void
    ) {
        // Known to the plane, so that `remove(participant:)` forgets the
        // worker's copy even when no connection was ever negotiated.
        let worker = state.withLock { state -> Int in
            var media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            let worker = placeSubscriber(&state, &media)
            state.participants[participant] = media
            return worker
        }
        workers[worker].enqueue { rooms in
            rooms.updatePreferences(participant: participant, room: room, track: track.trackID, change)
        }
    }

    /// The publisher changed its priority for `track`.
    public func setPublisherPriority(room: RoomHandle, track: TrackHandle, priority: MediaTrackPriority) {
        state.withLock { state in
            updateLayout(&state, room: room) { $0.receivers[track.trackID]?.plan.priority = priority }
        }
        workers[workerIndex(for: room)].enqueue { rooms in
            try? rooms.routers[room]?.setPublisherPriority(track: track.trackID, priority)
        }
    }

    /// Ends both connections of a participant.
    public func remove(participant: ParticipantHandle) {
        state.withLock { state in
            guard let media = state.participants.removeValue(forKey: participant) else { return }
            let publisher = media.publisher?.transport
            let subscriber = media.subscriber.transport
            let tracks = media.publisher?.tracks.values.map(\.handle.trackID) ?? []
            let room = media.room
            let subscriberWorker = media.subscriberWorker ?? media.worker
            // The publisher side on the room's home, the subscriber side
            // where it was placed (often the same worker: one job).
            let endSubscriberSide: @Sendable (MediaWorkerRooms) -> Void = { rooms in
                rooms.subscriberPreferences[participant] = nil
                if let subscriber {
                    rooms.forgetPendingDownTracks(toSubscriber: subscriber)
                    rooms.removeConnection(subscriber)
                }
            }
            workers[media.worker].enqueue { rooms in
                for track in tracks { rooms.forgetPendingDownTracks(of: track) }
                if let publisher {
                    rooms.forgetPendingDownTracks(toSubscriber: publisher)
                    rooms.removeConnection(publisher)
                }
                if subscriberWorker == media.worker { endSubscriberSide(rooms) }
                rooms.dropRouterIfUnused(room)
            }
            if subscriberWorker != media.worker {
                workers[subscriberWorker].enqueue { rooms in
                    endSubscriberSide(rooms)
                    rooms.dropRouterIfUnused(room)
                }
            }
            if let publisher {
                updateLayout(&state, room: room) { $0.removePublisher(publisher) }
            }
            unplaceSubscriber(&state, media)
            forgetSpreadIfEmpty(&state, room: room)
        }
    }

    // MARK: - Helpers

    static func sessionID(_ participant: ParticipantHandle, connection: UInt64) -> String {
        // A positive 63-bit number (RFC 8866 section 5.2): the participant's
        // handle (32 bits), this process's salt (29) and the connection (2).
        String((UInt64(participant.rawValue) << 29 | processSalt) << 2 | connection)
    }

    /// Random per process, so a restarted node does not repeat an `o=`
    /// session ID that a client still holds.
    private static let processSalt = UInt64.random(in: 0..<(1 << 29))
}

extension MediaPlane.State {
    mutating func allocateTransport() -> UInt32 {
        defer { nextTransport &+= 1 }
        return nextTransport
    }
}

/// A checked publish answer, not yet applied: the room decides first.
public struct PendingPublish: Sendable {
    public let answer: PublishAnswer
    let local: ICECredentials

    /// The answer's text for `publishAnswer`.
    public var sdp: String { answer.text }
}

struct PublishPlan: Sendable {
    var worker: Int
    var transport: TransportID
    var isNew: Bool
    var restart: Bool
    var removed: [TrackHandle]
    var receivers: [ReceiverPlan]
}

struct ReceiverPlan: Sendable, Hashable {
    var track: TrackID
    var kind: MediaTrackKind
    var mid: String
    var payloadType: UInt8
    var rtxPayloadType: UInt8?
    var ssrc: SSRC?
    var rtxSSRC: SSRC?
    var clockRate: UInt32
    var enabled: Bool
    var isNew: Bool
    /// Simulcast layers, lowest first; empty for one layer.
    var layers: [SimulcastLayer]
    var priority: TrackPriority
}
