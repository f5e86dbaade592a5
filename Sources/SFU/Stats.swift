/// Per-track figures for stats and network quality. Read off the worker
/// thread's router by the worker (`Router.receiverStats`, `downTrackStats`).
public struct ReceiverStats: Sendable, Equatable {
    public var packets: UInt64 = 0
    /// Payload-and-header bytes of received RTP.
    public var bytes: UInt64 = 0
    /// Cumulative loss of the current source (RFC 3550 A.3).
    public var lost: Int32 = 0
    /// The fraction lost in the last RR interval, in 1/256.
    public var fractionLost: UInt8 = 0
    /// Interarrival jitter, in RTP timestamp units and in seconds.
    public var jitter: UInt32 = 0
    public var jitterSeconds: Double = 0
    /// NACKs the router sent for this track, and sequence numbers in them.
    public var nacksSent: UInt64 = 0
    /// Keyframe requests (PLI) sent to the publisher.
    public var plisSent: UInt64 = 0
    public var keyframes: UInt64 = 0
    public var paddingDropped: UInt64 = 0
    public var rtxProbesDropped: UInt64 = 0
    public var duplicates: UInt64 = 0
    /// Source (SSRC) changes seen: publisher restarts.
    public var sourceChanges: UInt64 = 0
    public init() {}
}

/// What one subscriber got of one track, and what it reported back.
public struct DownTrackStats: Sendable, Equatable {
    public var packets: UInt64 = 0
    public var bytes: UInt64 = 0
    /// NACKed sequence numbers, retransmissions sent for them, misses.
    public var nacks: UInt64 = 0
    public var retransmissions: UInt64 = 0
    public var nackMisses: UInt64 = 0
    /// PLI and FIR from the subscriber.
    public var plisReceived: UInt64 = 0
    public var firsReceived: UInt64 = 0
    /// From the subscriber's last receiver report block on this SSRC.
    public var fractionLost: UInt8 = 0
    public var lost: Int32 = 0
    public var jitter: UInt32 = 0
    public var jitterSeconds: Double = 0
    /// Round-trip time from the RR's LSR/DLSR against our SR, in seconds.
    public var roundTripTime: Double?
    public var sendersReportsSent: UInt64 = 0
    public var dropped: UInt64 = 0
    /// The layer forwarded now (PROTOCOL.md 7): the simulcast layer's RID
    /// (nil for a track published without simulcast) and the VP8 temporal
    /// layer (nil when the stream has none); nil before the first packet
    /// and while switched off.
    public var layer: ForwardedLayer?
    public var switchedOff = false
    public var switchOffReason: SwitchOffReason?
    /// Spatial or temporal layer changes so far.
    public var layerSwitches: UInt64 = 0
    /// Packets of VP8 temporal layers above the DownTrack's cap, left out
    /// (the subscriber's numbering closes up behind them).
    public var temporalSkipped: UInt64 = 0
    public init() {}
}

/// The layer a DownTrack forwards.
public struct ForwardedLayer: Sendable, Equatable, Hashable {
    /// The simulcast layer's RID; nil when the track has one layer.
    public var rid: String?
    /// The spatial layer's index, 0 = lowest.
    public var spatial: Int
    /// The highest VP8 temporal layer (TID) forwarded; nil: all (no TID).
    public var temporal: Int?

    public init(rid: String?, spatial: Int, temporal: Int?) {
        self.rid = rid
        self.spatial = spatial
        self.temporal = temporal
    }
}
