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
    /// An error not tied to a request: a media connection failed (53405 no
    /// ICE consent, 53407 DTLS or fingerprint). The session goes on; the
    /// client may restart ICE or publish again.
    case mediaError(ProtocolErrorCode, message: String)
    /// A participant's network quality (PROTOCOL.md 3.8), sent to everyone
    /// in its room: level 0-5 and the active warnings.
    case networkQuality(participant: ParticipantSID, level: Int, warnings: [NetworkQualityWarning])
    /// The room's dominant speaker; nil when nobody speaks.
    case dominantSpeaker(ParticipantSID?)
    /// A video track this participant receives gets no layer any more
    /// (PROTOCOL.md 7, "Switch-off"), or gets one again.
    case trackSwitchedOff(TrackSID, reason: TrackSwitchOffReason)
    case trackSwitchedOn(TrackSID)
    /// For the publisher of a simulcast track: the layers some subscriber
    /// needs, by RID, lowest first (`publisherLayers`).
    case publisherLayers(TrackSID, active: [String])
}
