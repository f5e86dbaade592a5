import Foundation

/// A room's status, with Twilio's strings.
public enum RoomStatus: String, Hashable, Sendable, CaseIterable {
    case inProgress = "in-progress"
    case completed
    /// Set by Persistence for rooms in progress when the server stopped.
    case failed
}

/// A room with Twilio's fields (PROTOCOL.md section 6): the value REST reads
/// return and the history record Persistence stores (emitted as
/// `RoomEvent.roomRecord` on every change).
public struct RoomRecord: Hashable, Sendable {
    public var sid: RoomSID
    public var uniqueName: String
    public var status: RoomStatus
    public var maxParticipants: Int
    /// Seconds; Twilio's `empty_room_timeout` is `emptyRoomTimeoutMinutes`.
    public var emptyRoomTimeout: TimeInterval
    /// Seconds; Twilio's `unused_room_timeout` is `unusedRoomTimeoutMinutes`.
    public var unusedRoomTimeout: TimeInterval
    public var statusCallback: String?
    public var statusCallbackMethod: StatusCallbackMethod
    public var dateCreated: Date
    public var dateUpdated: Date
    public var endTime: Date?
    /// Whole seconds from creation to end; nil while in progress.
    public var duration: Int?

    /// Minutes, rounded up (a timeout shortened to seconds by configuration shows as 1).
    public var emptyRoomTimeoutMinutes: Int { Int((emptyRoomTimeout / 60).rounded(.up)) }
    /// Minutes, rounded up.
    public var unusedRoomTimeoutMinutes: Int { Int((unusedRoomTimeout / 60).rounded(.up)) }
}

/// `StatusCallbackMethod` of a room (Twilio allows GET and POST; POST is the default).
public enum StatusCallbackMethod: String, Hashable, Sendable, CaseIterable {
    case get = "GET"
    case post = "POST"
}
