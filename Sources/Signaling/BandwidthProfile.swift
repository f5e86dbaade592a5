import Rooms

/// Twilio's Network Bandwidth Profile as `join` may carry it (PROTOCOL.md
/// section 7), with Twilio's names; an absent field takes Twilio's default.
/// An unknown value is a 53003 (the frame's field has the wrong value).
public struct BandwidthProfile: Sendable, Equatable, Decodable {
    public var video: Video?

    public init(video: Video? = nil) {
        self.video = video
    }

    public struct Video: Sendable, Equatable, Decodable {
        public enum Mode: String, Sendable, Decodable {
            case grid, collaboration, presentation
        }

        public enum TrackSwitchOffMode: String, Sendable, Decodable {
            case detected, predicted, disabled
        }

        /// Who switches tracks off and on: the server (`auto`) or the
        /// subscriber with `switchOffTrack`/`switchOnTrack` (`manual`).
        public enum Control: String, Sendable, Decodable {
            case auto, manual
        }

        public var mode: Mode?
        public var dominantSpeakerPriority: TrackPriority?
        /// Bits per second; nil: no cap.
        public var maxSubscriptionBitrate: Int?
        public var trackSwitchOffMode: TrackSwitchOffMode?
        public var clientTrackSwitchOffControl: Control?
        public var contentPreferencesMode: Control?

        public init(
            mode: Mode? = nil, dominantSpeakerPriority: TrackPriority? = nil, maxSubscriptionBitrate: Int? = nil,
            trackSwitchOffMode: TrackSwitchOffMode? = nil, clientTrackSwitchOffControl: Control? = nil,
            contentPreferencesMode: Control? = nil
        ) {
            self.mode = mode
            self.dominantSpeakerPriority = dominantSpeakerPriority
            self.maxSubscriptionBitrate = maxSubscriptionBitrate
            self.trackSwitchOffMode = trackSwitchOffMode
            self.clientTrackSwitchOffControl = clientTrackSwitchOffControl
            self.contentPreferencesMode = contentPreferencesMode
        }
    }

    /// `switchOffTrack`/`switchOnTrack` are the subscriber's to send.
    var allowsManualSwitchOff: Bool { video?.clientTrackSwitchOffControl == .manual }
}
