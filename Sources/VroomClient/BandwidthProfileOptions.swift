/// How the server shares this subscriber's downlink between the tracks it
/// receives (PROTOCOL.md section 7, Twilio's Network Bandwidth Profile),
/// sent in `join` when set in `ConnectOptions.bandwidthProfile`.
public struct BandwidthProfileOptions: Sendable, Hashable {
    public var video: VideoBandwidthProfileOptions

    public init(video: VideoBandwidthProfileOptions = VideoBandwidthProfileOptions()) {
        self.video = video
    }
}
