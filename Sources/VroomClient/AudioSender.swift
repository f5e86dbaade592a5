import Codecs
import Logging
import NIOCore

/// One published microphone track's capture loop: every 20 ms the next
/// frame of its tone, Opus-encoded, with its RFC 6464 level (which feeds
/// the server's dominant-speaker detection). Confined to the room's event loop.
final class AudioSender {
    let track: LocalAudioTrack
    private var tone: ToneSource
    private let encoder: OpusEncoder
    private var timer: PacedTimer?
    var isActive = false

    init(track: LocalAudioTrack) throws {
        self.track = track
        tone = ToneSource(frequency: track.options.toneFrequency, amplitude: track.options.amplitude)
        encoder = try OpusEncoder(channels: 1, bitrate: track.options.bitrate)
    }

    func start(on eventLoop: any EventLoop, logger: Logger, send: @escaping (_ opus: [UInt8], _ level: UInt8) -> Void) {
        timer = PacedTimer(eventLoop: eventLoop, interval: .milliseconds(20)) { [unowned self] _ in
            // The tone runs on while paused, as a microphone would.
            let samples = self.tone.nextFrame()
            guard self.isActive else { return }
            do {
                let packet = try self.encoder.encode(samples)
                send(packet, AudioAnalysis.audioLevel(samples))
            } catch {
                logger.warning("Opus encoder failed: \(error)")
            }
        }
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
