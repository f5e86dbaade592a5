import Foundation

/// One participant session as the history keeps it: the fields of Twilio's
/// Participant resource (PROTOCOL.md section 6). A reconnect keeps the same
/// record; joining again with the same identity makes a new one (new SID).
/// Dates have second precision (see ``RoomRecord``).
public struct ParticipantRecord: Sendable, Hashable {
    /// `status` of a participant. `reconnecting` is in newer Twilio versions
    /// only (the pinned OpenAPI file predates it).
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case connected
        case reconnecting
        case disconnected
    }

    /// `PA` + 32 hex digits.
    public var sid: String
    public var roomSid: String
    public var identity: String
    public var status: Status
    public var dateCreated: Date
    public var dateUpdated: Date
    /// When the participant joined (Twilio: `start_time`).
    public var startTime: Date
    /// When it left; nil while connected or reconnecting.
    public var endTime: Date?
    /// Seconds from start to end; nil until it left.
    public var duration: Int?

    public init(
        sid: String,
        roomSid: String,
        identity: String,
        status: Status = .connected,
        dateCreated: Date,
        dateUpdated: Date? = nil,
        startTime: Date? = nil,
        endTime: Date? = nil,
        duration: Int? = nil
    ) {
        self.sid = sid
        self.roomSid = roomSid
        self.identity = identity
        self.status = status
        self.dateCreated = dateCreated
        self.dateUpdated = dateUpdated ?? dateCreated
        self.startTime = startTime ?? dateCreated
        self.endTime = endTime
        self.duration = duration
    }

    /// This participant left at `now`: `disconnected`, with `end_time`,
    /// `date_updated` and `duration` (whole seconds, never negative).
    public func disconnected(at now: Date) -> ParticipantRecord {
        var copy = self
        copy.status = .disconnected
        copy.endTime = now
        copy.dateUpdated = now
        copy.duration = max(0, StoredDate.seconds(now) - StoredDate.seconds(startTime))
        return copy
    }
}
