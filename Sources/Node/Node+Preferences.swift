import MediaIO
import Rooms

/// What a subscriber asks for a video track it receives (PROTOCOL.md 7):
/// `setContentPreferences`, `setTrackPriority`, `switchOffTrack` and
/// `switchOnTrack`. Each throws 53300 unless the participant is subscribed
/// to the track and it is video. The media plane keeps them across
/// renegotiations until the participant leaves.
extension Node {
    /// The size the subscriber renders `track` at; nil clears it.
    public func setRenderDimensions(
        participant: ParticipantSID, track: TrackSID, width: Int?, height: Int?
    ) async throws(RoomError) {
        let dimensions = width.flatMap { width in height.map { RenderDimensions(width: width, height: $0) } }
        try await updatePreferences(participant: participant, track: track) { $0.renderDimensions = dimensions }
    }

    /// The subscriber's own priority for `track`; nil: the publisher's.
    public func setTrackPriority(participant: ParticipantSID, track: TrackSID, priority: TrackPriority?) async throws(RoomError) {
        let value = priority.map(MediaTrackPriority.init)
        try await updatePreferences(participant: participant, track: track) { $0.priority = value }
    }

    /// `switchOffTrack` (true) or `switchOnTrack` (false).
    public func setSwitchedOff(participant: ParticipantSID, track: TrackSID, _ off: Bool) async throws(RoomError) {
        try await updatePreferences(participant: participant, track: track) { $0.switchedOff = off }
    }

    /// The video part of the bandwidth profile `participant` joined `room`
    /// with (`join.bandwidthProfile.video`, PROTOCOL.md 7), by the
    /// protocol's names; a nil field takes Twilio's default (`collaboration`,
    /// `predicted`, `standard`, no cap).
    public func setBandwidthProfile(
        participant: ParticipantSID, room: RoomSID, mode: String?, trackSwitchOffMode: String?,
        dominantSpeakerPriority: TrackPriority?, maxSubscriptionBitrate: Int?
    ) {
        var profile = MediaAllocationProfile()
        if let mode = mode.flatMap(MediaAllocationMode.init(rawValue:)) { profile.mode = mode }
        if let switchOff = trackSwitchOffMode.flatMap(MediaTrackSwitchOffMode.init(rawValue:)) {
            profile.trackSwitchOffMode = switchOff
        }
        if let priority = dominantSpeakerPriority { profile.dominantSpeakerPriority = MediaTrackPriority(priority) }
        profile.maxSubscriptionBitrate = maxSubscriptionBitrate.flatMap { $0 > 0 ? $0 : nil }
        media.setAllocationProfile(participant: participant, room: room, profile)
    }

    private func updatePreferences(
        participant: ParticipantSID, track: TrackSID, _ change: @escaping @Sendable (inout DownTrackPreferences) -> Void
    ) async throws(RoomError) {
        let subscribed = await rooms.read { service in
            service.subscribedTracks(of: participant).first { $0.sid == track }
        }
        guard let subscribed, subscribed.kind == .video else { throw .trackNotFound }
        media.updatePreferences(
            subscriber: participant, room: subscribed.roomSID, track: track, publisher: subscribed.publisherSID, change)
    }
}
