/// A user-defined message (PROTOCOL.md 3.5) another participant or the
/// server sent to this participant.
public struct RoomMessage: Sendable, Equatable {
    /// `ME…`
    public var sid: String
    /// The sender's participant SID and identity.
    public var fromParticipantSid: String
    public var fromIdentity: String
    public var content: String
    public var contentType: String
    /// Counts from 0 per sender.
    public var sequenceNumber: Int
}
