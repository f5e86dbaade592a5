import Foundation
import Rooms

/// Twilio's Participant resource (`video.v1.room.room_participant`).
struct ParticipantResource: Sendable, Equatable {
    var sid: String
    var roomSID: String
    var identity: String
    /// `connected`, `reconnecting` (newer Twilio) or `disconnected`.
    var status: String
    var dateCreated: Date
    var dateUpdated: Date
    var startTime: Date
    var endTime: Date?
    var duration: Int?

    init(_ participant: ParticipantRecord) {
        sid = participant.sid.rawValue
        roomSID = participant.roomSID.rawValue
        identity = participant.identity
        status = participant.status.rawValue
        dateCreated = participant.dateCreated.wholeSeconds
        dateUpdated = participant.dateUpdated.wholeSeconds
        startTime = participant.startTime.wholeSeconds
        endTime = participant.endTime?.wholeSeconds
        duration = participant.duration
    }

    /// The JSON object.
    struct JSON: Encodable {
        struct Links: Encodable {
            var publishedTracks: String
            var subscribedTracks: String
            var subscribeRules: String

            enum CodingKeys: String, CodingKey {
                case publishedTracks = "published_tracks", subscribedTracks = "subscribed_tracks"
                case subscribeRules = "subscribe_rules"
            }
        }

        var sid: String
        var roomSID: String
        var accountSID: String
        var identity: String
        var status: String
        var dateCreated: Date
        var dateUpdated: Date
        var startTime: Date
        @JSONNullable var endTime: Date?
        @JSONNullable var duration: Int?
        var url: String
        var links: Links

        enum CodingKeys: String, CodingKey {
            case sid, roomSID = "room_sid", accountSID = "account_sid", identity, status
            case dateCreated = "date_created", dateUpdated = "date_updated", startTime = "start_time"
            case endTime = "end_time", duration, url, links
        }
    }

    func json(_ links: ResourceLinks) -> JSON {
        let url = links.participant(room: roomSID, sid)
        return JSON(
            sid: sid, roomSID: roomSID, accountSID: links.accountSID, identity: identity, status: status,
            dateCreated: dateCreated, dateUpdated: dateUpdated, startTime: startTime, endTime: endTime,
            duration: duration, url: url,
            links: JSON.Links(
                publishedTracks: url + "/PublishedTracks", subscribedTracks: url + "/SubscribedTracks",
                subscribeRules: url + "/SubscribeRules"))
    }
}
