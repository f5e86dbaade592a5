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

    /// What `Room.statistics()` reports as this track's frequency: the last
    /// analysis while it holds (it saw a full second and fewer than 50
    /// frames, 1 s, came since), else the samples to analyse. The analysis
    /// (50-120 ms on a loaded core in a debug build) runs off the room's
    /// event loop, which also stamps the arrival of every packet for the
    /// server's transport-cc: run there, each stall made the server see a
    /// 100 ms queue once a second (issue 13's load test).
    func frequencyReading() -> FrequencyReading {
        if let analyzed, analyzed.fullWindow, framesDecoded - analyzed.frames < 50 {
            return .analyzed(analyzed.frequency)
        }
        return .pending(FrequencyAnalysis(
            samples: Array(recent.suffix(Self.window)), frames: framesDecoded, fullWindow: recent.count >= Self.window))
    }

    /// Keeps the result of an analysis `frequencyReading` asked for.
    func store(_ frequency: Double?, of analysis: FrequencyAnalysis) {
        if let analyzed, analyzed.frames > analysis.frames { return }
        analyzed = (analysis.frames, analysis.fullWindow, frequency)
    }
}

/// A track's frequency for the statistics: known, or still to analyse.
enum FrequencyReading: Sendable {
    case analyzed(Double?)
    case pending(FrequencyAnalysis)
}

/// The last second of a track's decoded audio, to analyse off the event loop.
struct FrequencyAnalysis: Sendable {
    let samples: [Int16]
    /// Frames decoded when the samples were taken.
    let frames: Int
    let fullWindow: Bool

    /// The strongest frequency in Hz (`AudioAnalysis.dominantFrequency`).
    func run() -> Double? { AudioAnalysis.dominantFrequency(samples) }
}
