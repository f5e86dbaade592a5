import Foundation
import Rooms

/// Twilio's Room resource (`video.v1.room`) from Rooms' record (of a live
/// room, or read back from the history): the fields Vroom owns, plus every
/// other field of the schema at Twilio's default when written out. Dates in
/// whole seconds, as REST prints them and the history keeps them.
struct RoomResource: Sendable, Equatable {
    var sid: String
    var uniqueName: String
    /// `in-progress`, `completed` or `failed`.
    var status: String
    var maxParticipants: Int
    /// Minutes.
    var emptyRoomTimeout: Int
    /// Minutes.
    var unusedRoomTimeout: Int
    var statusCallback: String?
    var statusCallbackMethod: String
    var dateCreated: Date
    var dateUpdated: Date
    var endTime: Date?
    var duration: Int?

    init(_ room: RoomRecord) {
        sid = room.sid.rawValue
        uniqueName = room.uniqueName
        status = room.status.rawValue
        maxParticipants = room.maxParticipants
        emptyRoomTimeout = room.emptyRoomTimeout
        unusedRoomTimeout = room.unusedRoomTimeout
        statusCallback = room.statusCallback
        statusCallbackMethod = room.statusCallbackMethod.rawValue
        dateCreated = room.dateCreated.wholeSeconds
        dateUpdated = room.dateUpdated.wholeSeconds
        endTime = room.endTime?.wholeSeconds
        duration = room.duration
    }

    /// The JSON object. Fields Vroom does not implement carry Twilio's
    /// defaults for a group room: `enable_turn` true (deprecated, "always
    /// true"), `video_codecs` ["VP8"] (the only video codec Vroom forwards),
    /// `max_participant_duration` 14400 (Twilio's documented default, not
    /// enforced), `max_concurrent_published_tracks` 0 ("unconstrained":
    /// Vroom limits tracks per participant, not per room), recording off,
    /// `audio_only` and `large_room` false, `media_region` null (no region).
    func json(_ links: ResourceLinks) -> [String: Any] {
        let url = links.room(sid)
        return [
            "sid": sid,
            "account_sid": links.accountSID,
            "unique_name": uniqueName,
            "status": status,
            "type": "group",
            "date_created": TwilioDate.string(dateCreated),
            "date_updated": TwilioDate.string(dateUpdated),
            "end_time": TwilioDate.string(endTime),
            "duration": duration.orNull,
            "max_participants": maxParticipants,
            "max_participant_duration": 14_400,
            "max_concurrent_published_tracks": 0,
            "empty_room_timeout": emptyRoomTimeout,
            "unused_room_timeout": unusedRoomTimeout,
            "status_callback": statusCallback.orNull,
            "status_callback_method": statusCallbackMethod,
            "enable_turn": true,
            "record_participants_on_connect": false,
            "video_codecs": ["VP8"],
            "media_region": NSNull(),
            "audio_only": false,
            "large_room": false,
            "url": url,
            "links": ["participants": url + "/Participants"],
        ]
    }
}

/// Absolute URLs of resources (PROTOCOL.md section 6: on `--public-url`,
/// else the address the request came to) and the account SID.
struct ResourceLinks: Sendable {
    /// `https://host[:port]`, no trailing slash.
    var base: String
    var accountSID: String

    func room(_ sid: String) -> String { "\(base)/v1/Rooms/\(sid)" }

    func participant(room: String, _ sid: String) -> String { "\(self.room(room))/Participants/\(sid)" }
}
