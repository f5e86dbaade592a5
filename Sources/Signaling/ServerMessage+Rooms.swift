import Node
import Rooms

// Rooms' domain values as the wire's (PROTOCOL.md section 3).

extension SignalingError {
    init(_ error: RoomError) {
        self.init(error.protocolCode, message: error.message)
    }

    init(_ error: NodeError) {
        self.init(error.code, message: error.message)
    }
}

extension ServerMessage.Track {
    init(_ track: TrackInfo) {
        self.init(sid: track.sid.rawValue, name: track.name, kind: track.kind, enabled: track.enabled)
    }
}

extension ServerMessage.ParticipantInfo {
    init(_ participant: Rooms.ParticipantInfo) {
        self.init(
            sid: participant.sid.rawValue, identity: participant.identity,
            state: participant.status == .reconnecting ? .reconnecting : .connected,
            tracks: participant.tracks.map(ServerMessage.Track.init))
    }
}

extension ServerMessage.Joined {
    init(_ result: JoinResult, id: String?, iceServers: [ServerMessage.IceServer]) {
        self.init(
            id: id,
            room: .init(sid: result.room.sid.rawValue, name: result.room.uniqueName, maxParticipants: result.room.maxParticipants),
            participant: .init(sid: result.participant.sid.rawValue, identity: result.participant.identity),
            participants: result.participants.map(ServerMessage.ParticipantInfo.init),
            sessionToken: result.sessionToken.rawValue,
            reconnectWindowSeconds: Int(result.reconnectWindow.rounded()),
            iceServers: iceServers,
            resumed: result.resumed ? true : nil)
    }
}

extension ServerMessage {
    /// The message for a room notice; nil for `subscriptionsChanged` (the
    /// session answers it with an offer) and `disconnected` (sent last).
    init?(_ notice: ParticipantNotice) {
        switch notice {
        case .participantConnected(let participant):
            self = .participantConnected(ServerMessage.ParticipantInfo(participant))
        case .participantDisconnected(let sid):
            self = .participantDisconnected(participantSid: sid.rawValue)
        case .participantReconnecting(let sid):
            self = .participantReconnecting(participantSid: sid.rawValue)
        case .participantReconnected(let sid):
            self = .participantReconnected(participantSid: sid.rawValue)
        case .trackPublished(let participant, let track):
            self = .trackPublished(participantSid: participant.rawValue, track: ServerMessage.Track(track))
        case .trackUnpublished(let participant, let track):
            self = .trackUnpublished(participantSid: participant.rawValue, trackSid: track.rawValue)
        case .trackEnabled(let participant, let track, let reason):
            self = .trackEnabled(participantSid: participant.rawValue, trackSid: track.rawValue, reason: reason?.rawValue)
        case .trackDisabled(let participant, let track, let reason):
            self = .trackDisabled(participantSid: participant.rawValue, trackSid: track.rawValue, reason: reason?.rawValue)
        case .message(let message):
            self = .message(
                ServerMessage.Message(
                    sid: message.sid.rawValue,
                    from: .init(sid: message.from?.rawValue ?? "", identity: message.fromIdentity ?? ""),
                    content: message.content, contentType: message.contentType, sequenceNumber: message.sequenceNumber))
        case .mediaError(let code, let message):
            self = .error(id: nil, code: code, message: message)
        case .networkQuality(let participant, let level, let warnings):
            self = .networkQuality(participantSid: participant.rawValue, level: level, warnings: warnings.map(\.rawValue))
        case .dominantSpeaker(let participant):
            self = .dominantSpeaker(participantSid: participant?.rawValue)
        case .trackSwitchedOff(let track, let reason):
            self = .trackSwitchedOff(trackSid: track.rawValue, reason: reason.rawValue)
        case .trackSwitchedOn(let track):
            self = .trackSwitchedOn(trackSid: track.rawValue)
        case .publisherLayers(let track, let active):
            self = .publisherLayers(trackSid: track.rawValue, active: active)
        case .subscriptionsChanged, .disconnected:
            return nil
        }
    }
}
