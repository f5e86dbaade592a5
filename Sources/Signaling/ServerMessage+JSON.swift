/// The JSON shape of each server message, field by field as PROTOCOL.md
/// writes it. Keys are listed in the document's order, `type` first.
extension ServerMessage {
    /// The JSON object for this message.
    public var json: JSONValue {
        var o = ObjectBuilder(type: type)
        switch self {
        case .joined(let j):
            o.add("id", j.id.map(JSONValue.string))
            o.add("room", j.room.json)
            o.add("participant", j.participant.json)
            o.add("participants", .array(j.participants.map(\.json)))
            o.add("sessionToken", .string(j.sessionToken))
            o.add("reconnectWindowSeconds", .number(Double(j.reconnectWindowSeconds)))
            o.add("iceServers", .array(j.iceServers.map(\.json)))
            o.add("resumed", j.resumed.map(JSONValue.bool))
        case .publishAnswer(let a):
            o.add("id", a.id.map(JSONValue.string))
            o.add("sdp", .string(a.sdp))
            o.add("tracks", .array(a.tracks.map(\.json)))
        case .subscribeOffer(let offer):
            o.add("sdp", .string(offer.sdp))
            o.add("tracks", .array(offer.tracks.map(\.json)))
        case .ok(let id):
            o.add("id", .string(id))
        case .error(let id, let code, let message):
            o.add("id", id.map(JSONValue.string))
            o.add("code", .number(Double(code.rawValue)))
            o.add("message", .string(message))
        case .pong(let id):
            o.add("id", id.map(JSONValue.string))
        case .participantDisconnected(let sid), .participantReconnecting(let sid), .participantReconnected(let sid):
            o.add("participantSid", .string(sid))
        case .messageSent(let id, let sid):
            o.add("id", id.map(JSONValue.string))
            o.add("sid", .string(sid))
        case .messageFailed(let id, let code, let reason):
            o.add("id", id.map(JSONValue.string))
            o.add("code", .number(Double(code)))
            o.add("reason", .string(reason))
        case .message(let m):
            o.add("sid", .string(m.sid))
            o.add("from", m.from.json)
            o.add("content", .string(m.content))
            o.add("contentType", .string(m.contentType))
            o.add("sequenceNumber", .number(Double(m.sequenceNumber)))
        case .participantConnected(let p):
            o.add("participant", p.json)
        case .trackPublished(let participantSid, let track):
            o.add("participantSid", .string(participantSid))
            o.add("track", track.json)
        case .trackUnpublished(let participantSid, let trackSid):
            o.add("participantSid", .string(participantSid))
            o.add("trackSid", .string(trackSid))
        case .trackEnabled(let participantSid, let trackSid, let reason),
            .trackDisabled(let participantSid, let trackSid, let reason):
            o.add("participantSid", .string(participantSid))
            o.add("trackSid", .string(trackSid))
            o.add("reason", reason.map(JSONValue.string))
        case .dominantSpeaker(let participantSid):
            // The one explicit null of the protocol: "nobody is speaking" is news.
            o.add("participantSid", participantSid.map(JSONValue.string) ?? .null)
        case .networkQuality(let participantSid, let level, let warnings):
            o.add("participantSid", .string(participantSid))
            o.add("level", .number(Double(level)))
            o.add("warnings", .array(warnings.map(JSONValue.string)))
        case .disconnected(let code, let message):
            o.add("code", .number(Double(code.rawValue)))
            o.add("message", .string(message))
        case .redirect(let url):
            o.add("url", .string(url))
        }
        return o.value
    }
}

/// Collects an object's pairs in order; `nil` values are left out.
private struct ObjectBuilder {
    private var pairs: [(String, JSONValue)]

    init(type: String) {
        pairs = [("type", .string(type))]
    }

    mutating func add(_ key: String, _ value: JSONValue?) {
        if let value { pairs.append((key, value)) }
    }

    var value: JSONValue { .object(pairs) }
}

extension ServerMessage.Room {
    var json: JSONValue {
        .object([
            ("sid", .string(sid)), ("name", .string(name)), ("maxParticipants", .number(Double(maxParticipants))),
        ])
    }
}

extension ServerMessage.Participant {
    var json: JSONValue { .object([("sid", .string(sid)), ("identity", .string(identity))]) }
}

extension ServerMessage.ParticipantInfo {
    var json: JSONValue {
        .object([
            ("sid", .string(sid)), ("identity", .string(identity)), ("state", .string(state.rawValue)),
            ("tracks", .array(tracks.map(\.json))),
        ])
    }
}

extension ServerMessage.Track {
    var json: JSONValue {
        .object([
            ("sid", .string(sid)), ("name", .string(name)), ("kind", .string(kind.rawValue)), ("enabled", .bool(enabled)),
        ])
    }
}

extension ServerMessage.IceServer {
    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("urls", .array(urls.map(JSONValue.string)))]
        if let username { pairs.append(("username", .string(username))) }
        if let credential { pairs.append(("credential", .string(credential))) }
        return .object(pairs)
    }
}

extension ServerMessage.PublishedTrack {
    var json: JSONValue {
        .object([("mid", .string(mid)), ("sid", .string(sid)), ("name", .string(name)), ("kind", .string(kind.rawValue))])
    }
}

extension ServerMessage.SubscribedTrack {
    var json: JSONValue {
        .object([
            ("mid", .string(mid)), ("trackSid", .string(trackSid)), ("participantSid", .string(participantSid)),
            ("name", .string(name)), ("kind", .string(kind.rawValue)),
        ])
    }
}
