/// The JSON shape of each server message, field by field as PROTOCOL.md
/// writes it, through Codable. Absent optionals are omitted (synthesized
/// conformances use `encodeIfPresent`); `dominantSpeaker` is the one
/// explicit `null`. `type` is not among these fields: ``SignalingCodec``
/// writes it first (see ``SignalingCodec/encode(_:)``).
extension ServerMessage {
    struct Fields: Encodable {
        let message: ServerMessage

        private enum Key: String, CodingKey {
            case id, room, participant, participants, sessionToken, reconnectWindowSeconds, iceServers, resumed
            case sdp, tracks, code, message, reason, sid, from, content, contentType, sequenceNumber
            case participantSid, track, trackSid, level, warnings, url, active
        }

        func encode(to encoder: any Encoder) throws {
            var o = encoder.container(keyedBy: Key.self)
            switch message {
            case .joined(let j):
                try o.encodeIfPresent(j.id, forKey: .id)
                try o.encode(j.room, forKey: .room)
                try o.encode(j.participant, forKey: .participant)
                try o.encode(j.participants, forKey: .participants)
                try o.encode(j.sessionToken, forKey: .sessionToken)
                try o.encode(j.reconnectWindowSeconds, forKey: .reconnectWindowSeconds)
                try o.encode(j.iceServers, forKey: .iceServers)
                try o.encodeIfPresent(j.resumed, forKey: .resumed)
            case .publishAnswer(let a):
                try o.encodeIfPresent(a.id, forKey: .id)
                try o.encode(a.sdp, forKey: .sdp)
                try o.encode(a.tracks, forKey: .tracks)
            case .subscribeOffer(let offer):
                try o.encode(offer.sdp, forKey: .sdp)
                try o.encode(offer.tracks, forKey: .tracks)
            case .ok(let id):
                try o.encode(id, forKey: .id)
            case .error(let id, let code, let message):
                try o.encodeIfPresent(id, forKey: .id)
                try o.encode(code.rawValue, forKey: .code)
                try o.encode(message, forKey: .message)
            case .pong(let id):
                try o.encodeIfPresent(id, forKey: .id)
            case .participantDisconnected(let sid), .participantReconnecting(let sid), .participantReconnected(let sid):
                try o.encode(sid, forKey: .participantSid)
            case .messageSent(let id, let sid):
                try o.encodeIfPresent(id, forKey: .id)
                try o.encode(sid, forKey: .sid)
            case .messageFailed(let id, let code, let reason):
                try o.encodeIfPresent(id, forKey: .id)
                try o.encode(code, forKey: .code)
                try o.encode(reason, forKey: .reason)
            case .message(let m):
                try o.encode(m.sid, forKey: .sid)
                try o.encode(m.from, forKey: .from)
                try o.encode(m.content, forKey: .content)
                try o.encode(m.contentType, forKey: .contentType)
                try o.encode(m.sequenceNumber, forKey: .sequenceNumber)
            case .participantConnected(let p):
                try o.encode(p, forKey: .participant)
            case .trackPublished(let participantSid, let track):
                try o.encode(participantSid, forKey: .participantSid)
                try o.encode(track, forKey: .track)
            case .trackUnpublished(let participantSid, let trackSid):
                try o.encode(participantSid, forKey: .participantSid)
                try o.encode(trackSid, forKey: .trackSid)
            case .trackEnabled(let participantSid, let trackSid, let reason),
                .trackDisabled(let participantSid, let trackSid, let reason):
                try o.encode(participantSid, forKey: .participantSid)
                try o.encode(trackSid, forKey: .trackSid)
                try o.encodeIfPresent(reason, forKey: .reason)
            case .dominantSpeaker(let participantSid):
                // The one explicit null of the protocol: "nobody is speaking" is news.
                if let participantSid {
                    try o.encode(participantSid, forKey: .participantSid)
                } else {
                    try o.encodeNil(forKey: .participantSid)
                }
            case .networkQuality(let participantSid, let level, let warnings):
                try o.encode(participantSid, forKey: .participantSid)
                try o.encode(level, forKey: .level)
                try o.encode(warnings, forKey: .warnings)
            case .disconnected(let code, let message):
                try o.encode(code.rawValue, forKey: .code)
                try o.encode(message, forKey: .message)
            case .redirect(let url), .reconnect(let url):
                try o.encode(url, forKey: .url)
            case .trackSwitchedOff(let trackSid, let reason):
                try o.encode(trackSid, forKey: .trackSid)
                try o.encode(reason, forKey: .reason)
            case .trackSwitchedOn(let trackSid):
                try o.encode(trackSid, forKey: .trackSid)
            case .publisherLayers(let trackSid, let active):
                try o.encode(trackSid, forKey: .trackSid)
                try o.encode(active, forKey: .active)
            }
        }
    }
}
