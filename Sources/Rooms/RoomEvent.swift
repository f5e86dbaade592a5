import Foundation

/// What happened, as values, in the order it happened. The owner of the
/// `RoomService` routes each case:
/// - `notice`: to the addressed participant's session (Signaling). Notices
///   are only addressed to participants that are `connected` at the time
///   (a reconnecting one has no socket; gap events are not replayed).
/// - `statusCallback`: to the webhook outbox (AdminAPI), only for rooms with
///   a `StatusCallback`.
/// - `roomRecord` / `participantRecord`: to Persistence (history).
/// - `trackForwarding`, `remoteAudioPaused`: to the media layer.
/// - `participantRemoved`: the session and media state of that participant end.
/// - `messageSent`: to message subscriptions (AdminAPI's `MessageSubscriptions`).
public enum RoomEvent: Hashable, Sendable {
    /// A notice for one participant's session.
    case notice(to: ParticipantSID, ParticipantNotice)
    /// A status callback (webhook) to deliver, already numbered per room.
    case statusCallback(StatusCallback)
    /// A room's record changed (created, updated, ended).
    case roomRecord(RoomRecord)
    /// A participant's record changed (connected, reconnecting, disconnected).
    case participantRecord(ParticipantRecord)
    /// A publication's effective state changed: forward its packets or not.
    /// When it becomes true the media layer asks the publisher for a keyframe (PLI).
    case trackForwarding(room: RoomSID, publisher: ParticipantSID, track: TrackSID, forwarded: Bool)
    /// An audio interruption began (true) or ended (false): pause or resume the
    /// remote audio forwarded to `participant`.
    case remoteAudioPaused(room: RoomSID, participant: ParticipantSID, paused: Bool)
    /// The participant's session is over for good (left, window expired,
    /// replaced, removed, room completed); its publications are gone.
    case participantRemoved(room: RoomSID, participant: ParticipantSID, reason: ParticipantEndReason)
    /// A participant or the server sent a message (for message subscriptions).
    case messageSent(RoomMessage)
}

/// A notice for one participant's session: the server events of PROTOCOL.md
/// section 3.7, plus `subscriptionsChanged` (send a fresh `subscribeOffer`)
/// and `disconnected` (send it, then close the socket).
public enum ParticipantNotice: Hashable, Sendable {
    case participantConnected(ParticipantInfo)
    case participantDisconnected(ParticipantSID)
    case participantReconnecting(ParticipantSID)
    case participantReconnected(ParticipantSID)
    case trackPublished(participant: ParticipantSID, track: TrackInfo)
    case trackUnpublished(participant: ParticipantSID, track: TrackSID)
    case trackEnabled(participant: ParticipantSID, track: TrackSID, reason: TrackStateReason?)
    case trackDisabled(participant: ParticipantSID, track: TrackSID, reason: TrackStateReason?)
    /// A user-defined message for this participant.
    case message(RoomMessage)
    /// The set of tracks this participant is subscribed to changed: read
    /// `RoomService.subscribedTracks(of:)` and send a `subscribeOffer`.
    case subscriptionsChanged
    /// The session ends with this error (53205, 53216, 53118).
    case disconnected(RoomError)
}

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
