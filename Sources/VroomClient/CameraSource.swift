import Codecs

/// How a camera captures: the synthetic test-pattern camera of the SDK
/// (Linux has no camera API the SDK could drive). Frames carry their frame
/// number and capture time in the pixels (`Codecs.TestPattern`).
public struct CameraSourceOptions: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var frameRate: Int
    /// Target VP8 bitrate, bit/s.
    public var bitrate: Int

    public init(width: Int = 320, height: Int = 240, frameRate: Int = 30, bitrate: Int = 300_000) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
    }
}

/// A video source for a `LocalVideoTrack`. A camera interruption (see
/// `SystemNotification`) pauses what the track sends without unpublishing it.
public final class CameraSource: Sendable {
    public let options: CameraSourceOptions

    public init(options: CameraSourceOptions = CameraSourceOptions()) {
        self.options = options
    }
}
