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

    struct PublishedTrack: Sendable, Equatable {
        var mid: String
        var sid: String
        var name: String
    }

    struct SubscribedTrack: Sendable, Equatable {
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
    case disconnected(code: Int, message: String)
    case redirect(url: String)
    /// A type this SDK does not know (forward compatible: ignored).
    case unknown(type: String)

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses one frame; throws `Malformed` for what is not a message of
    /// the protocol (the SDK logs and ignores it).
    init(json text: String) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw Malformed(description: "not a JSON object")
        }
        let o = Fields(object)
        let type = try o.string("type")
        switch type {
        case "joined":
            let room = try o.object("room")
            let participant = try o.object("participant")
            self = .joined(
                Joined(
                    id: o.optionalString("id"), roomSid: try room.string("sid"), roomName: try room.string("name"),
                    participantSid: try participant.string("sid"), identity: try participant.string("identity"),
                    participants: try o.objects("participants").map(Self.participant),
                    sessionToken: try o.string("sessionToken"),
                    reconnectWindowSeconds: o.optionalInt("reconnectWindowSeconds") ?? 30,
                    resumed: o.optionalBool("resumed") ?? false))
        case "publishAnswer":
            self = .publishAnswer(
                id: o.optionalString("id"), sdp: try o.string("sdp"),
                tracks: try o.objects("tracks").map {
                    PublishedTrack(mid: try $0.string("mid"), sid: try $0.string("sid"), name: try $0.string("name"))
                })
        case "subscribeOffer":
            self = .subscribeOffer(
                sdp: try o.string("sdp"),
                tracks: try o.objects("tracks").map {
                    SubscribedTrack(
                        mid: try $0.string("mid"), trackSid: try $0.string("trackSid"),
                        participantSid: try $0.string("participantSid"), name: try $0.string("name"),
                        kind: try $0.kind("kind"))
                })
        case "ok": self = .ok(id: try o.string("id"))
        case "error":
            self = .error(id: o.optionalString("id"), code: try o.int("code"), message: o.optionalString("message") ?? "")
        case "pong": self = .pong
        case "participantConnected": self = .participantConnected(try Self.participant(try o.object("participant")))
        case "participantDisconnected": self = .participantDisconnected(sid: try o.string("participantSid"))
        case "participantReconnecting": self = .participantReconnecting(sid: try o.string("participantSid"))
        case "participantReconnected": self = .participantReconnected(sid: try o.string("participantSid"))
        case "trackPublished":
            self = .trackPublished(participantSid: try o.string("participantSid"), try Self.track(try o.object("track")))
        case "trackUnpublished":
            self = .trackUnpublished(participantSid: try o.string("participantSid"), trackSid: try o.string("trackSid"))
        case "trackEnabled":
            self = .trackEnabled(
                participantSid: try o.string("participantSid"), trackSid: try o.string("trackSid"),
                reason: o.optionalString("reason"))
        case "trackDisabled":
            self = .trackDisabled(
                participantSid: try o.string("participantSid"), trackSid: try o.string("trackSid"),
                reason: o.optionalString("reason"))
        case "messageSent": self = .messageSent(id: o.optionalString("id"), sid: try o.string("sid"))
        case "messageFailed":
            self = .messageFailed(id: o.optionalString("id"), code: try o.int("code"), reason: o.optionalString("reason") ?? "")
        case "message":
            let from = try o.object("from")
            self = .message(
                RoomMessage(
                    sid: try o.string("sid"), fromParticipantSid: try from.string("sid"),
                    fromIdentity: try from.string("identity"), content: try o.string("content"),
                    contentType: o.optionalString("contentType") ?? "application/json",
                    sequenceNumber: o.optionalInt("sequenceNumber") ?? 0))
        case "dominantSpeaker": self = .dominantSpeaker(participantSid: o.optionalString("participantSid"))
        case "networkQuality":
            self = .networkQuality(
                participantSid: try o.string("participantSid"), level: try o.int("level"),
                warnings: (o.raw["warnings"] as? [Any])?.compactMap { $0 as? String } ?? [])
        case "disconnected":
            self = .disconnected(code: try o.int("code"), message: o.optionalString("message") ?? "")
        case "redirect": self = .redirect(url: try o.string("url"))
        default: self = .unknown(type: type)
        }
    }

    private static func track(_ o: Fields) throws -> Track {
        Track(
            sid: try o.string("sid"), name: try o.string("name"), kind: try o.kind("kind"),
            enabled: o.optionalBool("enabled") ?? true)
    }

    private static func participant(_ o: Fields) throws -> Participant {
        Participant(
            sid: try o.string("sid"), identity: try o.string("identity"), state: o.optionalString("state") ?? "connected",
            tracks: try (o.raw["tracks"] == nil ? [] : o.objects("tracks")).map(track))
    }

    /// Typed access to a decoded JSON object's fields.
    private struct Fields {
        let raw: [String: Any]
        init(_ raw: [String: Any]) { self.raw = raw }

        func string(_ key: String) throws(Malformed) -> String {
            guard let value = raw[key] as? String else { throw Malformed(description: "\(key) is not a string") }
            return value
        }

        func optionalString(_ key: String) -> String? { raw[key] as? String }
        func optionalBool(_ key: String) -> Bool? { raw[key] as? Bool }

        func optionalInt(_ key: String) -> Int? {
            guard let number = raw[key] as? NSNumber, !(raw[key] is Bool) else { return nil }
            return number.intValue
        }

        func int(_ key: String) throws(Malformed) -> Int {
            guard let value = optionalInt(key) else { throw Malformed(description: "\(key) is not a number") }
            return value
        }

        func kind(_ key: String) throws(Malformed) -> TrackKind {
            guard let kind = TrackKind(rawValue: try string(key)) else { throw Malformed(description: "\(key) is no kind") }
            return kind
        }

        func object(_ key: String) throws(Malformed) -> Fields {
            guard let value = raw[key] as? [String: Any] else { throw Malformed(description: "\(key) is not an object") }
            return Fields(value)
        }

        func objects(_ key: String) throws(Malformed) -> [Fields] {
            guard let values = raw[key] as? [Any] else { throw Malformed(description: "\(key) is not an array") }
            var result: [Fields] = []
            for value in values {
                guard let object = value as? [String: Any] else { throw Malformed(description: "\(key) holds a non-object") }
                result.append(Fields(object))
            }
            return result
        }
    }
}
