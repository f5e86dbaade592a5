/// How a `VP8Encoder` is set up. The defaults are those of a real-time
/// WebRTC sender: CBR, error resilient, no look-ahead, fastest speed.
public struct VP8EncoderConfiguration: Sendable, Equatable {
    /// Picture size in pixels; every frame passed to `encode` must match.
    public var width: Int
    public var height: Int
    /// Frames per second: the rate control's time base (one tick a frame).
    public var frameRate: Int
    /// Target bitrate in bit/s (libvpx works in kbit/s; rounded, at least 1).
    public var bitrate: Int
    /// Largest distance between automatic keyframes, in frames. 3000 (100 s
    /// at 30 fps) means keyframes come mostly when asked for (a PLI).
    public var keyframeInterval: Int
    /// libvpx's error resilient mode: each frame decodable after loss of
    /// earlier non-reference state, as WebRTC senders use it.
    public var errorResilient: Bool
    /// `VP8E_SET_CPUUSED`, -16...16; negative values are the real-time speed
    /// presets, -12 is fast enough for many encoders on 2 cores (libvpx
    /// clamps values outside the range).
    public var cpuUsed: Int
    /// Encoder threads (libvpx allows 1...64); 1 because a load test runs
    /// many encoders at once.
    public var threads: Int
    /// `rc_dropframe_thresh`: buffer fullness (percent) under which libvpx
    /// may drop a frame to keep the rate; 0 never drops.
    public var frameDropThreshold: Int

    public init(
        width: Int,
        height: Int,
        frameRate: Int = 30,
        bitrate: Int = 300_000,
        keyframeInterval: Int = 3000,
        errorResilient: Bool = true,
        cpuUsed: Int = -12,
        threads: Int = 1,
        frameDropThreshold: Int = 0
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
        self.errorResilient = errorResilient
        self.cpuUsed = cpuUsed
        self.threads = threads
        self.frameDropThreshold = frameDropThreshold
    }
}
