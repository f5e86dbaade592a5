import Foundation

/// A message from the server (PROTOCOL.md sections 3 and 3.7), decoded
/// from one WebSocket text frame.
enum ServerSignal: Sendable {
    struct Track: Sendable, Equatable {
        var sid: String
        var name: String
        var kind: TrackKind
        var enabled: Bool
    }

    struct Participant: Sendable, Equatable {
        var sid: String
        var identity: String
        var state: String
        var tracks: [Track]
    }

    struct Joined: Sendable {
        var id: String?
        var roomSid: String
        var roomName: String
        var participantSid: String
        var identity: String
        var participants: [Participant]
        var sessionToken: String
        var reconnectWindowSeconds: Int
        var resumed: Bool
    }

    struct PublishedTrack: Sendable, Equatable, Decodable {
        var mid: String
        var sid: String
        var name: String
    }

    struct SubscribedTrack: Sendable, Equatable, Decodable {
        var mid: String
        var trackSid: String
        var participantSid: String
        var name: String
        var kind: TrackKind
    }

    case joined(Joined)
    case publishAnswer(id: String?, sdp: String, tracks: [PublishedTrack])
    case subscribeOffer(sdp: String, tracks: [SubscribedTrack])
    case ok(id: String)
    case error(id: String?, code: Int, message: String)
    case pong
    case participantConnected(Participant)
    case participantDisconnected(sid: String)
    case participantReconnecting(sid: String)
    case participantReconnected(sid: String)
    case trackPublished(participantSid: String, Track)
    case trackUnpublished(participantSid: String, trackSid: String)
    case trackEnabled(participantSid: String, trackSid: String, reason: String?)
    case trackDisabled(participantSid: String, trackSid: String, reason: String?)
    case messageSent(id: String?, sid: String)
    case messageFailed(id: String?, code: Int, reason: String)
    case message(RoomMessage)
    case dominantSpeaker(participantSid: String?)
    case networkQuality(participantSid: String, level: Int, warnings: [String])
    /// PROTOCOL.md section 7. `reason` is the protocol's text; an unknown
    /// one is kept as text (the SDK reports the switch-off without a reason).
    case trackSwitchedOff(trackSid: String, reason: String?)
    case trackSwitchedOn(trackSid: String)
    /// The RIDs of our track that some subscriber needs.
    case publisherLayers(trackSid: String, active: [String])
    case disconnected(code: Int, message: String)
    /// PROTOCOL.md 8: the room lives on another node; join at `url`
    /// (a `ws://…/v1/signal` URL) with the same token. The socket closes.
    case redirect(url: String)
    /// PROTOCOL.md 8: the room moves to another node (a drain); resume at
    /// `url` with the session token, and renegotiate media there.
    case reconnect(url: String)
    /// A type this SDK does not know (forward compatible: ignored).
    case unknown(type: String)

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses one frame; throws `Malformed` for what is not a message of
    /// the protocol (the SDK logs and ignores it).
    ///
    /// Codable, not JSONSerialization: on Linux JSONSerialization gives
    /// `NSNumber`s that also read as `Bool` when they are 0 or 1, which made
    /// a networkQuality level 0 or 1 unreadable and a message's
    /// sequenceNumber 1 read as 0 (issue 11).
    init(json text: String) throws(Malformed) {
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        func decode<Message: Decodable>(_: Message.Type) throws(Malformed) -> Message {
            do {
                return try decoder.decode(Message.self, from: data)
            } catch let error as DecodingError {
                throw Malformed(description: Self.describe(error))
            } catch {
                throw Malformed(description: "\(error)")
            }
        }
        switch try decode(Wire.Envelope.self).type {
        case "joined":
            let m = try decode(Wire.Joined.self)
            self = .joined(
                Joined(
                    id: m.id, roomSid: m.room.sid, roomName: m.room.name, participantSid: m.participant.sid,
                    identity: m.participant.identity, participants: m.participants.map(\.participant),
                    sessionToken: m.sessionToken, reconnectWindowSeconds: m.reconnectWindowSeconds ?? 30,
                    resumed: m.resumed ?? false))
        case "publishAnswer":
            let m = try decode(Wire.PublishAnswer.self)
            self = .publishAnswer(id: m.id, sdp: m.sdp, tracks: m.tracks)
        case "subscribeOffer":
            let m = try decode(Wire.SubscribeOffer.self)
            self = .subscribeOffer(sdp: m.sdp, tracks: m.tracks)
        case "ok": self = .ok(id: try decode(Wire.OK.self).id)
        case "error":
            let m = try decode(Wire.Failure.self)
            self = .error(id: m.id, code: m.code, message: m.message ?? "")
        case "pong": self = .pong
        case "participantConnected": self = .participantConnected(try decode(Wire.ParticipantEvent.self).participant.participant)
        case "participantDisconnected": self = .participantDisconnected(sid: try decode(Wire.ParticipantSid.self).participantSid)
        case "participantReconnecting": self = .participantReconnecting(sid: try decode(Wire.ParticipantSid.self).participantSid)
        case "participantReconnected": self = .participantReconnected(sid: try decode(Wire.ParticipantSid.self).participantSid)
        case "trackPublished":
            let m = try decode(Wire.TrackPublished.self)
            self = .trackPublished(participantSid: m.participantSid, m.track.track)
        case "trackUnpublished":
            let m = try decode(Wire.TrackState.self)
            self = .trackUnpublished(participantSid: m.participantSid, trackSid: m.trackSid)
        case "trackEnabled":
            let m = try decode(Wire.TrackState.self)
            self = .trackEnabled(participantSid: m.participantSid, trackSid: m.trackSid, reason: m.reason)
        case "trackDisabled":
            let m = try decode(Wire.TrackState.self)
            self = .trackDisabled(participantSid: m.participantSid, trackSid: m.trackSid, reason: m.reason)
        case "messageSent":
            let m = try decode(Wire.MessageSent.self)
            self = .messageSent(id: m.id, sid: m.sid)
        case "messageFailed":
            let m = try decode(Wire.MessageFailed.self)
            self = .messageFailed(id: m.id, code: m.code, reason: m.reason ?? "")
        case "message":
            let m = try decode(Wire.Message.self)
            self = .message(
                RoomMessage(
                    sid: m.sid, fromParticipantSid: m.from.sid, fromIdentity: m.from.identity, content: m.content,
                    contentType: m.contentType ?? "application/json", sequenceNumber: m.sequenceNumber ?? 0))
        case "dominantSpeaker": self = .dominantSpeaker(participantSid: try decode(Wire.DominantSpeaker.self).participantSid)
        case "networkQuality":
            let m = try decode(Wire.NetworkQuality.self)
            self = .networkQuality(participantSid: m.participantSid, level: m.level, warnings: m.warnings ?? [])
        case "disconnected":
            let m = try decode(Wire.Disconnected.self)
            self = .disconnected(code: m.code, message: m.message ?? "")
        case "redirect": self = .redirect(url: try decode(Wire.NodeURL.self).url)
        case "reconnect": self = .reconnect(url: try decode(Wire.NodeURL.self).url)
        case "trackSwitchedOff":
            let m = try decode(Wire.TrackSwitch.self)
            self = .trackSwitchedOff(trackSid: m.trackSid, reason: m.reason)
        case "trackSwitchedOn": self = .trackSwitchedOn(trackSid: try decode(Wire.TrackSwitch.self).trackSid)
        case "publisherLayers":
            let m = try decode(Wire.PublisherLayers.self)
            self = .publisherLayers(trackSid: m.trackSid, active: m.active)
        case let type: self = .unknown(type: type)
        }
    }

    /// "level: expected Int, found …": the field's path and what was wrong.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return keys.isEmpty ? "the frame" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context, key)) is missing"
        case .typeMismatch(let type, let context): return "\(path(context)) is not a \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, not a \(type)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
