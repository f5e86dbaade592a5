import Codecs
import Testing

/// Encodes `seconds` of a tone and decodes it again.
private func opusRoundTrip(frequency: Double, channels: Int, seconds: Double) throws -> [Int16] {
    let encoder = try OpusEncoder(channels: channels, bitrate: 32_000)
    let decoder = try OpusDecoder(channels: channels)
    var tone = ToneSource(frequency: frequency, amplitude: 0.3, channels: channels)
    var decoded: [Int16] = []
    for _ in 0..<Int(seconds * 50) {
        let packet = try encoder.encode(tone.nextFrame())
        #expect(packet.count > 2 && packet.count < 400)
        let pcm = try decoder.decode(packet)
        #expect(pcm.count == 960 * channels)
        decoded += pcm
    }
    return decoded
}

@Test(arguments: [(440.0, 1), (660.0, 1), (660.0, 2)])
func opusKeepsTheToneFrequency(frequency: Double, channels: Int) throws {
    let decoded = try opusRoundTrip(frequency: frequency, channels: channels, seconds: 1)
    // Skip the first 100 ms (the codec's start-up); measure the rest.
    let measured = try #require(AudioAnalysis.dominantFrequency(Array(decoded[(4800 * channels)...]), channels: channels))
    #expect(abs(measured - frequency) < 5, "measured \(measured) Hz")
    // And the level survives: 0.3 of full scale is about -13.5 dBov RMS.
    let level = Int(AudioAnalysis.audioLevel(Array(decoded[(4800 * channels)...])))
    #expect((12...16).contains(level), "level \(level)")
}

@Test func lossIsConcealedOrRecoveredFromFEC() throws {
    let encoder = try OpusEncoder(channels: 1, bitrate: 32_000)
    let decoder = try OpusDecoder(channels: 1)
    var tone = ToneSource(frequency: 440, amplitude: 0.3)
    let packets = try (0..<50).map { _ in try encoder.encode(tone.nextFrame()) }
    var decoded: [Int16] = []
    var index = 0
    while index < packets.count {
        if index % 5 == 3 && index + 1 < packets.count {
            // Packet `index` is lost: recover it from the next one's FEC, then
            // decode the next one normally.
            decoded += try decoder.decodeFEC(from: packets[index + 1])
            decoded += try decoder.decode(packets[index + 1])
            index += 2
        } else if index % 7 == 6 {
            decoded += decoder.decodeMissing()  // lost with nothing to recover it
            index += 1
        } else {
            decoded += try decoder.decode(packets[index])
            index += 1
        }
    }
    #expect(decoded.count == 50 * 960)
    let measured = try #require(AudioAnalysis.dominantFrequency(Array(decoded[4800...])))
    #expect(abs(measured - 440) < 5, "measured \(measured) Hz")

    // Concealment before any packet and after a stream: silence-ish, 20 ms.
    let fresh = try OpusDecoder(channels: 2)
    #expect(fresh.decodeMissing().count == 1920)
}

@Test func badOpusInputThrows() throws {
    #expect(throws: CodecError.self) { try OpusEncoder(channels: 3) }
    #expect(throws: CodecError.self) { try OpusDecoder(channels: 0) }
    #expect(throws: CodecError.self) { try OpusEncoder(channels: 1, bitrate: 10) }
    let encoder = try OpusEncoder(channels: 2)
    #expect(throws: CodecError.self) { try encoder.encode([Int16](repeating: 0, count: 960)) }
    let decoder = try OpusDecoder(channels: 1)
    #expect(throws: CodecError.self) { try decoder.decode([]) }
    // TOC code 3 (RFC 6716 section 3.2.5) needs a frame-count byte.
    #expect(throws: CodecError.opus(code: -4, message: "corrupted stream")) { try decoder.decode([0x03]) }
    encoder.setBitrate(64_000)
    #expect(encoder.bitrate == 64_000)
}
