/// Why the router dropped a packet (or one subscriber's copy of it). The
/// raw values index `RouterCounters.dropped`; `metricLabel` is the `reason`
/// label of `vroom_packets_dropped_total` (DESIGN.md, "Metrics").
public enum DropReason: Int, Hashable, Sendable, CaseIterable {
    /// RTP or RTCP that does not parse.
    case malformed = 0
    /// An SSRC no receiver declared or could learn (MID, unique PT).
    case unknownSSRC
    /// RTP or RTCP from a transport the router does not know.
    case unknownTransport
    /// The track is disabled or interrupted (one count per packet).
    case disabled
    /// Audio to a subscriber whose remote audio is paused (per copy).
    case paused
    /// A padding-only packet on the media SSRC (bandwidth probe).
    case padding
    /// An RTX packet that repairs nothing: padding-only, or a copy of a
    /// packet already received (Chrome's RTX bandwidth probes).
    case rtxProbe
    /// A media packet received twice.
    case duplicate
    /// Too far behind the newest packet to place in the sequence space.
    case tooOld
    /// A video copy held back until a keyframe starts the subscriber's stream.
    case waitingForKeyframe
    /// The worker's egress ring had no slot.
    case noSlot
    /// The rewritten packet would not fit the slot.
    case tooLarge
    /// RTP whose `rtp-stream-id` (or repaired one) names no layer of the
    /// m-line its MID names.
    case unknownRID
    /// A subscriber's pacer could not hold the copy (its queue or the
    /// room's held-packet slots full), or dropped stale video from a queue
    /// longer than its limit.
    case pacerQueue

    public var metricLabel: String {
        switch self {
        case .malformed: "malformed"
        case .unknownSSRC: "unknown_ssrc"
        case .unknownTransport: "unknown_transport"
        case .disabled: "disabled"
        case .paused: "paused"
        case .padding: "padding"
        case .rtxProbe: "rtx_probe"
        case .duplicate: "duplicate"
        case .tooOld: "too_old"
        case .waitingForKeyframe: "waiting_for_keyframe"
        case .noSlot: "no_slot"
        case .tooLarge: "too_large"
        case .unknownRID: "unknown_rid"
        case .pacerQueue: "pacer_queue"
        }
    }
}
