/// How to publish one track (Twilio's `LocalTrackPublicationOptions`):
/// `LocalParticipant.publish(videoTrack:options:)`.
public struct LocalTrackPublicationOptions: Sendable, Hashable {
    /// The track's priority for every subscriber (PROTOCOL.md section 7,
    /// the `tracks` entry's `priority`); nil leaves the server's default
    /// (`standard`). A screen share would be `high`.
    public var priority: TrackPriority?

    public init(priority: TrackPriority? = nil) {
        self.priority = priority
    }
}
