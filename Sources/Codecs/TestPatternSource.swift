/// A stream of `TestPattern` frames numbered 0, 1, 2, ... for a synthetic
/// video publisher. It redraws one luma buffer in place (no allocation when
/// the previous frame was already released, e.g. after encoding) and shares
/// one constant grey chroma buffer between all frames.
public struct TestPatternSource: Sendable {
    public let width: Int
    public let height: Int
    /// The number the next frame will carry.
    public private(set) var nextFrameNumber: UInt32 = 0

    private var luma: [UInt8]
    private let chroma: [UInt8]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        luma = [UInt8](repeating: TestPattern.black, count: self.width * self.height)
        chroma = [UInt8](repeating: 128, count: VideoFrame.chromaWidth(width) * VideoFrame.chromaHeight(height))
    }

    /// The next frame, stamped with its number and `timestamp` (the
    /// caller's wall-clock milliseconds; carried modulo 2^24).
    public mutating func nextFrame(timestamp: UInt32) -> (frame: VideoFrame, frameNumber: UInt32) {
        let number = nextFrameNumber
        nextFrameNumber &+= 1
        TestPattern.render(frameNumber: number, timestamp: timestamp, width: width, height: height, into: &luma)
        return (VideoFrame(width: width, height: height, y: luma, u: chroma, v: chroma), number)
    }
}
