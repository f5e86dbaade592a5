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

/// A participant with Twilio's fields (PROTOCOL.md section 6): what REST reads
/// return and the history record Persistence stores (emitted as
/// `RoomEvent.participantRecord` on every status change).
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
    /// Why it ended; nil while current.
    public var endReason: ParticipantEndReason?
}
