import Foundation
import Synchronization
import Logging
import Node
import Rooms

/// One participant's signaling session over one WebSocket (PROTOCOL.md
/// section 3): decodes the client's frames, runs them against the
/// `RoomHost`, and decides what the client is sent. The socket loop
/// (`SignalingEndpoint`) feeds it frames and time, and writes what comes out
/// of its outbox.
actor SignalingSession {
    let node: Node
    var host: RoomHost { node.rooms }
    let verifier: AccessTokenVerifier
    let settings: SignalingSettings
    let outbox: SessionOutbox
    private let token: String?
    private let logger: Logger
    private let clock: @Sendable () -> Date

    private var participant: ParticipantSID?
    let metrics: SignalingMetrics
    private var lastFrame: Date
    /// When the client last sent a WebSocket ping or pong: written off the
    /// actor by the channel's ``ControlFrameObserver``, read by `tick()`.
    private let lastControlFrame = Mutex<Date?>(nil)
    /// True once the session ended on purpose (leave, refused join, a
    /// `disconnected` from the room): closing the socket is then no drop.
    private var ended = false

    /// Subscriber connections (server offers, PROTOCOL.md 3.4), per participant.
    private let subscribers: SubscriberStates

    init(
        node: Node, verifier: AccessTokenVerifier, settings: SignalingSettings, token: String?,
        subscribers: SubscriberStates, metrics: SignalingMetrics = .none, logger: Logger,
        clock: @escaping @Sendable () -> Date
    ) {
        self.node = node
        self.metrics = metrics
        self.subscribers = subscribers
        self.verifier = verifier
        self.settings = settings
        self.token = token
        self.logger = logger
        self.clock = clock
        self.outbox = SessionOutbox(capacity: settings.outboxCapacity)
        self.lastFrame = clock()
    }

    // MARK: - Frames from the client

    /// Handles one text frame. Replies go to the outbox.
    func receive(_ frame: String) async {
        lastFrame = clock()
        guard !ended else { return }
        switch SignalingCodec.decode(frame) {
        case .invalid(let id, let error, let type):
            // A malformed join is a refused join: answered, then the socket closes.
            if type == "join", participant == nil {
                refuse(error, id: id)
            } else {
                reply(error.errorMessage(id: id))
            }
        case .ignored(let type):
            logger.debug("ignoring a message of unknown type \(type)")
        case .request(let message, let id):
            await handle(message, id: id)
        }
    }

    /// A WebSocket ping or pong from the client: traffic for the silence
    /// rule (PROTOCOL.md section 1), nothing else. Called on the channel's
    /// event loop, so it only stores the time.
    nonisolated func receiveControlFrame() {
        let now = clock()
        lastControlFrame.withLock { $0 = now }
    }

    /// A binary frame: not part of the protocol.
    func receiveBinary() {
        lastFrame = clock()
        reply(SignalingError.invalidMessage("binary frames are not used; send JSON text").errorMessage(id: nil))
    }

    private func handle(_ message: ClientMessage, id: String?) async {
        guard let participant else {
            switch message {
            case .join(let join): await self.join(join, id: id)
            case .ping: reply(.pong(id: id))
            case .sendMessage: reply(.messageFailed(id: id, code: MessageRefusal.notJoined.code, reason: MessageRefusal.notJoined.reason))
            default: reply(SignalingError.invalidMessage("\(message.type) before join").errorMessage(id: id))
            }
            return
        }
        do throws(RoomError) {
            switch message {
            case .join:
                reply(SignalingError.invalidMessage("already joined").errorMessage(id: id))
            case .publish(let publish):
                try await self.publish(publish, participant: participant, id: id)
            case .unpublish(let trackSid):
                try await node.unpublish(participant: participant, track: try trackSID(trackSid))
                ok(id)
            case .setTrackEnabled(let trackSid, let enabled):
                let track = try trackSID(trackSid)
                try await host.perform { (service: inout RoomService, now) throws(RoomError) in
                    try service.setTrackEnabled(participant: participant, track: track, enabled: enabled, now: now)
                }
                ok(id)
            case .interruption(let interruption):
                let (kind, state) = (interruption.kind, interruption.state)
                try await host.perform { (service: inout RoomService, now) throws(RoomError) in
                    try service.interruption(
                        participant: participant, kind: kind, state: state, reason: interruption.reason, now: now)
                }
                ok(id)
            case .updateSubscriptions(let rules):
                try await host.perform { (service: inout RoomService, now) throws(RoomError) in
                    try service.updateSubscriptions(participant: participant, rules: rules, now: now)
                }
                ok(id)
            case .restartIce:
                // New credentials in the next offer (PROTOCOL.md 3.4); sent
                // now, or after the answer to one in flight.
                node.media.restartSubscriberICE(participant: participant)
                ok(id)
                outbox.send(.notice(.subscriptionsChanged))
            case .subscribeAnswer(let sdp):
                logger.trace("subscribeAnswer from \(participant.rawValue):\n\(sdp)")
                do throws(NodeError) {
                    try await node.applySubscriberAnswer(participant: participant, sdp: sdp)
                } catch {
                    reply(SignalingError(error).errorMessage(id: id))
                    if error.code == .serverLocalDescFailed {
                        // The server could not set up its side: the offer is
                        // used up, so a fresh one follows (a second try).
                        subscribers.withState(participant) { state in
                            state.offerInFlight = nil
                            state.offerWanted = false
                        }
                        outbox.send(.notice(.subscriptionsChanged))
                    }
                    // A 53403 leaves the offer in flight: it is sent again (PROTOCOL.md 3.4).
                    return
                }
                ok(id)
                let again = subscribers.withState(participant) { state in
                    state.offerInFlight = nil
                    defer { state.offerWanted = false }
                    return state.offerWanted
                }
                if again { outbox.send(.notice(.subscriptionsChanged)) }
            case .sendMessage(let send):
                do throws(MessageRefusal) {
                    let message = try await host.perform { (service: inout RoomService, now) throws(MessageRefusal) in
                        try service.sendMessage(
                            from: participant, content: send.content, contentType: send.contentType, to: send.to, now: now)
                    }
                    reply(.messageSent(id: id, sid: message.sid.rawValue))
                } catch {
                    reply(.messageFailed(id: id, code: error.code, reason: error.reason))
                }
            case .ping:
                reply(.pong(id: id))
            case .leave:
                ended = true
                subscribers.remove(participant)
                outbox.finish()
                // The socket closes at once and the room hears of the leave
                // just after: when a whole room leaves together, the host is
                // busy with everyone's fan-out, and 50 closing handshakes
                // waited behind it (issue 11). Sound unordered: `ended`
                // keeps `closed()` from reporting a drop, and the host
                // ignores a connection that is no longer the participant's.
                let (host, outbox) = (self.host, self.outbox)
                Task { await host.leave(participant: participant, connection: outbox) }
            case .candidate:
                ok(id)  // ICE-lite learns addresses from STUN checks (PROTOCOL.md section 5)
            case .setTrackPriority(let trackSid, let priority):
                try await node.setTrackPriority(participant: participant, track: try trackSID(trackSid), priority: priority)
                ok(id)
            case .setContentPreferences(let trackSid, let size):
                try await node.setRenderDimensions(
                    participant: participant, track: try trackSID(trackSid), width: size?.width, height: size?.height)
                ok(id)
            case .switchOffTrack(let trackSid), .switchOnTrack(let trackSid):
                guard subscribers.withState(participant, { $0.bandwidthProfile.allowsManualSwitchOff }) else {
                    reply(
                        SignalingError.invalidMessage(
                            "\(message.type) needs bandwidthProfile.video.clientTrackSwitchOffControl \"manual\" in join"
                        ).errorMessage(id: id))
                    return
                }
                try await node.setSwitchedOff(
                    participant: participant, track: try trackSID(trackSid), message.type == "switchOffTrack")
                ok(id)
            }
        } catch {
            reply(SignalingError(error).errorMessage(id: id))
        }
    }

    private func trackSID(_ raw: String) throws(RoomError) -> TrackSID {
        guard let sid = TrackSID(validating: raw) else { throw .trackNotFound }
        return sid
    }

    // MARK: - join / resume

    private func join(_ join: ClientMessage.Join, id: String?) async {
        let started = ContinuousClock.now
        let now = clock()
        let verified: AccessToken
        do throws(AccessTokenError) {
            guard let token else { throw AccessTokenError(.invalid, "no access token") }
            // A resume may use a token that expired meanwhile (PROTOCOL.md 3.6).
            verified = try await verifier.verify(token, now: now, checkingExpiry: join.resume == nil)
        } catch {
            refuse(error.signalingError, id: id)
            return
        }
        let outbox = self.outbox
        let iceServers = settings.iceServers
        let identity = verified.identity
        // On the host, before the join's events are routed: the outbox learns
        // who joined (for offers), then queues `joined` first.
        let joined: @Sendable (JoinResult) -> Void = {
            outbox.markJoined(participant: $0.participant.sid, room: $0.room.sid)
            outbox.send(.message(.joined(ServerMessage.Joined($0, id: id, iceServers: iceServers($0.participant.sid, now)))))
        }
        do throws(RoomError) {
            let result: JoinResult
            if let resume = join.resume {
                let sessionToken = SessionToken(rawValue: resume)
                do throws(RoomError) {
                    result = try await host.admit(
                        connection: outbox,
                        joined: joined
                    ) { (service: inout RoomService, now) throws(RoomError) in
                        try service.resume(sessionToken: sessionToken, identity: identity, now: now)
                    }
                } catch .signalingConnectionDisconnected {
                    // Not a session of this node's: in a cluster it may be
                    // another node's, or an adopted one (PROTOCOL.md section 8).
                    let participant: ParticipantSID
                    switch await node.placement.locate(session: sessionToken) {
                    case .unknown: throw .signalingConnectionDisconnected
                    case .elsewhere(let url):
                        ended = true
                        outbox.send(.finalMessage(.redirect(url: url)))
                        return
                    case .unavailable:
                        refuse(SignalingError(.signalingServerBusy, message: "the session's room cannot be found now; try again"), id: id)
                        return
                    case .here(let found, let snapshot):
                        if let snapshot { try await adopt(snapshot) }
                        participant = found
                    }
                    result = try await host.admit(
                        connection: outbox,
                        joined: joined
                    ) { (service: inout RoomService, now) throws(RoomError) in
                        try service.resume(adopted: participant, identity: identity, now: now)
                    }
                }
                // A resume gets a fresh offer when its subscriber set changed
                // (a `subscriptionsChanged` notice); one in flight is sent again.
                if let inFlight = subscribers.withState(result.participant.sid, { $0.offerInFlight }) {
                    outbox.send(.message(inFlight.message))
                }
            } else {
                guard let room = join.room ?? verified.roomGrant else {
                    refuse(SignalingError(.roomNameInvalid, message: "no room named in join or token"), id: id)
                    return
                }
                // A bad name is refused before it is placed on any node.
                try NameValidation.validateRoomName(room)
                // A room that lives on another node: the client joins there
                // with the same token (PROTOCOL.md section 8).
                switch await node.placement.locate(room: room) {
                case .here: break
                case .elsewhere(let url):
                    ended = true
                    outbox.send(.finalMessage(.redirect(url: url)))
                    return
                case .unavailable:
                    refuse(SignalingError(.signalingServerBusy, message: "no node can take the room now; try again"), id: id)
                    return
                }
                // Placed here, but in progress on a node that died or moved
                // it here: carried on with its SIDs (PROTOCOL.md section 8).
                if let snapshot = await node.placement.takeOver(room: room) { try await adopt(snapshot) }
                let rules = join.rules
                result = try await host.admit(
                    connection: outbox,
                    joined: joined
                ) { (service: inout RoomService, now) throws(RoomError) in
                    try service.join(
                        roomName: room, identity: identity, name: join.name, rules: rules,
                        grantRoom: verified.roomGrant, now: now)
                }
            }
            participant = result.participant.sid
            if let profile = join.bandwidthProfile {
                subscribers.withState(result.participant.sid) { $0.bandwidthProfile = profile }
                let video = profile.video
                node.setBandwidthProfile(
                    participant: result.participant.sid, room: result.room.sid, mode: video?.mode?.rawValue,
                    trackSwitchOffMode: video?.trackSwitchOffMode?.rawValue,
                    dominantSpeakerPriority: video?.dominantSpeakerPriority,
                    maxSubscriptionBitrate: video?.maxSubscriptionBitrate)
            }
            metrics.joinCompleted(ContinuousClock.now - started)
            if !result.resumed {
                // A new participant SID: forget the subscriber connections of
                // participants that are gone (expired windows, old sessions).
                let current = await host.read { service in
                    Set(service.allRooms().filter { $0.status == .inProgress }.flatMap { (try? service.participants(inRoom: $0.sid.rawValue)) ?? [] }
                        .filter { $0.status != .disconnected }.map(\.sid))
                }
                subscribers.keepOnly(current)
            }
            logger.info("\(identity) joined \(result.room.uniqueName) as \(result.participant.sid.rawValue)\(result.resumed ? " (resumed)" : "")")
        } catch {
            refuse(SignalingError(error), id: id)
        }
    }

    /// Takes over a room in progress that another node had (PROTOCOL.md section 8).
    private func adopt(_ snapshot: RoomSnapshot) async throws(RoomError) {
        try await host.perform { (service: inout RoomService, now) throws(RoomError) in
            try service.adopt(snapshot, now: now)
        }
        logger.notice("took over room \(snapshot.room.uniqueName) (\(snapshot.room.sid.rawValue)) with \(snapshot.participants.count) participant(s)")
    }

    /// A refused join: the error, then the socket closes (PROTOCOL.md section 1).
    private func refuse(_ error: SignalingError, id: String?) {
        ended = true
        outbox.send(.finalMessage(error.errorMessage(id: id)))
    }

    // MARK: - publish

    private func publish(_ publish: ClientMessage.Publish, participant: ParticipantSID, id: String?) async throws(RoomError) {
        // The room is the one `join` recorded in the outbox.
        guard let room = outbox.joined?.room else { throw .participantNotFound }
        let requests = publish.tracks.map {
            TrackRequest(
                mid: $0.mid, name: $0.name, kind: $0.kind, enabled: $0.enabled, priority: $0.priority,
                layers: $0.layers ?? [])
        }
        let published: (sdp: String, tracks: [PublishedTrackAssignment])
        do throws(NodeError) {
            published = try await node.publish(participant: participant, room: room, offer: publish.sdp, tracks: requests)
        } catch {
            reply(SignalingError(error).errorMessage(id: id))
            return
        }
        reply(
            .publishAnswer(
                ServerMessage.PublishAnswer(
                    id: id, sdp: published.sdp,
                    tracks: published.tracks.map {
                        ServerMessage.PublishedTrack(mid: $0.mid, sid: $0.sid.rawValue, name: $0.name, kind: $0.kind)
                    })))
    }

    // MARK: - Subscriber offers

    /// The offer that reflects the current subscriptions, or nil when none is
    /// due: one is in flight (it is sent after the answer), or the client is
    /// subscribed to nothing and never was; an `error` 53401 when the server
    /// cannot create it.
    func nextOffer() async -> ServerMessage? {
        // The writer may ask while `join` is still suspended on the host:
        // the outbox already knows who joined.
        guard !ended, let (participant, room) = outbox.joined else { return nil }
        let busy = subscribers.withState(participant) { state in
            if state.offerInFlight != nil { state.offerWanted = true }
            return state.offerInFlight != nil
        }
        if busy { return nil }
        let tracks = await host.read { $0.subscribedTracks(of: participant) }
        // The session may have ended, or its socket be closing (the writer
        // is cancelled), while the host was busy: building a 49-m-line
        // offer nobody reads, under the media plane's lock, for each of 50
        // leaving sessions held every close up by 1.8 s.
        guard !ended, !Task.isCancelled else { return nil }
        let now = clock()
        let node = self.node
        let logger = self.logger
        return subscribers.withState(participant) { state -> ServerMessage? in
            if tracks.isEmpty && state.slots.isEmpty { return nil }
            let wanted = Set(tracks.map(\.sid.rawValue))
            for index in state.slots.indices where state.slots[index].track.map({ !wanted.contains($0.sid) }) ?? false {
                state.slots[index].track = nil
            }
            var placed = Set(state.slots.compactMap(\.track?.sid))
            for track in tracks where !placed.contains(track.sid.rawValue) {
                let kind = track.kind
                let entry = (sid: track.sid.rawValue, publisher: track.publisherSID.rawValue)
                if let free = state.slots.firstIndex(where: { $0.track == nil && $0.kind == kind }) {
                    state.slots[free].track = entry
                } else {
                    state.slots.append(SubscriberSlot(mid: String(state.slots.count), kind: kind, track: entry))
                }
                placed.insert(track.sid.rawValue)
            }
            let byTrack = Dictionary(tracks.map { ($0.sid.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
            let listed: [ServerMessage.SubscribedTrack] = state.slots.compactMap { slot in
                guard let entry = slot.track, let track = byTrack[entry.sid] else { return nil }
                return ServerMessage.SubscribedTrack(
                    mid: slot.mid, trackSid: entry.sid, participantSid: entry.publisher, name: track.name, kind: slot.kind)
            }
            let sdp: String?
            do throws(NodeError) {
                sdp = try node.subscriberOffer(participant: participant, room: room, slots: state.slots.map(\.request))
            } catch {
                // No request is in flight: the client is told with an `error`
                // without `id` (PROTOCOL.md 3.7), and the next change of its
                // subscriptions tries again (nothing is marked in flight).
                logger.error("no subscriber offer for \(participant.rawValue): \(error)")
                return SignalingError(error).errorMessage(id: nil)
            }
            guard let sdp else { return nil }
            logger.trace("subscribeOffer to \(participant.rawValue):\n\(sdp)")
            let offer = ServerMessage.subscribeOffer(ServerMessage.SubscribeOffer(sdp: sdp, tracks: listed))
            state.offerInFlight = (offer, now)
            return offer
        }
    }

    // MARK: - Time and the end

    /// Called about once a second. Returns false when the session must end:
    /// no frame for `silenceTimeout` (the client is sent 53002 first: as
    /// `disconnected` once joined, else as an `error`, since `disconnected`
    /// is only for a session that had joined, PROTOCOL.md section 1).
    func tick() -> Bool {
        let now = clock()
        if let control = lastControlFrame.withLock({ $0 }), control > lastFrame { lastFrame = control }
        if now.timeIntervalSince(lastFrame) >= settings.silenceTimeout {
            let timeout = SignalingError(.signalingConnectionTimeout)
            // Joined once the host queued `joined` (before `participant` is set).
            outbox.send(.finalMessage(
                outbox.joined == nil
                    ? timeout.errorMessage(id: nil) : .disconnected(code: timeout.code, message: timeout.message)))
            return false
        }
        if let participant {
            let due = subscribers.withState(participant) { state -> ServerMessage? in
                guard let inFlight = state.offerInFlight, now.timeIntervalSince(inFlight.sentAt) >= settings.offerResendInterval
                else { return nil }
                state.offerInFlight = (inFlight.message, now)
                return inFlight.message
            }
            if let due { outbox.send(.message(due)) }
        }
        return true
    }

    /// The socket is gone. Unless the session ended on purpose or a resume
    /// replaced it, the participant enters `reconnecting` (a drop).
    func closed() async {
        guard let participant, !ended, !outbox.replaced else { return }
        ended = true
        // As for `leave`: the socket's end does not wait for the room.
        let (host, outbox) = (self.host, self.outbox)
        Task { await host.connectionLost(participant: participant, connection: outbox) }
    }

    private func reply(_ message: ServerMessage) {
        outbox.send(.message(message))
    }

    private func ok(_ id: String?) {
        if let id { reply(.ok(id: id)) }
    }
}
