import Foundation

/// One publication as the history keeps it: Twilio's PublishedTrack
/// resource (`sid, participant_sid, room_sid, name, kind, enabled,
/// date_created, date_updated`). Dates have second precision.
public struct PublishedTrackRecord: Sendable, Hashable {
    /// `kind` of a track, as Twilio spells it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case audio
        case video
        case data
    }

    /// `MT` + 32 hex digits.
    public var sid: String
    public var participantSid: String
    public var roomSid: String
    public var name: String
    public var kind: Kind
    public var enabled: Bool
    public var dateCreated: Date
    public var dateUpdated: Date

    public init(
        sid: String,
        participantSid: String,
        roomSid: String,
        name: String,
        kind: Kind,
        enabled: Bool = true,
        dateCreated: Date,
        dateUpdated: Date? = nil
    ) {
        self.sid = sid
        self.participantSid = participantSid
        self.roomSid = roomSid
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.dateCreated = dateCreated
        self.dateUpdated = dateUpdated ?? dateCreated
    }
}
