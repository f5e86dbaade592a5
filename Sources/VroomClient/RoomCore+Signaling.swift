import NIOCore

extension RoomCore {
    // MARK: The WebSocket

    /// Opens a new signaling socket to `route.current`; callbacks of
    /// older sockets are ignored.
    func openChannel() {
        channelGeneration += 1
        channelIsOpen = false
        let generation = channelGeneration
        let loop = eventLoop
        channel = SignalingChannel(
            url: route.current, token: options.token, tlsConfiguration: options.tlsConfiguration, eventLoopGroup: loop,
            logger: logger,
            callbacks: .init(
                onOpen: { loop.execute { self.channelOpened(generation) } },
                onText: { text in loop.execute { self.channelReceived(text, generation) } },
                onClose: { failure in loop.execute { self.channelClosed(generation, failure: failure) } }))
    }

    func channelOpened(_ generation: Int) {
        guard generation == channelGeneration, !isFinished else { return }
        channelIsOpen = true
        lastServerFrame = .now()
        let id = nextRequestID("join-")
        joinRequestID = id
        channel?.send(
            .join(
                id: id, room: options.roomName ?? shared.withLock({ $0.sid }), resume: sessionToken,
                subscribeAll: options.isAutomaticSubscriptionEnabled, bandwidthProfile: options.bandwidthProfile))
    }

    func channelClosed(_ generation: Int, failure: String?) {
        guard generation == channelGeneration, !isFinished else { return }
        channel = nil
        isJoined = false
        if !hasConnectedOnce {
            failToConnect(.signalingConnectionError(failure ?? "the server closed the connection"))
            return
        }
        if serverEnded { return }
        beginSignalingReconnect()
    }

    func channelReceived(_ text: String, _ generation: Int) {
        guard generation == channelGeneration, !isFinished else { return }
        lastServerFrame = .now()
        let signal: ServerSignal
        do {
            signal = try ServerSignal(json: text)
        } catch {
            logger.warning("ignored a server frame: \(error)")
            return
        }
        handle(signal)
    }

    /// Sends a ping every 4 s (the server wants one at least every 5 s)
    /// and drops a socket that has been silent for 15 s (a dead server or
    /// a half-open TCP connection; the server pongs every ping).
    func startPinging() {
        pinger?.cancel()
        pinger = PacedTimer(eventLoop: eventLoop, interval: .seconds(4)) { [unowned self] now in
            guard let channel = self.channel, self.isJoined else { return }
            if now - self.lastServerFrame > .seconds(15) {
                self.logger.warning("no frame from the server for 15 s: reconnecting")
                channel.abort()
                return
            }
            channel.send(.ping)
        }
    }

    // MARK: Messages

    func handle(_ signal: ServerSignal) {
        switch signal {
        case .joined(let joined):
            didJoin(joined)
        case .error(let id, let code, let message):
            handleError(id: id, error: VideoError(code: code, message: message))
        case .publishAnswer(let id, let sdp, let tracks):
            applyPublishAnswer(id: id, sdp: sdp, tracks: tracks)
        case .subscribeOffer(let sdp, let tracks):
            answerSubscribeOffer(sdp: sdp, tracks: tracks)
        case .ok, .pong:
            break
        case .participantConnected(let info):
            let participant = makeParticipant(info)
            shared.withLock { shared in
                shared.remoteParticipants.removeAll { $0.sid == participant.sid }
                shared.remoteParticipants.append(participant)
            }
            emit(.participantConnected(participant))
        case .participantDisconnected(let sid):
            guard let participant = removeParticipant(sid: sid) else { return }
            emit(.participantDisconnected(participant))
        case .participantReconnecting(let sid):
            guard let participant = participant(sid: sid) else { return }
            participant.fields.withLock { $0.state = .reconnecting }
            emit(.participantReconnecting(participant))
        case .participantReconnected(let sid):
            guard let participant = participant(sid: sid) else { return }
            participant.fields.withLock { $0.state = .connected }
            emit(.participantReconnected(participant))
        case .trackPublished(let participantSid, let track):
            guard let participant = participant(sid: participantSid) else { return }
            let publication = RemoteTrackPublication(
                trackSid: track.sid, trackName: track.name, kind: track.kind, enabled: track.enabled, core: self)
            participant.fields.withLock { $0.publications.append(publication) }
            emit(.trackPublished(participant, publication))
        case .trackUnpublished(let participantSid, let trackSid):
            guard let participant = participant(sid: participantSid),
                let publication = participant.fields.withLock({ fields -> RemoteTrackPublication? in
                    guard let index = fields.publications.firstIndex(where: { $0.trackSid == trackSid }) else { return nil }
                    return fields.publications.remove(at: index)
                })
            else { return }
            if publication.state.withLock({ $0.subscribed }) {
                publication.state.withLock { $0.subscribed = false }
                emit(.trackUnsubscribed(participant, publication))
            }
            emit(.trackUnpublished(participant, publication))
        case .trackEnabled(let participantSid, let trackSid, _):
            guard let (participant, publication) = publication(participantSid, trackSid) else { return }
            publication.state.withLock {
                $0.enabled = true
                $0.interrupted = false
            }
            emit(.trackEnabled(participant, publication))
        case .trackDisabled(let participantSid, let trackSid, let reason):
            guard let (participant, publication) = publication(participantSid, trackSid) else { return }
            publication.state.withLock {
                $0.enabled = false
                $0.interrupted = reason == "interrupted"
            }
            emit(.trackDisabled(participant, publication))
        case .messageSent(let id, let sid):
            emit(.messageSent(id: id ?? "", sid: sid))
        case .messageFailed(let id, let code, let reason):
            emit(.messageFailed(id: id ?? "", VideoError(code: code, message: reason)))
        case .message(let message):
            emit(.messageReceived(message))
        case .dominantSpeaker(let sid):
            emit(.dominantSpeakerChanged(sid.flatMap { participant(sid: $0) }))
        case .networkQuality(let sid, let level, let warnings):
            emit(.networkQualityChanged(participantSid: sid, level: level, warnings: warnings))
        case .disconnected(let code, let message):
            if code == VideoError.signalingConnectionTimeoutCode {
                // The server treats this like a drop (PROTOCOL.md 3.6): resume.
                logger.warning("server cut the session for silence: reconnecting")
                return
            }
            end(with: VideoError(code: code, message: message))
        case .redirect(let url):
            followRedirect(to: url)
        case .reconnect(let url):
            move(to: url)
        case .trackSwitchedOff(let trackSid, let reason):
            guard let (participant, track) = remoteVideoTrack(sid: trackSid) else { return }
            let known = reason.flatMap(TrackSwitchOffReason.init(rawValue:))
            if known == nil { logger.debug("track \(trackSid) switched off for '\(reason ?? "-")'") }
            if track.setSwitchedOff(true, reason: known) { emit(.trackSwitchedOff(participant, track, known)) }
        case .trackSwitchedOn(let trackSid):
            guard let (participant, track) = remoteVideoTrack(sid: trackSid) else { return }
            if track.setSwitchedOff(false, reason: nil) { emit(.trackSwitchedOn(participant, track)) }
        case .publisherLayers(let trackSid, let active):
            setNeededLayers(trackSid: trackSid, active: active)
        case .unknown(let type):
            logger.debug("ignored a server message of type \(type)")
        }
    }

    /// A remote video track by SID (the switch events name no participant).
    func remoteVideoTrack(sid: String) -> (RemoteParticipant, RemoteVideoTrack)? {
        for participant in shared.withLock({ $0.remoteParticipants }) {
            if let track = participant.publication(trackSid: sid)?.videoTrack { return (participant, track) }
        }
        return nil
    }

    /// A request about one remote track (`RemoteVideoTrack`), from any
    /// thread; dropped while not joined (the server forgets them with the
    /// session anyway). The reply is `ok`, or an `error` that is logged.
    func sendTrackRequest(_ make: @escaping @Sendable (String) -> ClientSignal) {
        eventLoop.execute {
            guard self.isJoined, let channel = self.channel else { return }
            channel.send(make(self.nextRequestID("tr-")))
        }
    }

    func handleError(id: String?, error: VideoError) {
        if let id, id == joinRequestID {
            joinRequestID = nil
            if hasConnectedOnce {
                end(with: error)  // a refused resume: 53001, 53106, 53216, 20106…
            } else {
                failToConnect(error)
            }
            return
        }
        if let id, id == publishRequestID {
            publishFailed(error)
            return
        }
        if id == nil, error.code == VideoError.mediaConnectionErrorCode || error.code == VideoError.mediaDTLSTransportFailedCode {
            // The server lost a media connection (consent or DTLS): restart both.
            mediaFailed(.publisher, error)
            mediaFailed(.subscriber, error)
            return
        }
        logger.warning("server error \(error) for request \(id ?? "-")")
    }

    // MARK: Several nodes (PROTOCOL.md 8)

    /// `redirect`: the room lives on another node; join there with the
    /// same token, at most `SignalingRoute.maximumRedirects` times.
    func followRedirect(to url: String) {
        guard !isJoined else {
            logger.warning("ignored a redirect to \(url) after joined")
            return
        }
        switch route.redirect(to: url) {
        case .follow(let next):
            logger.info("redirected to \(next) (\(route.redirects) of \(SignalingRoute.maximumRedirects))")
            channel?.close()
            openChannel()
        case .refuse(let error):
            logger.warning("\(error)")
            if hasConnectedOnce {
                // A resume attempt: the server closes this socket, and the
                // next attempt starts over (`channelClosed`).
                channel?.close()
            } else {
                failToConnect(error)
            }
        }
    }

    /// `reconnect`: the room moves to another node (a drain). Resume there
    /// at once with the session token; the new node has new PeerConnections,
    /// which the media engine sees as a new DTLS fingerprint in its
    /// `publishAnswer` and `subscribeOffer` and so connects afresh.
    func move(to url: String) {
        guard isJoined else {
            logger.warning("ignored a reconnect to \(url) before joined")
            return
        }
        logger.info("the room moves to \(url): resuming there")
        route.move(to: url)
        // The old socket is done with: its close is not a drop.
        channelGeneration += 1
        channel?.close()
        channel = nil
        isJoined = false
        beginSignalingReconnect(
            VideoError(code: 53001, message: "Signaling connection disconnected: the room moves to another server"),
            immediately: true)
    }

    /// The room ended for this participant: the server said so, or a resume was refused.
    func end(with error: VideoError) {
        serverEnded = true
        finish(error: error, event: .disconnected(error))
    }

    // MARK: Joined

    func didJoin(_ joined: ServerSignal.Joined) {
        joinRequestID = nil
        isJoined = true
        route.joined()
        if hasConnectedOnce {
            // A publish sent on the old socket is never answered; the offer
            // below describes every track again (PROTOCOL.md 3.2).
            publishRequestID = nil
        }
        sessionToken = joined.sessionToken
        reconnectWindow = .seconds(Int64(joined.reconnectWindowSeconds))
        reconnectDeadline = nil
        reconnectAttempts = 0
        connectTimeout?.cancel()
        startPinging()
        let firstTime = !hasConnectedOnce
        hasConnectedOnce = true
        shared.withLock {
            $0.sid = joined.roomSid
            $0.name = joined.roomName
            $0.signalingURL = route.home
        }
        if firstTime {
            let local = LocalParticipant(sid: joined.participantSid, identity: joined.identity, core: self)
            local.fields.withLock {
                $0.audioTracks = options.audioTracks
                $0.videoTracks = options.videoTracks
            }
            let participants = joined.participants.map(makeParticipant)
            shared.withLock {
                $0.localParticipant = local
                $0.remoteParticipants = participants
            }
            setState(.connected)
            emit(.connected)
        } else {
            reconcile(joined.participants)
            if mediaFailures.isEmpty {
                setState(.connected)
                emit(.reconnected)
            }
        }
        sendInterruptionState()
        negotiatePublish()
    }

    /// After a resume: the room's state now against what this client knew
    /// (events of the gap are not replayed, PROTOCOL.md 3.6).
    func reconcile(_ current: [ServerSignal.Participant]) {
        let known = shared.withLock { $0.remoteParticipants }
        let currentSids = Set(current.map(\.sid))
        for participant in known where !currentSids.contains(participant.sid) {
            _ = removeParticipant(sid: participant.sid)
            emit(.participantDisconnected(participant))
        }
        for info in current {
            guard let participant = participant(sid: info.sid) else {
                let participant = makeParticipant(info)
                shared.withLock { $0.remoteParticipants.append(participant) }
                emit(.participantConnected(participant))
                continue
            }
            let trackSids = Set(info.tracks.map(\.sid))
            for publication in participant.trackPublications where !trackSids.contains(publication.trackSid) {
                participant.fields.withLock { $0.publications.removeAll { $0 === publication } }
                emit(.trackUnpublished(participant, publication))
            }
            for track in info.tracks {
                if let publication = participant.publication(trackSid: track.sid) {
                    let changed = publication.state.withLock { state -> Bool in
                        defer { state.enabled = track.enabled }
                        return state.enabled != track.enabled
                    }
                    if changed {
                        emit(track.enabled ? .trackEnabled(participant, publication) : .trackDisabled(participant, publication))
                    }
                } else {
                    let publication = RemoteTrackPublication(
                        trackSid: track.sid, trackName: track.name, kind: track.kind, enabled: track.enabled, core: self)
                    participant.fields.withLock { $0.publications.append(publication) }
                    emit(.trackPublished(participant, publication))
                }
            }
        }
    }

    // MARK: Participants

    func makeParticipant(_ info: ServerSignal.Participant) -> RemoteParticipant {
        RemoteParticipant(
            sid: info.sid, identity: info.identity, state: info.state == "reconnecting" ? .reconnecting : .connected,
            publications: info.tracks.map {
                RemoteTrackPublication(
                    trackSid: $0.sid, trackName: $0.name, kind: $0.kind, enabled: $0.enabled, core: self)
            })
    }

    func participant(sid: String) -> RemoteParticipant? {
        shared.withLock { $0.remoteParticipants.first { $0.sid == sid } }
    }

    func publication(_ participantSid: String, _ trackSid: String) -> (RemoteParticipant, RemoteTrackPublication)? {
        guard let participant = participant(sid: participantSid),
            let publication = participant.publication(trackSid: trackSid)
        else { return nil }
        return (participant, publication)
    }

    func removeParticipant(sid: String) -> RemoteParticipant? {
        let participant = shared.withLock { shared -> RemoteParticipant? in
            guard let index = shared.remoteParticipants.firstIndex(where: { $0.sid == sid }) else { return nil }
            return shared.remoteParticipants.remove(at: index)
        }
        participant?.fields.withLock { $0.state = .disconnected }
        return participant
    }
}
