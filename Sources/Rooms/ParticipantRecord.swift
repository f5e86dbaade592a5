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

/// A participant's subscribe rules for REST `SubscribeRules`.
public struct SubscribeRulesRecord: Hashable, Sendable {
    public var participantSID: ParticipantSID
    public var roomSID: RoomSID
    public var rules: [SubscribeRule]
    public var dateCreated: Date
    public var dateUpdated: Date
}
