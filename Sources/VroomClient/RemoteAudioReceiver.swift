import Codecs

/// Decodes one subscribed audio track and keeps its last second, to tell
/// which tone (which sender) it carries. Confined to the room's event loop.
final class RemoteAudioReceiver {
    private let decodes: Bool
    private var decoder: OpusDecoder?
    private var recent: [Int16] = []
    private(set) var framesDecoded = 0
    static let window = 48_000

    init(decodes: Bool) {
        self.decodes = decodes
    }

    func receive(_ frame: RemoteAudioFrame) {
        guard decodes else { return }
        do {
            if decoder == nil { decoder = try OpusDecoder(channels: 1) }
            guard let samples = try decoder?.decode(frame.data) else { return }
            framesDecoded += 1
            recent.append(contentsOf: samples)
            if recent.count > 2 * Self.window { recent.removeFirst(recent.count - Self.window) }
        } catch {
            // A corrupt packet: Opus conceals the next one.
        }
    }

    /// The last analysis: after how many frames, over a full window or not.
    private var analyzed: (frames: Int, fullWindow: Bool, frequency: Double?)?

    /// The strongest frequency of the last second heard, in Hz. The
    /// analysis (tens of ms on a loaded core, on the room's event loop)
    /// runs again only when the last one saw less than a full second or
    /// 50 frames (1 s) have come since, not on every `Room.statistics()`
    /// call: tests and load testers poll statistics.
    func frequency() -> Double? {
        if let analyzed, analyzed.fullWindow, framesDecoded - analyzed.frames < 50 {
            return analyzed.frequency
        }
        let frequency = AudioAnalysis.dominantFrequency(Array(recent.suffix(Self.window)))
        analyzed = (framesDecoded, recent.count >= Self.window, frequency)
        return frequency
    }
}
