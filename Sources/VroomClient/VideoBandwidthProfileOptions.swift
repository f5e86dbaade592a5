/// The video part of a bandwidth profile (PROTOCOL.md section 7). The
/// defaults are Twilio's, which the server applies to a field left out:
/// nil fields are not sent.
public struct VideoBandwidthProfileOptions: Sendable, Hashable {
    /// How tracks share the downlink.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Every video track alike.
        case grid
        /// Higher priority first; the rest share what is left.
        case collaboration
        /// The highest priority tracks get what they need; the rest may be switched off.
        case presentation
    }

    /// When the server switches tracks off for bandwidth.
    public enum TrackSwitchOffMode: String, Sendable, Hashable, CaseIterable {
        /// Before congestion, from the estimate's trend.
        case predicted
        /// Once congestion is seen.
        case detected
        /// Never for bandwidth.
        case disabled
    }

    /// Who switches tracks off and on: the server from what is rendered,
    /// or the app (`RemoteVideoTrack.switchOff()` / `switchOn()`).
    public enum ClientTrackSwitchOffControl: String, Sendable, Hashable, CaseIterable {
        case auto
        case manual
    }

    /// Who says what size a track is rendered at: the SDK, or the app
    /// (`RemoteVideoTrack.setContentPreferences(renderDimensions:)`).
    public enum ContentPreferencesMode: String, Sendable, Hashable, CaseIterable {
        case auto
        case manual
    }

    public var mode: Mode?
    /// The priority the dominant speaker's video gets.
    public var dominantSpeakerPriority: TrackPriority?
    /// All subscribed video together at most this many bit/s; nil: no cap.
    public var maxSubscriptionBitrate: Int?
    public var trackSwitchOffMode: TrackSwitchOffMode?
    public var clientTrackSwitchOffControl: ClientTrackSwitchOffControl?
    public var contentPreferencesMode: ContentPreferencesMode?

    public init(
        mode: Mode? = nil, dominantSpeakerPriority: TrackPriority? = nil, maxSubscriptionBitrate: Int? = nil,
        trackSwitchOffMode: TrackSwitchOffMode? = nil, clientTrackSwitchOffControl: ClientTrackSwitchOffControl? = nil,
        contentPreferencesMode: ContentPreferencesMode? = nil
    ) {
        self.mode = mode
        self.dominantSpeakerPriority = dominantSpeakerPriority
        self.maxSubscriptionBitrate = maxSubscriptionBitrate
        self.trackSwitchOffMode = trackSwitchOffMode
        self.clientTrackSwitchOffControl = clientTrackSwitchOffControl
        self.contentPreferencesMode = contentPreferencesMode
    }
}
