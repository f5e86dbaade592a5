import Foundation
import Logging
import Packets
import Rooms
import SDP
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
        var participants: [ParticipantSID: ParticipantMedia] = [:]
        /// Every published track's worker-side number.
        var trackIDs: [TrackSID: TrackID] = [:]
        var nextTransport: UInt32 = 1
        var nextTrack: UInt32 = 1
    }

    /// Binds one UDP socket per worker. `events` is called on a worker
    /// thread: it must only enqueue.
    public init(
        configuration: MediaConfiguration, logger: Logger, events: @escaping @Sendable (MediaEvent) -> Void
    ) throws {
        self.configuration = configuration
        self.logger = logger
        certificate = try DTLSCertificate.generate()
        var workers: [MediaWorker<MediaWorkerRooms>] = []
        for k in 0..<configuration.workers {
            let port = configuration.basePort == 0 ? 0 : configuration.basePort &+ UInt16(k)
            let socket = try UDPSocket(address: configuration.bindAddress, port: port)
            let workerLogger = logger
            workers.append(try MediaWorker(index: k, socket: socket) {
                MediaWorkerRooms(
                    events: events, logger: workerLogger, networkQuality: configuration.networkQuality,
                    dominantSpeaker: configuration.dominantSpeaker)
            })
        }
        self.workers = workers
    }

    /// The UDP port of each worker (the kernel's choice with base port 0).
    public var ports: [UInt16] { workers.map { $0.socket.localPort } }

    public func start() {
        for worker in workers { worker.start(logger: logger) }
    }

    public func stop() async {
        for worker in workers { await worker.stop() }
    }

    /// The worker a room lives on: a stable hash of its SID (FNV-1a), so
    /// every participant of a room lands on the same thread.
    func workerIndex(for room: RoomSID) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in room.rawValue.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(hash % UInt64(workers.count))
    }

    /// The server's transport in SDP for a connection on `worker`.
    func negotiationTransport(ice: ICECredentials, worker: Int) -> NegotiationTransport {
        let port = workers[worker].socket.localPort
        let candidates = configuration.announcedAddresses.compactMap { MediaConfiguration.address($0, port: port) }
        return NegotiationTransport(ice: ice, fingerprint: certificate.fingerprint, candidates: candidates)
    }

    var transportConfiguration: PeerTransportConfiguration {
        var c = PeerTransportConfiguration()
        c.consentTimeout = .milliseconds(Int64(configuration.consentTimeoutSeconds * 1000))
        return c
    }

    // MARK: - Publisher connection

    /// Answers a publish offer (PROTOCOL.md 3.2 and 5) without changing
    /// anything: checks the offer, and that every m-line in `trackMIDs` has
    /// Opus or VP8. Call `applyPublish` once the room accepted the tracks.
    public func answerPublish(
        participant: ParticipantSID, room: RoomSID, offer: SessionDescription, trackMIDs: [String]
    ) throws(NegotiationError) -> PendingPublish {
        let (worker, previous, local, version) = state.withLock { state in
            let media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            return (media.worker, media.publisher?.answer, media.publisher?.local ?? .random(), (media.publisher?.sessionVersion ?? 0) + 1)
        }
        let sessionID = Self.sessionID(participant, connection: 1)
        var ice = local
        var answer = try PublishNegotiation.answer(
            offer: offer, transport: negotiationTransport(ice: ice, worker: worker), sessionID: sessionID,
            sessionVersion: version, previous: previous)
        if answer.iceRestart {
            // RFC 8445 section 9: both sides change credentials on a restart.
            ice = .random()
            answer = try PublishNegotiation.answer(
                offer: offer, transport: negotiationTransport(ice: ice, worker: worker), sessionID: sessionID,
                sessionVersion: version, previous: previous)
        }
        try answer.requireCodecs(forMIDs: trackMIDs)
        return PendingPublish(answer: answer, local: ice)
    }

    /// Applies an answer the room accepted: creates or updates the
    /// publisher connection on the room's worker and one receiver per
    /// published track (SIDs from the room), removing the tracks that are
    /// gone. Throws 53401 when the server cannot set up its side (the
    /// connection or a track's receiver); what could be set up stays.
    public func applyPublish(
        participant: ParticipantSID, room: RoomSID, _ pending: PendingPublish, tracks: [PublishedTrackAssignment]
    ) async throws(NegotiationError) {
        let (answer, local) = (pending.answer, pending.local)
        let plan = state.withLock { state -> PublishPlan in
            var media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            let existing = media.publisher
            let transport = existing?.transport ?? TransportID(state.allocateTransport())
            var published: [String: PublishedMediaTrack] = [:]
            for track in tracks {
                let id = state.trackIDs[track.sid] ?? TrackID(state.allocateTrack())
                state.trackIDs[track.sid] = id
                published[track.mid] = PublishedMediaTrack(sid: track.sid, id: id, kind: track.kind == .audio ? .audio : .video)
            }
            let previous = existing.map { Array($0.tracks.values) } ?? []
            let kept = Set(published.values.map(\.sid))
            let removed = previous.filter { !kept.contains($0.sid) }
            for track in removed { state.trackIDs[track.sid] = nil }
            let previousTracks = Set(previous.map(\.sid))
            media.publisher = PublisherMedia(
                transport: transport, local: local, answer: answer,
                sessionVersion: (existing?.sessionVersion ?? 0) + 1, tracks: published)
            state.participants[participant] = media
            return PublishPlan(
                worker: media.worker, transport: transport, isNew: existing == nil,
                restart: existing != nil && existing!.local != local, removed: removed.map(\.id),
                receivers: tracks.compactMap { track in
                    guard let negotiated = answer.media(withMID: track.mid), let codec = negotiated.codec,
                        let published = published[track.mid]
                    else { return nil }
                    return ReceiverPlan(
                        track: published.id, kind: published.kind, mid: track.mid, payloadType: codec.payloadType,
                        rtxPayloadType: codec.rtxPayloadType, ssrc: negotiated.remoteSSRCs.primary,
                        rtxSSRC: negotiated.remoteSSRCs.rtx, clockRate: codec.clockRate, enabled: track.enabled,
                        isNew: !previousTracks.contains(track.sid))
                })
        }
        let certificate = self.certificate
        let configuration = transportConfiguration
        let extensions = answer.media.first(where: \.isAccepted)?.headerExtensions ?? NegotiatedHeaderExtensions()
        // Audio level is negotiated on audio m-lines only (the BUNDLE shares
        // IDs, but a video-first offer has none on its first m-line).
        let audioLevelID = answer.media.lazy.filter(\.isAccepted).compactMap(\.headerExtensions.audioLevel).first
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
                        audioLevelExtensionID: audioLevelID)
                } catch {
                    logger.error("\(participant.rawValue): publisher connection not created: \(error)")
                    rooms.removeConnection(plan.transport)
                    return ["publisher connection not created: \(error)"]
                }
            } else if plan.restart {
                rooms.restartICE(plan.transport, local: local, remote: answer.remote)
            }
            for track in plan.removed { router.removeReceiver(track: track) }
            var failures: [String] = []
            for receiver in plan.receivers {
                do {
                    if receiver.isNew || router.receiverSSRCs(track: receiver.track) == nil {
                        try router.addReceiver(
                            track: receiver.track, publisher: plan.transport, kind: receiver.kind, mid: receiver.mid,
                            payloadType: receiver.payloadType, rtxPayloadType: receiver.rtxPayloadType,
                            ssrc: receiver.ssrc, rtxSSRC: receiver.rtxSSRC, clockRate: receiver.clockRate,
                            enabled: receiver.enabled)
                        rooms.attachPendingDownTracks(of: receiver.track, in: room)
                    } else {
                        try router.updateReceiverSSRCs(track: receiver.track, ssrc: receiver.ssrc, rtxSSRC: receiver.rtxSSRC)
                    }
                } catch {
                    logger.error("\(participant.rawValue): track \(receiver.mid) not routed: \(error)")
                    failures.append("mid '\(receiver.mid)' not routed: \(error)")
                }
            }
            rooms.touch(room)
            return failures
        }
        if plan.isNew, failures.first?.hasPrefix("publisher connection") == true {
            // Nothing exists on the worker: the next offer starts afresh.
            state.withLock { state in
                guard let publisher = state.participants[participant]?.publisher, publisher.transport == plan.transport
                else { return }
                for track in publisher.tracks.values { state.trackIDs[track.sid] = nil }
                state.participants[participant]?.publisher = nil
            }
        }
        if !failures.isEmpty { throw .serverLocalDescFailed(failures.joined(separator: "; ")) }
    }

    /// A track unpublished by `unpublish` (not by a renegotiation): its
    /// receiver and DownTracks go.
    public func unpublish(participant: ParticipantSID, track: TrackSID) async {
        let found = state.withLock { state -> (Int, RoomSID, TrackID)? in
            guard var media = state.participants[participant], var publisher = media.publisher,
                let (mid, published) = publisher.tracks.first(where: { $0.value.sid == track })
            else { return nil }
            publisher.tracks[mid] = nil
            media.publisher = publisher
            state.participants[participant] = media
            state.trackIDs[track] = nil
            return (media.worker, media.room, published.id)
        }
        guard let (worker, room, id) = found else { return }
        await workers[worker].perform { rooms in
            rooms.routers[room]?.removeReceiver(track: id)
            rooms.forgetPendingDownTracks(of: id)
        }
    }

    // MARK: - Room events

    /// The media side of room events: forwarding on/off (a PLI when on),
    /// remote audio paused, a participant gone for good.
    public func handle(_ events: [RoomEvent]) {
        for event in events {
            switch event {
            case .trackForwarding(let room, _, let track, let forwarded):
                guard let id = state.withLock({ $0.trackIDs[track] }) else { continue }
                workers[workerIndex(for: room)].enqueue { rooms in
                    try? rooms.routers[room]?.setForwarding(track: id, enabled: forwarded, now: MediaClock.now())
                    rooms.touch(room)
                }
            case .remoteAudioPaused(let room, let participant, let paused):
                // Recorded even without a subscriber connection: the one
                // created later starts paused (applySubscriberAnswer).
                let transport = state.withLock { state -> TransportID? in
                    var media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
                    media.subscriber.remoteAudioPaused = paused
                    state.participants[participant] = media
                    return media.subscriber.transport
                }
                guard let transport else { continue }
                workers[workerIndex(for: room)].enqueue { rooms in
                    // Unknown only while the connection is still being
                    // created; its creation reads the flag recorded above.
                    try? rooms.routers[room]?.setAudioPaused(subscriber: transport, paused: paused)
                }
            case .participantRemoved(let room, let participant, _):
                remove(participant: participant, room: room)
            default:
                continue
            }
        }
    }

    /// Ends both connections of a participant.
    public func remove(participant: ParticipantSID, room: RoomSID) {
        guard let media = state.withLock({ state -> ParticipantMedia? in
            guard let media = state.participants.removeValue(forKey: participant) else { return nil }
            for sid in media.publisher?.tracks.values.map(\.sid) ?? [] { state.trackIDs[sid] = nil }
            return media
        }) else { return }
        let connections = [media.publisher?.transport, media.subscriber.transport].compactMap { $0 }
        let tracks = media.publisher?.tracks.values.map(\.id) ?? []
        workers[media.worker].enqueue { rooms in
            for track in tracks { rooms.forgetPendingDownTracks(of: track) }
            for connection in connections {
                rooms.forgetPendingDownTracks(toSubscriber: connection)
                rooms.removeConnection(connection)
            }
            rooms.dropRouterIfUnused(room)
        }
    }

    // MARK: - Helpers

    static func sessionID(_ participant: ParticipantSID, connection: UInt64) -> String {
        // A positive 63-bit number (RFC 8866 section 5.2) from the SID's
        // last 15 hex digits and the connection number.
        let hex = participant.rawValue.suffix(15)
        return String((UInt64(hex, radix: 16) ?? 1) << 1 | connection)
    }
}

extension MediaPlane.State {
    mutating func allocateTransport() -> UInt32 {
        defer { nextTransport &+= 1 }
        return nextTransport
    }

    mutating func allocateTrack() -> UInt32 {
        defer { nextTrack &+= 1 }
        return nextTrack
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
    var removed: [TrackID]
    var receivers: [ReceiverPlan]
}

struct ReceiverPlan: Sendable {
    var track: TrackID
    var kind: SFU.MediaKind
    var mid: String
    var payloadType: UInt8
    var rtxPayloadType: UInt8?
    var ssrc: SSRC?
    var rtxSSRC: SSRC?
    var clockRate: UInt32
    var enabled: Bool
    var isNew: Bool
}
