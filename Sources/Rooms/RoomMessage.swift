import Foundation

/// A user-defined message (PROTOCOL.md section 3.5).
public struct RoomMessage: Hashable, Sendable {
    public var sid: MessageSID
    public var roomSID: RoomSID
    /// The sending participant; nil for a server message sent through REST.
    public var from: ParticipantSID?
    /// The sender's identity; nil for a server message.
    public var fromIdentity: String?
    public var content: String
    public var contentType: String
    /// Counts from 0 per sender (one counter for all its recipients; server
    /// messages count per receiving participant).
    public var sequenceNumber: Int
    public var timestamp: Date
    /// Who gets it (never the sender).
    public var recipients: [ParticipantSID]
}
