#if canImport(Glibc)
import Glibc
#endif
import Codecs
import Testing

@Test func dominantFrequencyOfCleanTones() throws {
    var random = SeededRandom(seed: 3)
    for _ in 0..<10 {
        let frequency = Double.random(in: 300...2000, using: &random)
        var tone = ToneSource(frequency: frequency, amplitude: 0.5)
        let tenth = (0..<5).flatMap { _ in tone.nextFrame() }  // 0.1 s
        let second = tenth + (0..<45).flatMap { _ in tone.nextFrame() }  // 1 s
        let short = try #require(AudioAnalysis.dominantFrequency(tenth))
        let long = try #require(AudioAnalysis.dominantFrequency(second))
        #expect(abs(short - frequency) < 2, "\(frequency) Hz over 0.1 s read as \(short)")
        #expect(abs(long - frequency) < 1, "\(frequency) Hz over 1 s read as \(long)")
    }
}

@Test func dominantFrequencyPicksTheStrongerToneAndMixesChannels() throws {
    var strong = ToneSource(frequency: 880, amplitude: 0.4, channels: 2)
    var weak = ToneSource(frequency: 500, amplitude: 0.1, channels: 2)
    var mixed: [Int16] = []
    for _ in 0..<10 { mixed += zip(strong.nextFrame(), weak.nextFrame()).map { $0 &+ $1 } }
    let measured = try #require(AudioAnalysis.dominantFrequency(mixed, channels: 2))
    #expect(abs(measured - 880) < 2)
    #expect(AudioAnalysis.dominantFrequency([Int16](repeating: 0, count: 48_000)) == nil)
    #expect(AudioAnalysis.dominantFrequency(Array(mixed.prefix(1000))) == nil)  // under 50 ms
}

@Test func audioLevelFollowsRFC6464() {
    #expect(AudioAnalysis.audioLevel([Int16](repeating: 0, count: 960)) == 127)
    #expect(AudioAnalysis.audioLevel([]) == 127)
    var full = ToneSource(frequency: 1000, amplitude: 1)
    #expect(AudioAnalysis.audioLevel(full.nextFrame()) == 3)  // sine RMS is -3 dBov
    var half = ToneSource(frequency: 1000, amplitude: 0.5)
    #expect(AudioAnalysis.audioLevel(half.nextFrame()) == 9)  // 6 dB lower
    #expect(AudioAnalysis.audioLevel([Int16](repeating: .min, count: 960)) == 0)  // full-scale square
    #expect(AudioAnalysis.audioLevel([Int16](repeating: 1, count: 960)) == 90)  // 1/32768: -90.3 dBov
}

@Test func toneIsPhaseContinuousAcrossFrames() {
    var tone = ToneSource(frequency: 440, amplitude: 0.5, channels: 2)
    let samples = (0..<3).flatMap { _ in tone.nextFrame() }
    #expect(samples.count == 3 * 1920)
    var worst = 0
    for index in 0..<(3 * 960) {
        let expected = Int((0.5 * 32767 * sin(2 * Double.pi * 440 * Double(index) / 48_000)).rounded())
        worst = max(worst, abs(Int(samples[2 * index]) - expected))
        #expect(samples[2 * index] == samples[2 * index + 1])
    }
    #expect(worst <= 1)
}
