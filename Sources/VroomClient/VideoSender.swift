import Codecs
import Logging
import NIOCore

/// One published camera track's capture loop: every 1/frameRate s it draws
/// the next test-pattern frame (frame number and capture time in the
/// pixels), encodes it with VP8 and hands it to the media engine. Frames
/// are numbered only when sent, so a receiver that read numbers 0..<n saw
/// every frame. Confined to the room's event loop.
final class VideoSender {
    let track: LocalVideoTrack
    private var pattern: TestPatternSource
    private let encoder: VP8Encoder
    private var timer: PacedTimer?
    private var keyframeWanted = true
    /// Frames numbered so far: the next number to draw.
    var framesSent: Int { Int(pattern.nextFrameNumber) }
    /// Sending: published, connected, enabled and not interrupted.
    var isActive = false {
        didSet { if isActive && !oldValue { keyframeWanted = true } }
    }

    init(track: LocalVideoTrack) throws {
        self.track = track
        let options = track.source.options
        pattern = TestPatternSource(width: options.width, height: options.height)
        encoder = try VP8Encoder(
            VP8EncoderConfiguration(
                width: options.width, height: options.height, frameRate: options.frameRate, bitrate: options.bitrate))
    }

    func start(on eventLoop: any EventLoop, logger: Logger, send: @escaping (EncodedVideoFrame) -> Void) {
        let rate = max(1, track.source.options.frameRate)
        timer = PacedTimer(eventLoop: eventLoop, interval: .nanoseconds(1_000_000_000 / Int64(rate))) { [unowned self] _ in
            guard self.isActive else { return }
            let (frame, _) = self.pattern.nextFrame(timestamp: CaptureClock.stamp())
            do {
                guard let encoded = try self.encoder.encode(frame, forceKeyframe: self.keyframeWanted) else { return }
                if encoded.isKeyframe { self.keyframeWanted = false }
                send(encoded)
            } catch {
                logger.warning("VP8 encoder failed: \(error)")
            }
        }
    }

    func requestKeyframe() {
        keyframeWanted = true
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
