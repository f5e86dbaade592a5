/// The video part of one subscriber's bandwidth profile (PROTOCOL.md
/// section 7, `bandwidthProfile.video` in `join`), as the `StreamAllocator`
/// uses it. Defaults are Twilio's.
public struct AllocationProfile: Equatable, Sendable {
    public var mode: AllocationMode
    public var trackSwitchOffMode: TrackSwitchOffMode
    /// The priority the dominant speaker's video gets (at least: a higher
    /// priority the track already has is kept).
    public var dominantSpeakerPriority: TrackPriority
    /// A ceiling on the video the subscriber receives, in bits/s; nil: none.
    public var maxSubscriptionBitrate: Int?

    public init(
        mode: AllocationMode = .collaboration, trackSwitchOffMode: TrackSwitchOffMode = .predicted,
        dominantSpeakerPriority: TrackPriority = .standard, maxSubscriptionBitrate: Int? = nil
    ) {
        self.mode = mode
        self.trackSwitchOffMode = trackSwitchOffMode
        self.dominantSpeakerPriority = dominantSpeakerPriority
        self.maxSubscriptionBitrate = maxSubscriptionBitrate
    }
}
