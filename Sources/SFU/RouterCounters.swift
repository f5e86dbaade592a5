/// Router-wide packet counters, named after DESIGN.md's metrics. Plain
/// integers that the worker reads off its own thread's router and adds to
/// the process metrics; nothing here allocates after `init`.
public struct RouterCounters: Sendable, Equatable {
    /// `vroom_packets_received_total{kind}`: RTP packets from publishers
    /// that reached a receiver (index `MediaKind.rawValue`).
    public var packetsReceived: [UInt64] = [0, 0]
    /// `vroom_packets_forwarded_total{kind}`: copies sent to subscribers
    /// (retransmissions excluded).
    public var packetsForwarded: [UInt64] = [0, 0]
    /// `vroom_bytes_forwarded_total{kind}`.
    public var bytesForwarded: [UInt64] = [0, 0]
    /// `vroom_packets_dropped_total{reason}`, indexed by `DropReason.rawValue`.
    public var dropped: [UInt64] = Array(repeating: 0, count: DropReason.allCases.count)
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

    public init() {}

    /// Drops counted for `reason`.
    public func dropped(_ reason: DropReason) -> UInt64 { dropped[reason.rawValue] }

    @inline(__always)
    mutating func drop(_ reason: DropReason) { dropped[reason.rawValue] &+= 1 }
}
