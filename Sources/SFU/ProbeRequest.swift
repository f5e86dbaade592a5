import Packets

/// A burst the caller should send to test whether the link carries
/// `bitsPerSecond`: paced at that rate (padding, or resent packets, on top of
/// the media), every packet of it reported to `onPacketSent` with
/// `probeCluster: cluster`, until at least `minimumPackets` packets and
/// `minimumBytes` bytes have gone out. `duration` is how long that takes at
/// the target rate.
public struct ProbeRequest: Sendable, Equatable {
    public var cluster: Int
    public var bitsPerSecond: UInt64
    public var minimumPackets: Int
    public var minimumBytes: Int
    public var duration: MediaTime

    public init(cluster: Int, bitsPerSecond: UInt64, minimumPackets: Int, minimumBytes: Int, duration: MediaTime) {
        self.cluster = cluster
        self.bitsPerSecond = bitsPerSecond
        self.minimumPackets = minimumPackets
        self.minimumBytes = minimumBytes
        self.duration = duration
    }
}
