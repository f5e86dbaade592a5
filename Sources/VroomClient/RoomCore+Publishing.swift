import Codecs
import NIOCore
import Packets

extension RoomCore {
    /// The tracks to publish now: the local participant's, or before
    /// `joined` the ones in the options.
    var currentLocalTracks: (audio: [LocalAudioTrack], video: [LocalVideoTrack]) {
        if let local = shared.withLock({ $0.localParticipant }) {
            return local.fields.withLock { ($0.audioTracks, $0.videoTracks) }
        }
        return (options.audioTracks, options.videoTracks)
    }

    func observe(_ state: LocalTrackState, name: String) {
        state.observe { [weak self] enabled in
            guard let self else { return }
            self.eventLoop.execute { self.localTrackEnabledChanged(name: name, enabled: enabled) }
        }
    }

    func ensureEngine() throws -> MediaEngine {
        if let engine { return engine }
        var configuration = MediaEngineConfiguration()
        configuration.bindHost = options.mediaBindHost
        configuration.consentTimeout = options.iceConsentTimeout
        configuration.transportPolicy = options.mediaTransport
        configuration.tcpFallbackDelay = options.iceTCPFallbackDelay
        // Three checks per timeout at least, so one lost answer is no failure.
        configuration.consentCheckInterval = min(.seconds(5), options.iceConsentTimeout / 3)
        if let override = options.mediaServerAddressOverride, let colon = override.lastIndex(of: ":"),
            let port = UInt16(override[override.index(after: colon)...])
        {
            configuration.serverAddressOverride = STUNAddress(text: String(override[..<colon]), port: port)
        }
        let engine = try MediaEngine(eventLoop: eventLoop, configuration: configuration) { [unowned self] event in
            self.handle(event)
        }
        self.engine = engine
        return engine
    }

    /// Sends a `publish` offer for the current tracks; one at a time
    /// (changes meanwhile renegotiate after the answer).
    func negotiatePublish() {
        guard isJoined, let channel, !isFinished else { return }
        guard publishRequestID == nil else {
            publishAgain = true
            return
        }
        let (audio, video) = currentLocalTracks
        guard !(audio.isEmpty && video.isEmpty && publishedNames.isEmpty && engine == nil) else { return }
        let engine: MediaEngine
        do {
            engine = try ensureEngine()
        } catch {
            logger.error("media engine failed to start: \(error)")
            for name in audio.map(\.name) + video.map(\.name) {
                emit(.localTrackPublicationFailed(trackName: name, .mediaConnectionError("\(error)")))
            }
            return
        }
        prepareSenders(audio: audio, video: video)
        engine.setLocalTracks(
            audio.map { LocalMediaTrack(name: $0.name, kind: .audio, enabled: isSending(audio: $0)) }
                + video.map { track in
                    LocalMediaTrack(
                        name: track.name, kind: .video, enabled: isSending(video: track),
                        rids: videoSenders[track.name]?.layers.compactMap(\.rid) ?? [])
                })
        if publisherRestartPending { logger.info("publisher: restarting ICE") }
        let offer = engine.makePublishOffer(iceRestart: publisherRestartPending)
        publisherRestartPending = false
        let enabled = Dictionary(uniqueKeysWithValues: audio.map { ($0.name, $0.isEnabled) } + video.map { ($0.name, $0.isEnabled) })
        let priorities = shared.withLock { $0.localParticipant }?.fields.withLock { $0.priorities } ?? [:]
        let id = nextRequestID("pub-")
        publishRequestID = id
        publishAgain = false
        offeredNames = offer.tracks.map(\.name)
        channel.send(
            .publish(
                id: id, sdp: offer.sdp,
                tracks: offer.tracks.map { track in
                    ClientSignal.PublishTrack(
                        mid: track.mid, name: track.name, kind: track.kind, enabled: enabled[track.name] ?? true,
                        priority: priorities[track.name],
                        layers: videoSenders[track.name].flatMap { sender in
                            sender.layers.count > 1
                                ? sender.layers.compactMap { layer in
                                    layer.rid.map { ClientSignal.Layer(rid: $0, width: layer.width, height: layer.height) }
                                } : nil
                        })
                }))
    }

    func applyPublishAnswer(id: String?, sdp: String, tracks: [ServerSignal.PublishedTrack]) {
        guard let id, id == publishRequestID, let engine else { return }
        logger.debug("publish answer \(id)")
        publishRequestID = nil
        do {
            try engine.applyPublishAnswer(sdp)
        } catch {
            // 53402 for an answer that does not fit; the engine's own code
            // otherwise (53405: ICE-TCP only, and the server offers none).
            let code = (error as? MediaEngineError)?.code ?? 53402
            publishFailed(VideoError(code: code, message: "the server's answer cannot be used: \(error)"))
            return
        }
        let local = shared.withLock { $0.localParticipant }
        var added: [LocalTrackPublication] = []
        let (audio, video) = currentLocalTracks
        let kinds = Dictionary(
            uniqueKeysWithValues: audio.map { ($0.name, TrackKind.audio) } + video.map { ($0.name, TrackKind.video) })
        local?.fields.withLock { fields in
            let names = fields.names
            fields.publications = fields.publications.filter { names.contains($0.key) }
            for track in tracks {
                guard let kind = kinds[track.name], fields.publications[track.name]?.trackSid != track.sid else { continue }
                let publication = LocalTrackPublication(
                    trackSid: track.sid, trackName: track.name, kind: kind, priority: fields.priorities[track.name])
                fields.publications[track.name] = publication
                added.append(publication)
            }
        }
        publishedNames = Set(tracks.map(\.name))
        for (name, sender) in videoSenders { sender.setAcceptedLayers(engine.acceptedLayers(trackName: name)) }
        for publication in added { emit(.localTrackPublished(publication)) }
        updateSending()
        if publishAgain || publisherRestartPending { negotiatePublish() }
    }

    func publishFailed(_ error: VideoError) {
        publishRequestID = nil
        for name in offeredNames where !publishedNames.contains(name) {
            emit(.localTrackPublicationFailed(trackName: name, error))
        }
        if publishAgain { negotiatePublish() }
    }

    // MARK: Sending

    func isSending(audio track: LocalAudioTrack) -> Bool {
        track.isEnabled && audioInterruption == nil
    }

    func isSending(video track: LocalVideoTrack) -> Bool {
        track.isEnabled && cameraInterruption == nil
    }

    /// Capture loops for the current tracks; stopped for removed ones.
    func prepareSenders(audio: [LocalAudioTrack], video: [LocalVideoTrack]) {
        let videoNames = Set(video.map(\.name))
        for (name, sender) in videoSenders where !videoNames.contains(name) {
            sender.stop()
            videoSenders[name] = nil
        }
        let audioNames = Set(audio.map(\.name))
        for (name, sender) in audioSenders where !audioNames.contains(name) {
            sender.stop()
            audioSenders[name] = nil
        }
        for track in video where videoSenders[track.name] == nil {
            do {
                let sender = try VideoSender(
                    track: track, simulcast: options.preferredVideoCodecs.first?.isSimulcast ?? false)
                sender.start(on: eventLoop, logger: logger) { [unowned self] layer, frame in
                    self.engine?.sendVideoFrame(
                        trackName: track.name, layer: layer, data: frame.data, isKeyframe: frame.isKeyframe,
                        captureTime: EngineClock.now())
                }
                videoSenders[track.name] = sender
            } catch {
                logger.error("VP8 encoder for \(track.name) failed: \(error)")
            }
        }
        for track in audio where audioSenders[track.name] == nil {
            do {
                let sender = try AudioSender(track: track)
                sender.start(on: eventLoop, logger: logger) { [unowned self] packet, level in
                    self.engine?.sendAudioFrame(
                        trackName: track.name, data: packet, audioLevel: level, captureTime: EngineClock.now())
                }
                audioSenders[track.name] = sender
            } catch {
                logger.error("Opus encoder for \(track.name) failed: \(error)")
            }
        }
    }

    /// Every local track's `isInterrupted`, and which capture loops run:
    /// published, enabled and not interrupted.
    func updateSending() {
        let (audio, video) = currentLocalTracks
        for track in audio { track.state.isInterrupted = audioInterruption != nil }
        for track in video { track.state.isInterrupted = cameraInterruption != nil }
        for sender in videoSenders.values {
            let active = publishedNames.contains(sender.track.name) && isSending(video: sender.track)
            sender.isActive = active
            engine?.setLocalTrackEnabled(name: sender.track.name, active)
        }
        for sender in audioSenders.values {
            let active = publishedNames.contains(sender.track.name) && isSending(audio: sender.track)
            sender.isActive = active
            engine?.setLocalTrackEnabled(name: sender.track.name, active)
        }
    }

    func localTrackEnabledChanged(name: String, enabled: Bool) {
        guard !isFinished else { return }
        updateSending()
        guard isJoined, let channel, let publication = shared.withLock({ $0.localParticipant })?.publication(named: name)
        else { return }
        channel.send(.setTrackEnabled(id: nextRequestID("en-"), trackSid: publication.trackSid, enabled: enabled))
    }

    /// `publisherLayers`: pause the layers of our track that no subscriber needs.
    func setNeededLayers(trackSid: String, active: [String]) {
        guard let publication = shared.withLock({ $0.localParticipant })?.trackPublications.first(where: { $0.trackSid == trackSid }),
            let sender = videoSenders[publication.trackName]
        else { return }
        logger.debug("publisher layers of \(publication.trackName): \(active)")
        sender.setNeededLayers(active)
    }

    func stopMedia() {
        for sender in videoSenders.values { sender.stop() }
        for sender in audioSenders.values { sender.stop() }
        videoSenders = [:]
        audioSenders = [:]
        engine?.close()
        engine = nil
    }
}
