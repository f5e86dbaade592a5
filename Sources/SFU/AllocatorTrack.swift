import Packets

/// One track of a subscriber connection as the `StreamAllocator` sees it,
/// rebuilt by the caller before each allocation from the DownTrack, its
/// Receivers' measured bitrates and the subscriber's preferences.
public struct AllocatorTrack: Equatable, Sendable {
    /// What the subscriber renders (`setContentPreferences`).
    public struct RenderSize: Equatable, Sendable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public var track: TrackID
    public var kind: MediaKind
    /// The effective priority: the subscriber's override, else the
    /// publisher's (`Router.priority(track:subscriber:)`).
    public var priority: TrackPriority
    /// The track is the dominant speaker's video: it gets at least the
    /// profile's `dominantSpeakerPriority`.
    public var isDominantSpeaker: Bool
    /// Caps the spatial layer at the one `LayerSelector` would pick for
    /// this size; nil: no cap.
    public var renderSize: RenderSize?
    /// Switched off for a reason that is not the allocator's
    /// (`disabledBySubscriber`, `disabledByPublisher`): it gets nothing and
    /// the reason is passed through.
    public var switchedOff: SwitchOffReason?
    /// Spatial layers, lowest first; one layer for audio and for video
    /// without simulcast.
    public var layers: [AllocatorLayer]

    public init(
        video track: TrackID, layers: [AllocatorLayer], priority: TrackPriority = .standard,
        isDominantSpeaker: Bool = false, renderSize: RenderSize? = nil, switchedOff: SwitchOffReason? = nil
    ) {
        self.track = track
        self.kind = .video
        self.priority = priority
        self.isDominantSpeaker = isDominantSpeaker
        self.renderSize = renderSize
        self.switchedOff = switchedOff
        self.layers = layers
    }

    /// An audio track: always forwarded, its bitrate taken off the budget
    /// first.
    public init(audio track: TrackID, bitrate: Int) {
        self.track = track
        self.kind = .audio
        self.priority = .standard
        self.isDominantSpeaker = false
        self.renderSize = nil
        self.switchedOff = nil
        self.layers = [AllocatorLayer(spatial: 0, width: 0, height: 0, temporalBitrates: [bitrate])]
    }
}
