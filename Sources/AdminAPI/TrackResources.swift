import Foundation
import Rooms

/// Twilio's PublishedTrack resource (`…room_participant_published_track`).
struct PublishedTrackResource: Sendable, Equatable {
    var sid: String
    var participantSID: String
    var roomSID: String
    var name: String
    var kind: String
    var enabled: Bool
    var dateCreated: Date
    var dateUpdated: Date

    init(_ track: PublishedTrackRecord) {
        sid = track.sid.rawValue
        participantSID = track.participantSID.rawValue
        roomSID = track.roomSID.rawValue
        name = track.name
        kind = track.kind.rawValue
        enabled = track.enabled
        dateCreated = track.dateCreated
        dateUpdated = track.dateUpdated
    }

    func json(_ links: ResourceLinks) -> [String: Any] {
        [
            "sid": sid,
            "participant_sid": participantSID,
            "room_sid": roomSID,
            "name": name,
            "kind": kind,
            "enabled": enabled,
            "date_created": TwilioDate.string(dateCreated),
            "date_updated": TwilioDate.string(dateUpdated),
            "url": links.participant(room: roomSID, participantSID) + "/PublishedTracks/\(sid)",
        ]
    }
}

/// Twilio's SubscribedTrack resource (`…room_participant_subscribed_track`):
/// a track the participant receives now, with its `publisher_sid`.
struct SubscribedTrackResource: Sendable, Equatable {
    var track: SubscribedTrackRecord

    func json(_ links: ResourceLinks) -> [String: Any] {
        let participant = track.participantSID.rawValue
        return [
            "sid": track.sid.rawValue,
            "participant_sid": participant,
            "publisher_sid": track.publisherSID.rawValue,
            "room_sid": track.roomSID.rawValue,
            "name": track.name,
            "kind": track.kind.rawValue,
            "enabled": track.enabled,
            "date_created": TwilioDate.string(track.dateCreated),
            "date_updated": TwilioDate.string(track.dateUpdated),
            "url": links.participant(room: track.roomSID.rawValue, participant) + "/SubscribedTracks/\(track.sid.rawValue)",
        ]
    }
}

/// Twilio's SubscribeRules resource (`…room_participant_subscribe_rule`).
/// A rule carries only the criteria it uses: Twilio's schema types each
/// criterion as a non-nullable string and requires none, so an absent one is
/// left out rather than null (Vroom has no `priority`).
struct SubscribeRulesResource: Sendable {
    var participantSID: String
    var roomSID: String
    var rules: [SubscribeRule]?
    var dateCreated: Date?
    var dateUpdated: Date?

    init(_ record: SubscribeRulesRecord) {
        participantSID = record.participantSID.rawValue
        roomSID = record.roomSID.rawValue
        rules = record.rules
        dateCreated = record.dateCreated
        dateUpdated = record.dateUpdated
    }

    /// A participant known only from history: its rules were not kept.
    init(participantSID: String, roomSID: String) {
        self.participantSID = participantSID
        self.roomSID = roomSID
    }

    func json() -> [String: Any] {
        [
            "participant_sid": participantSID,
            "room_sid": roomSID,
            "rules": rules.map { $0.map(Self.json) }.orNull,
            "date_created": TwilioDate.string(dateCreated),
            "date_updated": TwilioDate.string(dateUpdated),
        ]
    }

    static func json(_ rule: SubscribeRule) -> [String: Any] {
        var object: [String: Any] = ["type": rule.type.rawValue]
        if rule.all { object["all"] = true }
        if let kind = rule.kind { object["kind"] = kind.rawValue }
        if let publisher = rule.publisher { object["publisher"] = publisher }
        if let track = rule.track { object["track"] = track }
        return object
    }
}
