import Packets

/// One packet the server sent on a subscriber connection, as transport-wide
/// congestion-control feedback reports it (draft-holmer-rmcat-transport-
/// wide-cc-extensions-01), joined with what the server recorded when it
/// sent it: the input of the downlink `BandwidthEstimator` (issue 13).
public struct PacketFeedback: Equatable, Sendable {
    /// The transport-wide sequence number, unwrapped.
    public var sequence: UInt64
    /// Bytes on the wire (the SRTP packet).
    public var size: Int
    public var sendTime: MediaTime
    /// When it arrived, in nanoseconds on the receiver's own clock (the
    /// feedback's reference time plus deltas: only differences between
    /// arrivals mean anything); nil when the feedback says it was lost.
    public var arrival: Int64?
    /// The probe cluster it belonged to, if it was sent as a probe.
    public var probeCluster: Int?

    public init(sequence: UInt64, size: Int, sendTime: MediaTime, arrival: Int64?, probeCluster: Int? = nil) {
        self.sequence = sequence
        self.size = size
        self.sendTime = sendTime
        self.arrival = arrival
        self.probeCluster = probeCluster
    }
}
