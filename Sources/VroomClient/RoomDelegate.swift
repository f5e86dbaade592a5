/// Told about the room, on `ConnectOptions.delegateQueue`. Held weakly.
/// Every method has an empty default.
public protocol RoomDelegate: AnyObject, Sendable {
    func roomDidConnect(room: Room)
    func roomDidFailToConnect(room: Room, error: VideoError)
    /// `error` is nil after `disconnect()`.
    func roomDidDisconnect(room: Room, error: VideoError?)
    func roomIsReconnecting(room: Room, error: VideoError)
    func roomDidReconnect(room: Room)
    func participantDidConnect(room: Room, participant: RemoteParticipant)
    func participantDidDisconnect(room: Room, participant: RemoteParticipant)
    func participantIsReconnecting(room: Room, participant: RemoteParticipant)
    func participantDidReconnect(room: Room, participant: RemoteParticipant)
    func dominantSpeakerDidChange(room: Room, participant: RemoteParticipant?)
    func networkQualityDidChange(room: Room, participantSid: String, level: Int, warnings: [String])
    func didSendMessage(room: Room, id: String, sid: String)
    func didFailToSendMessage(room: Room, id: String, error: VideoError)
    func didReceiveMessage(room: Room, message: RoomMessage)
}

extension RoomDelegate {
    public func roomDidConnect(room: Room) {}
    public func roomDidFailToConnect(room: Room, error: VideoError) {}
    public func roomDidDisconnect(room: Room, error: VideoError?) {}
    public func roomIsReconnecting(room: Room, error: VideoError) {}
    public func roomDidReconnect(room: Room) {}
    public func participantDidConnect(room: Room, participant: RemoteParticipant) {}
    public func participantDidDisconnect(room: Room, participant: RemoteParticipant) {}
    public func participantIsReconnecting(room: Room, participant: RemoteParticipant) {}
    public func participantDidReconnect(room: Room, participant: RemoteParticipant) {}
    public func dominantSpeakerDidChange(room: Room, participant: RemoteParticipant?) {}
    public func networkQualityDidChange(room: Room, participantSid: String, level: Int, warnings: [String]) {}
    public func didSendMessage(room: Room, id: String, sid: String) {}
    public func didFailToSendMessage(room: Room, id: String, error: VideoError) {}
    public func didReceiveMessage(room: Room, message: RoomMessage) {}
}

/// Told about one remote participant's tracks, on the room's delegate
/// queue. Held weakly. Every method has an empty default.
public protocol RemoteParticipantDelegate: AnyObject, Sendable {
    func didPublishTrack(participant: RemoteParticipant, publication: RemoteTrackPublication)
    func didUnpublishTrack(participant: RemoteParticipant, publication: RemoteTrackPublication)
    func didEnableTrack(participant: RemoteParticipant, publication: RemoteTrackPublication)
    func didDisableTrack(participant: RemoteParticipant, publication: RemoteTrackPublication)
    func didSubscribeToTrack(participant: RemoteParticipant, publication: RemoteTrackPublication)
    func didUnsubscribeFromTrack(participant: RemoteParticipant, publication: RemoteTrackPublication)
    /// The server stopped forwarding `track` (Twilio's
    /// `remoteParticipant(_:didSwitchOffVideoTrack:reason:)`); nil reason:
    /// one this SDK does not know.
    func didSwitchOffVideoTrack(participant: RemoteParticipant, track: RemoteVideoTrack, reason: TrackSwitchOffReason?)
    func didSwitchOnVideoTrack(participant: RemoteParticipant, track: RemoteVideoTrack)
}

extension RemoteParticipantDelegate {
    public func didPublishTrack(participant: RemoteParticipant, publication: RemoteTrackPublication) {}
    public func didUnpublishTrack(participant: RemoteParticipant, publication: RemoteTrackPublication) {}
    public func didEnableTrack(participant: RemoteParticipant, publication: RemoteTrackPublication) {}
    public func didDisableTrack(participant: RemoteParticipant, publication: RemoteTrackPublication) {}
    public func didSubscribeToTrack(participant: RemoteParticipant, publication: RemoteTrackPublication) {}
    public func didUnsubscribeFromTrack(participant: RemoteParticipant, publication: RemoteTrackPublication) {}
    public func didSwitchOffVideoTrack(participant: RemoteParticipant, track: RemoteVideoTrack, reason: TrackSwitchOffReason?) {}
    public func didSwitchOnVideoTrack(participant: RemoteParticipant, track: RemoteVideoTrack) {}
}

/// Told about this participant's own publications. Held weakly.
public protocol LocalParticipantDelegate: AnyObject, Sendable {
    func didPublishTrack(participant: LocalParticipant, publication: LocalTrackPublication)
    func didFailToPublishTrack(participant: LocalParticipant, trackName: String, error: VideoError)
}

extension LocalParticipantDelegate {
    public func didPublishTrack(participant: LocalParticipant, publication: LocalTrackPublication) {}
    public func didFailToPublishTrack(participant: LocalParticipant, trackName: String, error: VideoError) {}
}
