import Packets

/// Two counters, one per `MediaKind`.
public struct KindCounts: Sendable, Equatable {
    public var audio: UInt64 = 0
    public var video: UInt64 = 0
    public init(audio: UInt64 = 0, video: UInt64 = 0) {
        self.audio = audio
        self.video = video
    }
    public subscript(kind: MediaKind) -> UInt64 {
        get { kind == .audio ? audio : video }
        set { if kind == .audio { audio = newValue } else { video = newValue } }
    }
}

/// Router-wide packet counters, named after DESIGN.md's metrics. Plain
/// integers in fixed fields (no arrays: a copy the worker keeps for deltas
/// must never make the next increment copy-on-write), read off the worker
/// thread's own router and added to the process metrics.
public struct RouterCounters: Sendable, Equatable {
    /// `vroom_packets_received_total{kind}`: RTP packets from publishers
    /// that reached a receiver.
    public var packetsReceived = KindCounts()
    /// `vroom_packets_forwarded_total{kind}`: copies sent to subscribers
    /// (retransmissions excluded).
    public var packetsForwarded = KindCounts()
    /// `vroom_bytes_forwarded_total{kind}`.
    public var bytesForwarded = KindCounts()
    /// `vroom_packets_dropped_total{reason}`: read with `dropped(_:)`.
    var drops = DropCounts()
    /// `vroom_nack_received_total`: sequence numbers subscribers asked for.
    public var nackReceived: UInt64 = 0
    /// `vroom_retransmissions_total`: packets resent from the history.
    public var retransmissions: UInt64 = 0
    /// NACKed packets no longer (or never) in the history.
    public var nackMisses: UInt64 = 0
    /// `vroom_pli_sent_total`: keyframe requests sent to publishers.
    public var pliSent: UInt64 = 0
    /// NACKs the router sent to publishers for packets it missed.
    public var nackSent: UInt64 = 0
    /// RTCP compound packets received, and ones refused as malformed.
    public var rtcpReceived: UInt64 = 0
    /// RTCP packets sent (SR, RR, PLI, NACK, transport-cc feedback).
    public var rtcpSent: UInt64 = 0
    /// Transport-cc feedback packets sent to publishers.
    public var transportCCFeedbackSent: UInt64 = 0
    /// `vroom_probe_packets_total`: bandwidth probe packets (padding)
    /// sent to subscribers.
    public var probePacketsSent: UInt64 = 0
    /// `vroom_layer_switches_total`: spatial or temporal layer changes of
    /// DownTracks.
    public var layerSwitches: UInt64 = 0
    /// `vroom_pacer_queue_delay_seconds` (a summary): packets a pacer held
    /// back and sent later, and their total wait in nanoseconds.
    public var pacerHeldPackets: UInt64 = 0
    public var pacerDelayNanoseconds: UInt64 = 0
    /// `vroom_subscriber_estimate_bps`.
    public var subscriberEstimates = EstimateHistogram()

    public init() {}

    /// Drops counted for `reason`.
    public func dropped(_ reason: DropReason) -> UInt64 { drops[reason] }

    @inline(__always)
    mutating func drop(_ reason: DropReason) { drops[reason] &+= 1 }
}

/// One counter per `DropReason`, in fields.
struct DropCounts: Sendable, Equatable {
    var malformed: UInt64 = 0, unknownSSRC: UInt64 = 0, unknownTransport: UInt64 = 0, disabled: UInt64 = 0
    var paused: UInt64 = 0, padding: UInt64 = 0, rtxProbe: UInt64 = 0, duplicate: UInt64 = 0
    var tooOld: UInt64 = 0, waitingForKeyframe: UInt64 = 0, noSlot: UInt64 = 0, tooLarge: UInt64 = 0
    var unknownRID: UInt64 = 0, pacerQueue: UInt64 = 0

    subscript(reason: DropReason) -> UInt64 {
        get {
            switch reason {
            case .malformed: malformed
            case .unknownSSRC: unknownSSRC
            case .unknownTransport: unknownTransport
            case .disabled: disabled
            case .paused: paused
            case .padding: padding
            case .rtxProbe: rtxProbe
            case .duplicate: duplicate
            case .tooOld: tooOld
            case .waitingForKeyframe: waitingForKeyframe
            case .noSlot: noSlot
            case .tooLarge: tooLarge
            case .unknownRID: unknownRID
            case .pacerQueue: pacerQueue
            }
        }
        set {
            switch reason {
            case .malformed: malformed = newValue
            case .unknownSSRC: unknownSSRC = newValue
            case .unknownTransport: unknownTransport = newValue
            case .disabled: disabled = newValue
            case .paused: paused = newValue
            case .padding: padding = newValue
            case .rtxProbe: rtxProbe = newValue
            case .duplicate: duplicate = newValue
            case .tooOld: tooOld = newValue
            case .waitingForKeyframe: waitingForKeyframe = newValue
            case .noSlot: noSlot = newValue
            case .tooLarge: tooLarge = newValue
            case .unknownRID: unknownRID = newValue
            case .pacerQueue: pacerQueue = newValue
            }
        }
    }
}
