import Foundation

/// A publication for REST `PublishedTracks` (PROTOCOL.md section 6).
public struct PublishedTrackRecord: Hashable, Sendable {
    public var sid: TrackSID
    public var participantSID: ParticipantSID
    public var roomSID: RoomSID
    public var name: String
    public var kind: TrackKind
    /// Effective: enabled by the publisher and not interrupted.
    public var enabled: Bool
    /// Enabled by the publisher (ignoring interruptions).
    public var publisherEnabled: Bool
    /// The m-line `mid` in the publisher's latest offer.
    public var mid: String
    public var dateCreated: Date
    public var dateUpdated: Date
}
