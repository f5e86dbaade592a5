import NIOCore

extension RoomCore {
    /// The signaling socket dropped after `joined` (or the room moves):
    /// tell the app (53001), then try to resume until the reconnect window
    /// closes, at the URLs of `SignalingRoute.resumeURLs` in turn. Media
    /// keeps flowing meanwhile: it does not go through the socket.
    /// `immediately`: the first attempt without a backoff (a `reconnect`
    /// names where to go; nothing is down).
    func beginSignalingReconnect(_ error: VideoError = .signalingConnectionDisconnected, immediately: Bool = false) {
        pinger?.cancel()
        pinger = nil
        if reconnectDeadline == nil {
            reconnectDeadline = .now() + reconnectWindow
            reconnectAttempts = 0
        }
        if shared.withLock({ $0.state }) == .connected {
            setState(.reconnecting)
            emit(.reconnecting(error))
        }
        scheduleReconnectAttempt(immediately: immediately)
    }

    /// A resume attempt whose WebSocket is not open after this long is
    /// given up for the next URL: a dead host answers no SYN, and NIO
    /// would wait 10 s for it, a third of the reconnect window; a live
    /// node on a LAN or over the Internet opens in well under a second.
    static let socketOpenTimeout = TimeAmount.seconds(5)

    /// Backoff 0.25, 0.5, 1, 2, 2… s; a window missed ends the room with 53001.
    func scheduleReconnectAttempt(immediately: Bool = false) {
        guard let deadline = reconnectDeadline else { return }
        let backoff = TimeAmount.milliseconds(min(2000, 250 << min(reconnectAttempts, 3)))
        let delay = (immediately ? .zero : backoff) + reconnectHold
        reconnectHold = .zero
        reconnectAttempts += 1
        guard NIODeadline.now() + delay < deadline else {
            end(with: .signalingConnectionDisconnected)
            return
        }
        eventLoop.scheduleTask(in: delay) {
            guard !self.isFinished, self.channel == nil else { return }
            let url = self.route.nextResumeURL()
            self.logger.info("resuming the session at \(url) (attempt \(self.reconnectAttempts))")
            self.openChannel()
            let generation = self.channelGeneration
            self.eventLoop.scheduleTask(in: Self.socketOpenTimeout) {
                guard generation == self.channelGeneration, !self.channelIsOpen, !self.isFinished else { return }
                self.logger.warning("\(url) did not open in \(Self.socketOpenTimeout.nanoseconds / 1_000_000_000) s: trying the next URL")
                self.channelGeneration += 1
                self.channel?.abort()
                self.channel = nil
                self.scheduleReconnectAttempt()
            }
        }
    }

    // MARK: Media

    /// A media connection failed (ICE consent lost, DTLS): restart its ICE.
    /// The publisher connection gets a new offer with new credentials; for
    /// the subscriber connection the server is asked for one.
    func mediaFailed(_ role: MediaConnectionRole, _ error: VideoError) {
        guard !isFinished, hasConnectedOnce else { return }
        let first = mediaFailures.isEmpty
        mediaFailures.insert(role)
        if first, shared.withLock({ $0.state }) == .connected {
            setState(.reconnecting)
            emit(.reconnecting(error))
        }
        guard isJoined, let channel else { return }  // a resume restarts media too
        switch role {
        case .publisher:
            publisherRestartPending = true
            negotiatePublish()
        case .subscriber:
            channel.send(.restartIce(id: nextRequestID("ice-")))
        }
    }

    /// A media connection is up (again).
    func mediaConnected(_ role: MediaConnectionRole) {
        guard mediaFailures.remove(role) != nil else { return }
        if mediaFailures.isEmpty, isJoined, shared.withLock({ $0.state }) == .reconnecting {
            setState(.connected)
            emit(.reconnected)
        }
    }

    func handle(_ event: MediaEngineEvent) {
        guard !isFinished else { return }
        if case .connectionStateChanged(let role, let state) = event {
            logger.info("media \(role): \(state)")
        }
        switch event {
        case .connectionStateChanged(let role, .connected):
            mediaConnected(role)
        case .connectionStateChanged(let role, .failed(let code, let message)):
            mediaFailed(role, VideoError(code: code, message: message))
        case .connectionStateChanged:
            break
        case .keyframeRequested(let name, let layer):
            videoSenders[name]?.requestKeyframe(layer: layer)
        case .remoteVideoFrame(let trackSid, let frame):
            guard let receiver = remoteVideo[trackSid] else { return }
            if receiver.receive(frame) == .needsKeyframe {
                engine?.requestKeyframe(trackSid: trackSid)
            }
        case .remoteAudioFrame(let trackSid, let frame):
            remoteAudio[trackSid]?.receive(frame)
        }
    }
}
