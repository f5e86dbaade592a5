/// The `StreamAllocator`'s decision for one track of a subscriber
/// connection: the layer to forward, or switched off and why. The router
/// applies it (spatial target through `LayerSelector`'s switching rules,
/// temporal cap through `TemporalLayerFilter`).
public struct Allocation: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        /// Forward spatial layer `spatial` with temporal layers 0 through
        /// `temporal`.
        case forward(spatial: Int, temporal: Int)
        case switchedOff(SwitchOffReason)
    }

    public var track: TrackID
    public var decision: Decision
    /// What the decision is expected to cost, in bits/s (0 when off, or
    /// when no layer of the track is live).
    public var bitrate: Int
    /// Bit i set: spatial layer i is needed from the publisher for this
    /// subscriber (the forwarded one, and a paused one the allocator would
    /// pick if it were live); the router ORs these over subscribers for
    /// `publisherLayers`.
    public var neededLayers: UInt64

    public init(track: TrackID, decision: Decision, bitrate: Int, neededLayers: UInt64) {
        self.track = track
        self.decision = decision
        self.bitrate = bitrate
        self.neededLayers = neededLayers
    }
}
