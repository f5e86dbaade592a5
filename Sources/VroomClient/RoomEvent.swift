/// Everything a `RoomDelegate` hears, as values for `Room.events`
/// (Swift concurrency users).
public enum RoomEvent: Sendable {
    case connected
    case failedToConnect(VideoError)
    /// `nil`: `disconnect()` was called.
    case disconnected(VideoError?)
    case reconnecting(VideoError)
    case reconnected
    case participantConnected(RemoteParticipant)
    case participantDisconnected(RemoteParticipant)
    case participantReconnecting(RemoteParticipant)
    case participantReconnected(RemoteParticipant)
    case trackPublished(RemoteParticipant, RemoteTrackPublication)
    case trackUnpublished(RemoteParticipant, RemoteTrackPublication)
    case trackSubscribed(RemoteParticipant, RemoteTrackPublication)
    case trackUnsubscribed(RemoteParticipant, RemoteTrackPublication)
    case trackEnabled(RemoteParticipant, RemoteTrackPublication)
    case trackDisabled(RemoteParticipant, RemoteTrackPublication)
    case localTrackPublished(LocalTrackPublication)
    case localTrackPublicationFailed(trackName: String, VideoError)
    case messageReceived(RoomMessage)
    /// The local id `sendMessage` returned, and the server's `ME…` SID.
    case messageSent(id: String, sid: String)
    case messageFailed(id: String, VideoError)
    /// `nil`: nobody speaks.
    case dominantSpeakerChanged(RemoteParticipant?)
    case networkQualityChanged(participantSid: String, level: Int, warnings: [String])
    /// The server stopped forwarding a subscribed video track (nil reason:
    /// one this SDK does not know).
    case trackSwitchedOff(RemoteParticipant, RemoteVideoTrack, TrackSwitchOffReason?)
    case trackSwitchedOn(RemoteParticipant, RemoteVideoTrack)
}
