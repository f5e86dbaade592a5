import Foundation

/// What happened, as values, in the order it happened. The owner of the
/// `RoomService` routes each case:
/// - `notice`: to the addressed participant's session (Signaling). Notices
///   are only addressed to participants that are `connected` at the time
///   (a reconnecting one has no socket; gap events are not replayed).
/// - `statusCallback`: to the webhook outbox (AdminAPI), only for rooms with
///   a `StatusCallback`.
/// - `roomRecord` / `participantRecord` / `publishedTrackRecord` /
///   `publishedTrackRemoved`: to Persistence (history). The track events keep
///   the history's PublishedTracks equal to the CURRENT publications, as
///   Twilio lists them: a record when a publication appears or its effective
///   `enabled` changes, a removal when it is unpublished or its participant
///   ends (left, removed, replaced, window expired, room completed).
/// - `trackForwarding`, `remoteAudioPaused`: to the media layer.
/// - `participantRemoved`: the session and media state of that participant end.
/// - `messageSent`: to message subscriptions (AdminAPI's `MessageSubscriptions`).
/// - `session`: to a cluster's store (Persistence), so any node can resume it.
public enum RoomEvent: Hashable, Sendable {
    /// A notice for one participant's session.
    case notice(to: ParticipantSID, ParticipantNotice)
    /// A status callback (webhook) to deliver, already numbered per room.
    case statusCallback(StatusCallback)
    /// A room's record changed (created, updated, ended).
    case roomRecord(RoomRecord)
    /// A participant's record changed (connected, reconnecting, disconnected).
    case participantRecord(ParticipantRecord)
    /// A publication appeared (publish) or its effective `enabled` changed
    /// (setTrackEnabled, interruption, a publish that flips it).
    case publishedTrackRecord(PublishedTrackRecord)
    /// A publication ended: unpublished, or its participant's session ended.
    case publishedTrackRemoved(room: RoomSID, participant: ParticipantSID, track: TrackSID)
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
    /// A session's token or subscribe rules changed (join, resume, rules):
    /// for a cluster's store, so another node can resume it.
    case session(SessionRecord)
}
