import Codecs
import Logging
import NIOCore

/// One published camera track's capture loop: every 1/frameRate s it draws
/// the next test-pattern frame (frame number and capture time in the
/// pixels), encodes it with VP8 and hands it to the media engine. Frames
/// are numbered only when sent, so a receiver that read numbers 0..<n saw
/// every frame. Confined to the room's event loop.
///
/// A simulcast track has one libvpx encoder per layer (1/4, 1/2 and full
/// scale, lowest first); every layer shows the same frame number and
/// capture time, so a server may switch a subscriber between layers and
/// the receiver still reads one numbered sequence. A layer the server
/// says nobody needs (`publisherLayers`) is paused: not drawn, not
/// encoded, no packets; it restarts with a keyframe.
final class VideoSender {
    let track: LocalVideoTrack
    let layers: [VideoLayer]
    private var pattern: TestPatternSource
    private let encoders: [VP8Encoder]
    private var timer: PacedTimer?
    private var keyframeWanted: [Bool]
    /// Per layer: the server accepted it and someone needs it.
    private var running: [Bool]
    private var accepted: [String]?
    private var needed: Set<String>?
    /// Frames numbered so far: the next number to draw.
    var framesSent: Int { Int(pattern.nextFrameNumber) }
    /// Frames each layer's encoder has produced.
    var framesEncoded: [Int] { encoders.map(\.framesEncoded) }
    /// Sending: published, connected, enabled and not interrupted.
    var isActive = false {
        didSet {
            if isActive && !oldValue { keyframeWanted = layers.map { _ in true } }
        }
    }

    init(track: LocalVideoTrack, simulcast: Bool) throws {
        self.track = track
        let options = track.source.options
        layers = VideoLayer.layers(for: options, simulcast: simulcast)
        pattern = TestPatternSource(width: options.width, height: options.height)
        encoders = try layers.map { layer in
            try VP8Encoder(
                VP8EncoderConfiguration(
                    width: layer.width, height: layer.height, frameRate: options.frameRate, bitrate: layer.bitrate))
        }
        keyframeWanted = layers.map { _ in true }
        running = layers.map { _ in true }
    }

    /// The RIDs the publish answer accepted (nil: all, or a one-layer track).
    func setAcceptedLayers(_ rids: [String]?) {
        accepted = rids
        updateRunning()
    }

    /// `publisherLayers`: the RIDs some subscriber needs; the others pause.
    func setNeededLayers(_ rids: [String]) {
        needed = Set(rids)
        updateRunning()
    }

    /// Which layers encode now (index order, lowest first).
    var runningLayers: [Bool] { running }

    private func updateRunning() {
        for (index, layer) in layers.enumerated() {
            guard let rid = layer.rid else { continue }
            let runs = (accepted?.contains(rid) ?? true) && (needed?.contains(rid) ?? true)
            // A layer that comes back starts with a keyframe: its receivers
            // (and the server's layer switch) have nothing to decode from.
            if runs && !running[index] { keyframeWanted[index] = true }
            running[index] = runs
        }
    }

    func start(on eventLoop: any EventLoop, logger: Logger, send: @escaping (_ layer: Int, EncodedVideoFrame) -> Void) {
        let rate = max(1, track.source.options.frameRate)
        timer = PacedTimer(eventLoop: eventLoop, interval: .nanoseconds(1_000_000_000 / Int64(rate))) { [unowned self] _ in
            guard self.isActive else { return }
            do {
                for (layer, frame) in try self.captureFrame(timestamp: CaptureClock.stamp()) { send(layer, frame) }
            } catch {
                logger.warning("VP8 encoder failed: \(error)")
            }
        }
    }

    /// Draws the next frame and encodes it on every running layer: what
    /// the timer does each tick (tests call it directly).
    func captureFrame(timestamp: UInt32) throws(CodecError) -> [(layer: Int, frame: EncodedVideoFrame)] {
        guard running.contains(true) else { return [] }
        let (full, number) = pattern.nextFrame(timestamp: timestamp)
        var output: [(layer: Int, frame: EncodedVideoFrame)] = []
        for (index, layer) in layers.enumerated() where running[index] {
            // The synthetic camera draws each layer at its own size (the
            // same stamp): scaling the full picture down would blur the
            // stamp's blocks, which a receiver of a small layer must read.
            let frame =
                layer.width == full.width && layer.height == full.height
                ? full : TestPattern.draw(frameNumber: number, timestamp: timestamp, width: layer.width, height: layer.height)
            guard let encoded = try encoders[index].encode(frame, forceKeyframe: keyframeWanted[index]) else { continue }
            if encoded.isKeyframe { keyframeWanted[index] = false }
            output.append((index, encoded))
        }
        return output
    }

    /// A PLI or FIR on `layer`'s SSRC: a keyframe on that layer only.
    func requestKeyframe(layer: Int) {
        guard keyframeWanted.indices.contains(layer) else { return }
        keyframeWanted[layer] = true
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
