import Foundation

/// A track a participant receives now: REST `SubscribedTracks` and the
/// tracks of Signaling's `subscribeOffer`, in a stable order (room
/// participants in join order, then publication order).
public struct SubscribedTrackRecord: Hashable, Sendable {
    public var sid: TrackSID
    /// The subscriber.
    public var participantSID: ParticipantSID
    public var publisherSID: ParticipantSID
    public var publisherIdentity: String
    public var roomSID: RoomSID
    public var name: String
    public var kind: TrackKind
    /// Effective enabled state of the publication.
    public var enabled: Bool
    /// The publication's creation date.
    public var dateCreated: Date
    public var dateUpdated: Date
}
