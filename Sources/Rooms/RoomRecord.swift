import Foundation

/// A room's status, with Twilio's strings.
public enum RoomStatus: String, Hashable, Sendable, CaseIterable {
    case inProgress = "in-progress"
    case completed
    /// Set by Persistence for rooms in progress when the server stopped.
    case failed
}

/// A room with Twilio's fields (PROTOCOL.md section 6): the value REST reads
/// return and the history record Persistence stores as it is (emitted as
/// `RoomEvent.roomRecord` on every change of status). The one room record
/// type: AdminAPI writes it out, Persistence keeps it.
///
/// Units are those of Twilio's REST fields, so every reader (REST, the
/// store, webhooks) takes a field as it is: timeouts in whole minutes
/// (`empty_room_timeout`, `unused_room_timeout`), `duration` in whole
/// seconds. Dates keep the precision they were made with; REST and the
/// store show them in whole seconds.
public struct RoomRecord: Hashable, Sendable {
    public var sid: RoomSID
    public var uniqueName: String
    public var status: RoomStatus
    public var maxParticipants: Int
    /// Minutes, Twilio's `empty_room_timeout`. A timer configured in seconds
    /// (tests shorten it) shows rounded up: 30 s is 1.
    public var emptyRoomTimeout: Int
    /// Minutes, Twilio's `unused_room_timeout` (rounded up as above).
    public var unusedRoomTimeout: Int
    public var statusCallback: String?
    public var statusCallbackMethod: StatusCallbackMethod
    public var dateCreated: Date
    public var dateUpdated: Date
    public var endTime: Date?
    /// Whole seconds from creation to end; nil while in progress.
    public var duration: Int?

    public init(
        sid: RoomSID, uniqueName: String, status: RoomStatus = .inProgress, maxParticipants: Int = 50,
        emptyRoomTimeout: Int = 5, unusedRoomTimeout: Int = 5, statusCallback: String? = nil,
        statusCallbackMethod: StatusCallbackMethod = .post, dateCreated: Date, dateUpdated: Date? = nil,
        endTime: Date? = nil, duration: Int? = nil
    ) {
        self.sid = sid
        self.uniqueName = uniqueName
        self.status = status
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

    /// This room ended at `date` with `status` (`completed` or `failed`):
    /// `end_time`, `date_updated` and `duration` follow from it.
    public func ended(_ status: RoomStatus, at date: Date) -> RoomRecord {
        var copy = self
        copy.status = status
        copy.endTime = date
        copy.dateUpdated = date
        copy.duration = wholeSeconds(from: dateCreated, to: date)
        return copy
    }

    /// A timer in seconds as Twilio's whole minutes, rounded up.
    static func minutes(_ interval: TimeInterval) -> Int { Int((interval / 60).rounded(.up)) }
}

/// `StatusCallbackMethod` of a room (Twilio allows GET and POST; POST is the default).
public enum StatusCallbackMethod: String, Hashable, Sendable, CaseIterable, Codable {
    case get = "GET"
    case post = "POST"
}
