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

    /// The JSON object.
    struct JSON: Encodable {
        var sid: String
        var participantSID: String
        var roomSID: String
        var name: String
        var kind: String
        var enabled: Bool
        var dateCreated: Date
        var dateUpdated: Date
        var url: String

        enum CodingKeys: String, CodingKey {
            case sid, participantSID = "participant_sid", roomSID = "room_sid", name, kind, enabled
            case dateCreated = "date_created", dateUpdated = "date_updated", url
        }
    }

    func json(_ links: ResourceLinks) -> JSON {
        JSON(
            sid: sid, participantSID: participantSID, roomSID: roomSID, name: name, kind: kind, enabled: enabled,
            dateCreated: dateCreated, dateUpdated: dateUpdated,
            url: links.participant(room: roomSID, participantSID) + "/PublishedTracks/\(sid)")
    }
}

/// Twilio's SubscribedTrack resource (`…room_participant_subscribed_track`):
/// a track the participant receives now, with its `publisher_sid`.
struct SubscribedTrackResource: Sendable, Equatable {
    var track: SubscribedTrackRecord

    /// The JSON object.
    struct JSON: Encodable {
        var sid: String
        var participantSID: String
        var publisherSID: String
        var roomSID: String
        var name: String
        var kind: String
        var enabled: Bool
        var dateCreated: Date
        var dateUpdated: Date
        var url: String

        enum CodingKeys: String, CodingKey {
            case sid, participantSID = "participant_sid", publisherSID = "publisher_sid", roomSID = "room_sid"
            case name, kind, enabled, dateCreated = "date_created", dateUpdated = "date_updated", url
        }
    }

    func json(_ links: ResourceLinks) -> JSON {
        let participant = track.participantSID.rawValue
        return JSON(
            sid: track.sid.rawValue, participantSID: participant, publisherSID: track.publisherSID.rawValue,
            roomSID: track.roomSID.rawValue, name: track.name, kind: track.kind.rawValue, enabled: track.enabled,
            dateCreated: track.dateCreated, dateUpdated: track.dateUpdated,
            url: links.participant(room: track.roomSID.rawValue, participant) + "/SubscribedTracks/\(track.sid.rawValue)")
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

    /// The JSON object.
    struct JSON: Encodable {
        var participantSID: String
        var roomSID: String
        @JSONNullable var rules: [Rule]?
        @JSONNullable var dateCreated: Date?
        @JSONNullable var dateUpdated: Date?

        enum CodingKeys: String, CodingKey {
            case participantSID = "participant_sid", roomSID = "room_sid", rules
            case dateCreated = "date_created", dateUpdated = "date_updated"
        }
    }

    /// One rule: absent criteria are left out (synthesized `Encodable`
    /// skips nil optionals), `all` is written only when true.
    struct Rule: Encodable, Sendable {
        var type: String
        var all: Bool?
        var kind: String?
        var publisher: String?
        var track: String?

        init(_ rule: SubscribeRule) {
            type = rule.type.rawValue
            all = rule.all ? true : nil
            kind = rule.kind?.rawValue
            publisher = rule.publisher
            track = rule.track
        }
    }

    func json() -> JSON {
        JSON(
            participantSID: participantSID, roomSID: roomSID, rules: rules.map { $0.map(Rule.init) },
            dateCreated: dateCreated, dateUpdated: dateUpdated)
    }
}

/// A server message as `POST …/Messages` answers it (Vroom's own resource,
/// in the REST style: PROTOCOL.md section 6).
struct MessageResource: Encodable {
    var sid: String
    var accountSID: String
    var roomSID: String
    var participantSID: String
    var content: String
    var contentType: String
    var sequenceNumber: Int
    var dateCreated: Date

    enum CodingKeys: String, CodingKey {
        case sid, accountSID = "account_sid", roomSID = "room_sid", participantSID = "participant_sid", content
        case contentType = "content_type", sequenceNumber = "sequence_number", dateCreated = "date_created"
    }
}

/// A message subscription as `POST …/MessageSubscriptions` answers it.
struct MessageSubscriptionResource: Encodable {
    var accountSID: String
    var roomSID: String
    var participantSID: String
    var callback: String
    var dateCreated: Date

    enum CodingKeys: String, CodingKey {
        case accountSID = "account_sid", roomSID = "room_sid", participantSID = "participant_sid", callback
        case dateCreated = "date_created"
    }
}
