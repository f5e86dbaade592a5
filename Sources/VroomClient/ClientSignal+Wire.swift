extension ClientSignal {
    /// The client's requests as PROTOCOL.md section 3 writes them, for
    /// `JSONEncoder` (which leaves `nil` optionals out).
    enum Wire {
        /// A request with no fields but its `type` and maybe an `id`.
        struct Request: Encodable {
            var type: String
            var id: String?
        }

        struct Rule: Encodable {
            var type: String
            var all: Bool
        }

        struct Join: Encodable {
            var type = "join"
            var id: String
            var room: String?
            var resume: String?
            var rules: [Rule]
            var bandwidthProfile: BandwidthProfile?
        }

        /// `{"video":{…}}`; nil fields are left out (the server's defaults).
        struct BandwidthProfile: Encodable {
            struct Video: Encodable {
                var mode: String?
                var dominantSpeakerPriority: TrackPriority?
                var maxSubscriptionBitrate: Int?
                var trackSwitchOffMode: String?
                var clientTrackSwitchOffControl: String?
                var contentPreferencesMode: String?
            }

            var video: Video

            init(_ options: BandwidthProfileOptions) {
                let video = options.video
                self.video = Video(
                    mode: video.mode?.rawValue, dominantSpeakerPriority: video.dominantSpeakerPriority,
                    maxSubscriptionBitrate: video.maxSubscriptionBitrate, trackSwitchOffMode: video.trackSwitchOffMode?.rawValue,
                    clientTrackSwitchOffControl: video.clientTrackSwitchOffControl?.rawValue,
                    contentPreferencesMode: video.contentPreferencesMode?.rawValue)
            }
        }

        /// `switchOffTrack`, `switchOnTrack`.
        struct TrackRequest: Encodable {
            var type: String
            var id: String
            var trackSid: String
        }

        /// `priority` is always written: `null` clears the override, so it
        /// cannot be left out as `JSONEncoder` leaves a nil.
        struct SetTrackPriority: Encodable {
            var type = "setTrackPriority"
            var id: String
            var trackSid: String
            var priority: TrackPriority?

            enum CodingKeys: String, CodingKey { case type, id, trackSid, priority }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(type, forKey: .type)
                try container.encode(id, forKey: .id)
                try container.encode(trackSid, forKey: .trackSid)
                if let priority {
                    try container.encode(priority, forKey: .priority)
                } else {
                    try container.encodeNil(forKey: .priority)
                }
            }
        }

        struct SetContentPreferences: Encodable {
            struct Dimensions: Encodable {
                var width: Int
                var height: Int
            }

            var type = "setContentPreferences"
            var id: String
            var trackSid: String
            var renderDimensions: Dimensions
        }

        struct Publish: Encodable {
            var type = "publish"
            var id: String
            var sdp: String
            var tracks: [PublishTrack]
        }

        struct SubscribeAnswer: Encodable {
            var type = "subscribeAnswer"
            var sdp: String
        }

        struct SetTrackEnabled: Encodable {
            var type = "setTrackEnabled"
            var id: String
            var trackSid: String
            var enabled: Bool
        }

        struct Interruption: Encodable {
            var type = "interruption"
            var id: String
            var kind: String
            var state: String
            var reason: String?
        }

        struct SendMessage: Encodable {
            var type = "sendMessage"
            var id: String
            var content: String
            var contentType: String
            var to: [String]?
        }
    }
}
