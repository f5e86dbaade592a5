import Codecs

/// Decodes one subscribed video track and reads back what the sender drew:
/// frame numbers (which frames arrived) and capture times (latency).
/// Confined to the room's event loop.
final class RemoteVideoReceiver {
    enum Outcome {
        case decoded
        case skipped
        case needsKeyframe
    }

    private let decodes: Bool
    private var decoder: VP8Decoder?
    private var waitingForKeyframe = true
    private(set) var framesDecoded = 0
    private(set) var frameNumbers = Set<UInt32>()
    private(set) var firstFrameNumber: UInt32?
    private(set) var lastFrameNumber: UInt32?
    private(set) var latencies: [Double] = []
    /// Freezes of the frames shown: decoded ones, or assembled ones when
    /// this receiver does not decode.
    private(set) var freezes = FreezeDetector()
    /// Each size the decoded frames took, in order (the first frame's
    /// size, then every layer switch the server made).
    private(set) var sizeChanges: [DecodedSizeChange] = []
    /// Keep at most this many size changes (one every 5 s for 10 minutes
    /// is 120; a flapping server would be visible long before the cap).
    static let sizeChangeCapacity = 1000
    /// Keep at most this many latency samples (a 10-minute run at 30 fps).
    static let latencyCapacity = 18_000

    /// `frameNumbers` as ascending runs of consecutive numbers.
    var frameNumberRanges: [ClosedRange<UInt32>] {
        var ranges: [ClosedRange<UInt32>] = []
        for number in frameNumbers.sorted() {
            if let last = ranges.last, last.upperBound &+ 1 == number {
                ranges[ranges.count - 1] = last.lowerBound...number
            } else {
                ranges.append(number...number)
            }
        }
        return ranges
    }

    init(decodes: Bool) {
        self.decodes = decodes
    }

    func receive(_ frame: RemoteVideoFrame) -> Outcome {
        guard decodes else {
            freezes.frame(at: .now)
            return .skipped
        }
        if frame.followsLoss { waitingForKeyframe = true }
        if waitingForKeyframe && !frame.isKeyframe { return .needsKeyframe }
        do {
            if decoder == nil { decoder = try VP8Decoder() }
            guard let decoded = try decoder?.decode(frame.data) else { return .skipped }
            waitingForKeyframe = false
            framesDecoded += 1
            freezes.frame(at: .now)
            let size = VideoDimensions(width: decoded.width, height: decoded.height)
            if sizeChanges.last?.dimensions != size, sizeChanges.count < Self.sizeChangeCapacity {
                sizeChanges.append(DecodedSizeChange(dimensions: size, time: .now))
            }
            if let stamp = TestPattern.read(decoded) {
                if frameNumbers.insert(stamp.frameNumber).inserted {
                    if firstFrameNumber == nil { firstFrameNumber = stamp.frameNumber }
                    lastFrameNumber = max(lastFrameNumber ?? 0, stamp.frameNumber)
                    if latencies.count < Self.latencyCapacity { latencies.append(CaptureClock.latency(since: stamp.timestamp)) }
                }
            }
            return .decoded
        } catch {
            waitingForKeyframe = true
            return .needsKeyframe
        }
    }
}
