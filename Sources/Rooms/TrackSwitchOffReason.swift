/// Why a subscribed video track is switched off (PROTOCOL.md section 7,
/// "Switch-off"): the `reason` of `trackSwitchedOff`.
public enum TrackSwitchOffReason: String, Hashable, Sendable, Codable, CaseIterable {
    case networkCongestion = "network-congestion"
    case maxBandwidthReached = "max-bandwidth-reached"
    case disabledBySubscriber = "disabled-by-subscriber"
    case disabledByPublisher = "disabled-by-publisher"
}
