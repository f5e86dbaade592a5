import Foundation

/// A publication as other participants see it (`joined`, `participantConnected`,
/// `trackPublished`). `enabled` is the effective state: enabled by the
/// publisher AND not interrupted.
public struct TrackInfo: Hashable, Sendable {
    public var sid: TrackSID
    public var name: String
    public var kind: TrackKind
    public var enabled: Bool
}

/// A participant as others see it in `joined` and `participantConnected`.
public struct ParticipantInfo: Hashable, Sendable {
    public var sid: ParticipantSID
    public var identity: String
    /// The display name from `join`, if any.
    public var name: String?
    public var status: ParticipantStatus
    public var tracks: [TrackInfo]
}
