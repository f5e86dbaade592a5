extension RoomEvent {
    /// Calls the delegate method that matches this event (one mapping, so
    /// delegates and `Room.events` never disagree).
    func deliver(to delegate: any RoomDelegate, room: Room) {
        switch self {
        case .connected: delegate.roomDidConnect(room: room)
        case .failedToConnect(let error): delegate.roomDidFailToConnect(room: room, error: error)
        case .disconnected(let error): delegate.roomDidDisconnect(room: room, error: error)
        case .reconnecting(let error): delegate.roomIsReconnecting(room: room, error: error)
        case .reconnected: delegate.roomDidReconnect(room: room)
        case .participantConnected(let p): delegate.participantDidConnect(room: room, participant: p)
        case .participantDisconnected(let p): delegate.participantDidDisconnect(room: room, participant: p)
        case .participantReconnecting(let p): delegate.participantIsReconnecting(room: room, participant: p)
        case .participantReconnected(let p): delegate.participantDidReconnect(room: room, participant: p)
        case .dominantSpeakerChanged(let p): delegate.dominantSpeakerDidChange(room: room, participant: p)
        case .networkQualityChanged(let sid, let level, let warnings):
            delegate.networkQualityDidChange(room: room, participantSid: sid, level: level, warnings: warnings)
        case .messageReceived(let message): delegate.didReceiveMessage(room: room, message: message)
        case .messageSent(let id, let sid): delegate.didSendMessage(room: room, id: id, sid: sid)
        case .messageFailed(let id, let error): delegate.didFailToSendMessage(room: room, id: id, error: error)
        case .trackPublished, .trackUnpublished, .trackSubscribed, .trackUnsubscribed, .trackEnabled, .trackDisabled,
            .trackSwitchedOff, .trackSwitchedOn, .localTrackPublished, .localTrackPublicationFailed:
            break
        }
    }

    /// The participant delegate's method for a track event.
    func deliver(to delegate: any RemoteParticipantDelegate) {
        switch self {
        case .trackPublished(let p, let t): delegate.didPublishTrack(participant: p, publication: t)
        case .trackUnpublished(let p, let t): delegate.didUnpublishTrack(participant: p, publication: t)
        case .trackSubscribed(let p, let t): delegate.didSubscribeToTrack(participant: p, publication: t)
        case .trackUnsubscribed(let p, let t): delegate.didUnsubscribeFromTrack(participant: p, publication: t)
        case .trackEnabled(let p, let t): delegate.didEnableTrack(participant: p, publication: t)
        case .trackDisabled(let p, let t): delegate.didDisableTrack(participant: p, publication: t)
        case .trackSwitchedOff(let p, let t, let reason): delegate.didSwitchOffVideoTrack(participant: p, track: t, reason: reason)
        case .trackSwitchedOn(let p, let t): delegate.didSwitchOnVideoTrack(participant: p, track: t)
        default: break
        }
    }

    /// The participant a track event is about.
    var remoteParticipant: RemoteParticipant? {
        switch self {
        case .trackPublished(let p, _), .trackUnpublished(let p, _), .trackSubscribed(let p, _),
            .trackUnsubscribed(let p, _), .trackEnabled(let p, _), .trackDisabled(let p, _), .trackSwitchedOff(let p, _, _),
            .trackSwitchedOn(let p, _):
            return p
        default: return nil
        }
    }

    /// The local participant delegate's method.
    func deliver(to delegate: any LocalParticipantDelegate, participant: LocalParticipant) {
        switch self {
        case .localTrackPublished(let publication): delegate.didPublishTrack(participant: participant, publication: publication)
        case .localTrackPublicationFailed(let name, let error):
            delegate.didFailToPublishTrack(participant: participant, trackName: name, error: error)
        default: break
        }
    }
}
