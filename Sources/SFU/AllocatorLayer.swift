/// One spatial layer of a subscribed video track as the `StreamAllocator`
/// sees it: its size, whether it is live (`LayerSelector.liveThreshold`),
/// and what it costs with each number of temporal layers.
public struct AllocatorLayer: Equatable, Sendable {
    /// The spatial layer's index, lowest first (the router's layer index).
    public var spatial: Int
    public var width: Int
    public var height: Int
    public var isLive: Bool
    /// Bits/s when forwarding temporal layers 0 through i, lowest first:
    /// one entry per temporal layer, one entry for a stream without them.
    /// For a layer that is not live, its last measured or declared bitrate
    /// (the allocator forwards only live layers, but asks the publisher for
    /// a paused one when it would fit).
    public var temporalBitrates: [Int]

    /// All temporal layers together.
    public var bitrate: Int { temporalBitrates.last ?? 0 }

    /// Measured bitrates per temporal layer (cumulative, lowest first).
    public init(spatial: Int, width: Int, height: Int, temporalBitrates: [Int], isLive: Bool = true) {
        precondition(!temporalBitrates.isEmpty)
        self.spatial = spatial
        self.width = width
        self.height = height
        self.isLive = isLive
        self.temporalBitrates = temporalBitrates
    }

    /// Only the whole layer's bitrate measured: each temporal layer's share
    /// is assumed from `assumedTemporalShares`.
    public init(spatial: Int, width: Int, height: Int, bitrate: Int, temporalLayers: Int = 3, isLive: Bool = true) {
        let shares = Self.assumedTemporalShares[min(max(temporalLayers, 1), 4) - 1]
        self.init(
            spatial: spatial, width: width, height: height,
            temporalBitrates: shares.map { bitrate * $0 / 1000 }, isLive: isLive)
    }

    /// Per-mille of the whole layer's bitrate with temporal layers 0...i,
    /// for 1 to 4 temporal layers. libwebrtc's VP8 encoder splits three
    /// layers 40/20/40 (TL0 at 1/4 of the frames carries 40%, TL0+TL1 at 1/2
    /// 60%); two layers 60/40; four layers are not split by libwebrtc for
    /// VP8 in practice, 25/15/20/40 is an interpolation.
    public static let assumedTemporalShares: [[Int]] = [
        [1000], [600, 1000], [400, 600, 1000], [250, 400, 600, 1000],
    ]
}
