import Foundation

/// One room as the history keeps it: the fields of Twilio's Room resource
/// (PROTOCOL.md section 6, `video.v1.room` in the pinned OpenAPI file) that
/// Vroom owns. Fields Twilio lists but Vroom does not store (`account_sid`,
/// `url`, `links`, `media_region`, ...) are filled in by the REST layer.
///
/// Dates have second precision: the store keeps integer seconds since
/// 1970 UTC because Twilio's JSON dates (`YYYY-MM-DDTHH:MM:SSZ`) have no
/// fractions; a fetched record's dates are the saved ones rounded down.
public struct RoomRecord: Sendable, Hashable {
    /// `status` of a room: `in-progress`, then `completed` (ended by REST or
    /// a timeout) or `failed` (the server stopped while it ran).
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case inProgress = "in-progress"
        case completed
        case failed
    }

    /// `RM` + 32 hex digits.
    public var sid: String
    /// The name clients join by; unique among in-progress rooms only.
    public var uniqueName: String
    public var status: Status
    /// Always `group` in Vroom (Twilio's only current room type).
    public var type: String
    public var maxParticipants: Int
    /// Minutes a room stays open after its last participant left.
    public var emptyRoomTimeout: Int
    /// Minutes a room stays open when nobody ever joined.
    public var unusedRoomTimeout: Int
    public var statusCallback: String?
    /// `POST` (Twilio's default) or `GET`.
    public var statusCallbackMethod: String
    public var dateCreated: Date
    public var dateUpdated: Date
    /// When the room ended; nil while in progress.
    public var endTime: Date?
    /// Seconds from creation to end; nil while in progress.
    public var duration: Int?

    public init(
        sid: String,
        uniqueName: String,
        status: Status = .inProgress,
        type: String = "group",
        maxParticipants: Int = 50,
        emptyRoomTimeout: Int = 5,
        unusedRoomTimeout: Int = 5,
        statusCallback: String? = nil,
        statusCallbackMethod: String = "POST",
        dateCreated: Date,
        dateUpdated: Date? = nil,
        endTime: Date? = nil,
        duration: Int? = nil
    ) {
        self.sid = sid
        self.uniqueName = uniqueName
        self.status = status
        self.type = type
        self.maxParticipants = maxParticipants
        self.emptyRoomTimeout = emptyRoomTimeout
        self.unusedRoomTimeout = unusedRoomTimeout
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.dateCreated = dateCreated
        self.dateUpdated = dateUpdated ?? dateCreated
        self.endTime = endTime
        self.duration = duration
    }

    /// This room ended at `now` with `status` (`completed` or `failed`):
    /// `end_time`, `date_updated` and `duration` (whole seconds, never
    /// negative) follow from it.
    public func ended(_ status: Status, at now: Date) -> RoomRecord {
        var copy = self
        copy.status = status
        copy.endTime = now
        copy.dateUpdated = now
        copy.duration = max(0, StoredDate.seconds(now) - StoredDate.seconds(dateCreated))
        return copy
    }
}
