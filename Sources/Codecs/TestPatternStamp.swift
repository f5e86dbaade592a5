/// What a `TestPattern` frame carries: its frame number and the sender's
/// wall-clock milliseconds, each modulo 2^24 (`TestPattern.frameNumberBits`,
/// `TestPattern.timestampBits`).
public struct TestPatternStamp: Sendable, Equatable, Hashable {
    /// The frame number modulo 2^24.
    public var frameNumber: UInt32
    /// The sender's timestamp (milliseconds) modulo 2^24.
    public var timestamp: UInt32

    public init(frameNumber: UInt32, timestamp: UInt32) {
        self.frameNumber = frameNumber
        self.timestamp = timestamp
    }
}
