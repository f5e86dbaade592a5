/// A remote video track's decoded frames changed size: the server now
/// forwards another simulcast layer (or the first frame arrived).
public struct DecodedSizeChange: Sendable, Hashable {
    /// The new frames' size.
    public var dimensions: VideoDimensions
    /// When the first frame of that size was decoded.
    public var time: ContinuousClock.Instant

    public init(dimensions: VideoDimensions, time: ContinuousClock.Instant) {
        self.dimensions = dimensions
        self.time = time
    }
}
