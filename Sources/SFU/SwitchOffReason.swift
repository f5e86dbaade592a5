/// Why a subscribed video track gets no layer (PROTOCOL.md section 7,
/// "Switch-off"); the raw values are the protocol's.
public enum SwitchOffReason: String, Hashable, Sendable, CaseIterable {
    case networkCongestion = "network-congestion"
    case maxBandwidthReached = "max-bandwidth-reached"
    case disabledBySubscriber = "disabled-by-subscriber"
    case disabledByPublisher = "disabled-by-publisher"
}
