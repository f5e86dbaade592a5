#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measurements of received PCM: which tone it carries and how loud it is.
public enum AudioAnalysis {
    /// The strongest frequency (Hz) in `samples` (interleaved, mixed down
    /// to mono), or nil for under 50 ms of audio or near silence.
    ///
    /// A Goertzel scan: a coarse pass every 10 Hz from 50 Hz to 4 kHz over
    /// the first 0.1 s (whose Hann main lobe is +-20 Hz wide, so the grid
    /// cannot miss a tone), then 0.5 Hz steps +-15 Hz around the best over
    /// up to 2 s, refined by a parabola through the top three: within a
    /// hertz for a clean tone, within 5 Hz through Opus.
    public static func dominantFrequency(_ samples: [Int16], channels: Int = 1, sampleRate: Int = 48_000) -> Double? {
        let channels = max(1, channels)
        let frames = samples.count / channels
        guard sampleRate > 0, frames >= sampleRate / 20 else { return nil }
        let used = min(frames, 2 * sampleRate)
        var mono = [Double](repeating: 0, count: used)
        var energy = 0.0
        for frame in 0..<used {
            var sum = 0
            for channel in 0..<channels { sum += Int(samples[frame * channels + channel]) }
            let value = Double(sum) / Double(channels)
            mono[frame] = value
            energy += value * value
        }
        // Below about -80 dBov RMS there is no tone to speak of.
        guard energy / Double(used) > 10 else { return nil }

        let nyquist = Double(sampleRate) / 2
        let coarseCount = min(used, sampleRate / 10)
        let coarse = windowed(mono, count: coarseCount)
        var best = 0.0
        var bestPower = -1.0
        var frequency = 50.0
        while frequency <= min(4000, nyquist - 20) {
            let power = goertzel(coarse, frequency: frequency, sampleRate: sampleRate)
            if power > bestPower { bestPower = power; best = frequency }
            frequency += 10
        }

        let fine = windowed(mono, count: used)
        let step = 0.5
        let candidates = (-30...30).map { best + Double($0) * step }
        let powers = candidates.map { goertzel(fine, frequency: $0, sampleRate: sampleRate) }
        guard let top = powers.indices.max(by: { powers[$0] < powers[$1] }) else { return nil }
        guard top > 0, top < powers.count - 1 else { return candidates[top] }
        let (left, middle, right) = (powers[top - 1], powers[top], powers[top + 1])
        let denominator = left - 2 * middle + right
        let offset = denominator == 0 ? 0 : 0.5 * (left - right) / denominator
        return candidates[top] + offset * step
    }

    /// The RFC 6464 audio level: minus the RMS level in dBov (0 dBov is the
    /// RMS of a full-scale square wave), 0 the loudest ... 127 silence,
    /// rounded and clamped. A full-scale sine is 3.
    public static func audioLevel(_ samples: [Int16]) -> UInt8 {
        guard !samples.isEmpty else { return 127 }
        var sum = 0.0
        for sample in samples {
            let value = Double(sample) / 32768
            sum += value * value
        }
        let rms = (sum / Double(samples.count)).squareRoot()
        guard rms > 0 else { return 127 }
        let level = -20 * log10(rms)
        return UInt8(min(127, max(0, level.rounded())))
    }

    /// The first `count` samples times a Hann window.
    private static func windowed(_ samples: [Double], count: Int) -> [Double] {
        let scale = 2 * Double.pi / Double(max(1, count - 1))
        return (0..<count).map { samples[$0] * (0.5 - 0.5 * cos(scale * Double($0))) }
    }

    /// The power at `frequency` (Goertzel algorithm: one DFT bin at any
    /// frequency, no FFT size constraint).
    private static func goertzel(_ samples: [Double], frequency: Double, sampleRate: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var s1 = 0.0
        var s2 = 0.0
        samples.withUnsafeBufferPointer { buffer in
            for sample in buffer {
                let s0 = sample + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }
}
