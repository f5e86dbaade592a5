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

    func json(_ links: ResourceLinks) -> [String: Any] {
        let url = links.participant(room: roomSID, sid)
        return [
            "sid": sid,
            "room_sid": roomSID,
            "account_sid": links.accountSID,
            "identity": identity,
            "status": status,
            "date_created": TwilioDate.string(dateCreated),
            "date_updated": TwilioDate.string(dateUpdated),
            "start_time": TwilioDate.string(startTime),
            "end_time": TwilioDate.string(endTime),
            "duration": duration.orNull,
            "url": url,
            "links": [
                "published_tracks": url + "/PublishedTracks",
                "subscribed_tracks": url + "/SubscribedTracks",
                "subscribe_rules": url + "/SubscribeRules",
            ],
        ]
    }
}
