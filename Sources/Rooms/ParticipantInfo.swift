/// A participant as others see it in `joined` and `participantConnected`.
public struct ParticipantInfo: Hashable, Sendable {
    public var sid: ParticipantSID
    public var identity: String
    /// The display name from `join`, if any.
    public var name: String?
    public var status: ParticipantStatus
    public var tracks: [TrackInfo]
}
