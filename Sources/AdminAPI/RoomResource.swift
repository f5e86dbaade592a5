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
    struct JSON: Encodable {
        struct Links: Encodable {
            var participants: String
        }

        var sid: String
        var accountSID: String
        var uniqueName: String
        var status: String
        var type = "group"
        var dateCreated: Date
        var dateUpdated: Date
        @JSONNullable var endTime: Date?
        @JSONNullable var duration: Int?
        var maxParticipants: Int
        var maxParticipantDuration = 14_400
        var maxConcurrentPublishedTracks = 0
        var emptyRoomTimeout: Int
        var unusedRoomTimeout: Int
        @JSONNullable var statusCallback: String?
        var statusCallbackMethod: String
        var enableTurn = true
        var recordParticipantsOnConnect = false
        var videoCodecs = ["VP8"]
        @JSONNullable var mediaRegion: String? = nil
        var audioOnly = false
        var largeRoom = false
        var url: String
        var links: Links

        enum CodingKeys: String, CodingKey {
            case sid, accountSID = "account_sid", uniqueName = "unique_name", status, type
            case dateCreated = "date_created", dateUpdated = "date_updated", endTime = "end_time", duration
            case maxParticipants = "max_participants", maxParticipantDuration = "max_participant_duration"
            case maxConcurrentPublishedTracks = "max_concurrent_published_tracks"
            case emptyRoomTimeout = "empty_room_timeout", unusedRoomTimeout = "unused_room_timeout"
            case statusCallback = "status_callback", statusCallbackMethod = "status_callback_method"
            case enableTurn = "enable_turn", recordParticipantsOnConnect = "record_participants_on_connect"
            case videoCodecs = "video_codecs", mediaRegion = "media_region", audioOnly = "audio_only"
            case largeRoom = "large_room", url, links
        }
    }

    func json(_ links: ResourceLinks) -> JSON {
        let url = links.room(sid)
        return JSON(
            sid: sid, accountSID: links.accountSID, uniqueName: uniqueName, status: status,
            dateCreated: dateCreated, dateUpdated: dateUpdated, endTime: endTime, duration: duration,
            maxParticipants: maxParticipants, emptyRoomTimeout: emptyRoomTimeout, unusedRoomTimeout: unusedRoomTimeout,
            statusCallback: statusCallback, statusCallbackMethod: statusCallbackMethod,
            url: url, links: JSON.Links(participants: url + "/Participants"))
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
