/// Why the server stopped forwarding a subscribed video track
/// (PROTOCOL.md section 7, "Switch-off"; Twilio's
/// `TrackSwitchOffReason`). The raw values are the protocol's.
public enum TrackSwitchOffReason: String, Sendable, Hashable, CaseIterable {
    /// The subscriber's downlink cannot carry it.
    case networkCongestion = "network-congestion"
    /// The join's `maxSubscriptionBitrate` is reached.
    case maxBandwidthReached = "max-bandwidth-reached"
    /// This client switched it off (`RemoteVideoTrack.switchOff()`).
    case disabledBySubscriber = "disabled-by-subscriber"
    /// Its publisher disabled it (`trackDisabled` comes as well).
    case disabledByPublisher = "disabled-by-publisher"
}
