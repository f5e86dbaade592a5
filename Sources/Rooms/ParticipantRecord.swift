import Foundation

/// A participant's status, with Twilio's strings.
public enum ParticipantStatus: String, Hashable, Sendable, CaseIterable {
    case connected
    /// Dropped without `leave`, inside the reconnect window.
    case reconnecting
    case disconnected
}

/// Why a participant's session ended.
public enum ParticipantEndReason: String, Hashable, Sendable, CaseIterable {
    /// It sent `leave`.
    case left
    /// The reconnect window passed after a drop.
    case reconnectWindowExpired
    /// The same identity joined again (53205 to this one).
    case duplicateIdentity
    /// Removed through REST (53216).
    case removedByAdmin
    /// The room was completed, by REST or a timeout (53118).
    case roomCompleted

    /// The error its session is sent as `disconnected`, if any.
    public var disconnectError: RoomError? {
        switch self {
        case .left, .reconnectWindowExpired: nil
        case .duplicateIdentity: .participantDuplicateIdentity
        case .removedByAdmin: .participantRemoved
        case .roomCompleted: .roomCompleted
        }
    }
}

/// A participant session with Twilio's fields (PROTOCOL.md section 6): what
/// REST reads return and the history record Persistence stores as it is
/// (emitted as `RoomEvent.participantRecord` on every status change). A
/// reconnect keeps the same record; joining again makes a new one (new SID).
public struct ParticipantRecord: Hashable, Sendable {
    public var sid: ParticipantSID
    public var roomSID: RoomSID
    public var identity: String
    /// The display name from `join`, if any (not a Twilio field).
    public var name: String?
    public var status: ParticipantStatus
    public var dateCreated: Date
    public var dateUpdated: Date
    public var startTime: Date
    public var endTime: Date?
    /// Whole seconds from start to end; nil while connected or reconnecting.
    public var duration: Int?
    /// Why it ended; nil while current (and for sessions a restart cut short).
    public var endReason: ParticipantEndReason?

    public init(
        sid: ParticipantSID, roomSID: RoomSID, identity: String, name: String? = nil,
        status: ParticipantStatus = .connected, dateCreated: Date, dateUpdated: Date? = nil,
        startTime: Date? = nil, endTime: Date? = nil, duration: Int? = nil, endReason: ParticipantEndReason? = nil
    ) {
        self.sid = sid
        self.roomSID = roomSID
        self.identity = identity
        self.name = name
        self.status = status
        self.dateCreated = dateCreated
        self.dateUpdated = dateUpdated ?? dateCreated
        self.startTime = startTime ?? dateCreated
        self.endTime = endTime
        self.duration = duration
        self.endReason = endReason
    }

    /// This session ended at `date`: `disconnected`, with `end_time`,
    /// `date_updated` and `duration`.
    public func disconnected(at date: Date, reason: ParticipantEndReason? = nil) -> ParticipantRecord {
        var copy = self
        copy.status = .disconnected
        copy.endTime = date
        copy.dateUpdated = date
        copy.duration = wholeSeconds(from: startTime, to: date)
        copy.endReason = reason
        return copy
    }
}
