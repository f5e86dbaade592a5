import Foundation

/// A current publication with Twilio's PublishedTrack fields (PROTOCOL.md
/// section 6): what REST `PublishedTracks` return and the history record
/// Persistence stores as it is (emitted as `RoomEvent.publishedTrackRecord`
/// when it appears or its effective `enabled` changes).
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

    public init(
        sid: TrackSID, participantSID: ParticipantSID, roomSID: RoomSID, name: String, kind: TrackKind,
        enabled: Bool = true, publisherEnabled: Bool? = nil, mid: String = "", dateCreated: Date, dateUpdated: Date? = nil
    ) {
        self.sid = sid
        self.participantSID = participantSID
        self.roomSID = roomSID
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.publisherEnabled = publisherEnabled ?? enabled
        self.mid = mid
        self.dateCreated = dateCreated
        self.dateUpdated = dateUpdated ?? dateCreated
    }
}
