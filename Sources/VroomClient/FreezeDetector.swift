/// Counts video freezes the way WebRTC's `VideoQualityObserver` does (the
/// `freezeCount` of its inbound-rtp stats): a gap between two shown frames
/// is a freeze when it is at least max(3 x the mean gap, mean + 150 ms),
/// the mean taken over the last 30 gaps that were not freezes, once there
/// are 5 of them.
struct FreezeDetector: Sendable {
    /// libwebrtc's kAvgInterframeDelaysWindowSizeFrames and kMinFrameSamplesToDetectFreeze.
    static let window = 30
    static let minimumSamples = 5
    static let minimumExtra: Duration = .milliseconds(150)

    private var gaps: [Duration] = []
    private var next = 0
    private var last: ContinuousClock.Instant?
    private(set) var freezes = 0
    private(set) var totalFreezeDuration: Duration = .zero

    /// A frame was shown (decoded, or assembled when not decoding) at `time`.
    mutating func frame(at time: ContinuousClock.Instant) {
        defer { last = time }
        guard let last else { return }
        let gap = time - last
        if gaps.count >= Self.minimumSamples {
            let mean = gaps.reduce(Duration.zero, +) / gaps.count
            if gap >= max(mean * 3, mean + Self.minimumExtra) {
                freezes += 1
                totalFreezeDuration += gap
                return
            }
        }
        if gaps.count < Self.window {
            gaps.append(gap)
        } else {
            gaps[next] = gap
            next = (next + 1) % Self.window
        }
    }
}
