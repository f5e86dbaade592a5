#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sine tone in 20 ms frames of 48 kHz 16-bit PCM, phase continuous
/// across frames: a synthetic microphone whose frequency names the sender.
public struct ToneSource: Sendable {
    public let frequency: Double
    public let amplitude: Double
    public let channels: Int

    private var phase: Double = 0
    private let step: Double

    /// `amplitude` is a fraction of full scale, clamped to 0...1; `channels`
    /// 1 or 2 (more are clamped) gets the same signal on each, interleaved.
    public init(frequency: Double, amplitude: Double, channels: Int = 1) {
        self.frequency = frequency
        self.amplitude = min(1, max(0, amplitude))
        self.channels = min(2, max(1, channels))
        step = 2 * Double.pi * frequency / Double(OpusEncoder.sampleRate)
    }

    /// The next 20 ms: 960 samples per channel, interleaved.
    public mutating func nextFrame() -> [Int16] {
        let frames = OpusEncoder.frameSamples
        let channels = self.channels
        let scale = amplitude * Double(Int16.max)
        var phase = self.phase
        let step = self.step
        let samples = [Int16](unsafeUninitializedCapacity: frames * channels) { buffer, count in
            for index in 0..<frames {
                let value = Int16((scale * sin(phase)).rounded())
                for channel in 0..<channels { buffer[index * channels + channel] = value }
                phase += step
            }
            count = frames * channels
        }
        // Keep the phase small so precision does not drift over hours.
        self.phase = phase.truncatingRemainder(dividingBy: 2 * Double.pi)
        return samples
    }
}
