import NIOCore

extension RoomCore {
    /// The signaling socket dropped after `joined`: tell the app (53001),
    /// then try to resume until the reconnect window closes. Media keeps
    /// flowing meanwhile: it does not go through the socket.
    func beginSignalingReconnect() {
        pinger?.cancel()
        pinger = nil
        if reconnectDeadline == nil {
            reconnectDeadline = .now() + reconnectWindow
            reconnectAttempts = 0
        }
        if shared.withLock({ $0.state }) == .connected {
            setState(.reconnecting)
            emit(.reconnecting(.signalingConnectionDisconnected))
        }
        scheduleReconnectAttempt()
    }

    /// Backoff 0.25, 0.5, 1, 2, 2… s; a window missed ends the room with 53001.
    func scheduleReconnectAttempt() {
        guard let deadline = reconnectDeadline else { return }
        let delay = TimeAmount.milliseconds(min(2000, 250 << min(reconnectAttempts, 3))) + reconnectHold
        reconnectHold = .zero
        reconnectAttempts += 1
        guard NIODeadline.now() + delay < deadline else {
            end(with: .signalingConnectionDisconnected)
            return
        }
        eventLoop.scheduleTask(in: delay) {
            guard !self.isFinished, self.channel == nil else { return }
            self.logger.info("resuming the session (attempt \(self.reconnectAttempts))")
            self.openChannel()
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
