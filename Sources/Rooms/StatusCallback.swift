import Foundation

/// `StatusCallbackEvent` values (PROTOCOL.md section 6).
public enum StatusCallbackEvent: String, Hashable, Sendable, CaseIterable {
    case roomCreated = "room-created"
    case roomEnded = "room-ended"
    case participantConnected = "participant-connected"
    case participantDisconnected = "participant-disconnected"
    case trackAdded = "track-added"
    case trackRemoved = "track-removed"
    case trackEnabled = "track-enabled"
    case trackDisabled = "track-disabled"
}

/// One status callback to deliver to a room's `StatusCallback` URL, with the
/// parameters PROTOCOL.md section 6 lists. AdminAPI encodes, signs and
/// delivers it in order per room; `sequenceNumber` counts per room from 0.
public struct StatusCallback: Hashable, Sendable {
    public var url: String
    public var method: StatusCallbackMethod
    public var event: StatusCallbackEvent
    public var roomSID: RoomSID
    public var roomName: String
    public var roomStatus: RoomStatus
    /// Whole seconds since the room was created (Twilio sends it on room-ended;
    /// Vroom on every event).
    public var roomDuration: Int?
    public var participantSID: ParticipantSID?
    public var participantIdentity: String?
    public var participantStatus: ParticipantStatus?
    /// Whole seconds the participant was in the room (on participant-disconnected).
    public var participantDuration: Int?
    public var trackSID: TrackSID?
    public var trackName: String?
    public var trackKind: TrackKind?
    public var sequenceNumber: Int
    public var timestamp: Date

    /// The form parameters by Twilio's names (absent values left out);
    /// `Timestamp` is left to the caller (RFC 2822 formatting is wire format).
    public var parameters: [String: String] {
        var out: [String: String] = [
            "StatusCallbackEvent": event.rawValue,
            "RoomSid": roomSID.rawValue,
            "RoomName": roomName,
            "RoomStatus": roomStatus.rawValue,
            "SequenceNumber": String(sequenceNumber),
        ]
        if let roomDuration { out["RoomDuration"] = String(roomDuration) }
        if let participantSID { out["ParticipantSid"] = participantSID.rawValue }
        if let participantIdentity { out["ParticipantIdentity"] = participantIdentity }
        if let participantStatus { out["ParticipantStatus"] = participantStatus.rawValue }
        if let participantDuration { out["ParticipantDuration"] = String(participantDuration) }
        if let trackSID { out["TrackSid"] = trackSID.rawValue }
        if let trackName { out["TrackName"] = trackName }
        if let trackKind { out["TrackKind"] = trackKind.rawValue }
        return out
    }
}
