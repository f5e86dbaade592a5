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

/// In-band FEC really recovers: for a packet lost in the middle of a tone,
/// the audio rebuilt from the next packet's FEC data is far closer to what
/// the lost packet decodes to than concealment is. Measured here: 10x
/// better at all 20 lost positions (300x and 850x at two spot checks); the
/// bound asks for half of them (a packet without FEC data ties with
/// concealment).
@Test func fecRebuildsALostPacketBetterThanConcealment() throws {
    let encoder = try OpusEncoder(channels: 1, bitrate: 32_000)
    var tone = ToneSource(frequency: 440, amplitude: 0.3)
    let packets = try (0..<40).map { _ in try encoder.encode(tone.nextFrame()) }
    func squaredError(_ a: [Int16], _ b: [Int16]) -> Double {
        var sum = 0.0
        for index in 0..<min(a.count, b.count) {
            let difference = Double(a[index]) - Double(b[index])
            sum += difference * difference
        }
        return sum
    }
    var improved = 0
    let lostPackets = Array(8..<28)
    for lost in lostPackets {
        let reference = try OpusDecoder(), recovering = try OpusDecoder(), concealing = try OpusDecoder()
        for packet in packets[..<lost] {
            _ = try reference.decode(packet)
            _ = try recovering.decode(packet)
            _ = try concealing.decode(packet)
        }
        let expected = try reference.decode(packets[lost])
        let recovered = try recovering.decodeFEC(from: packets[lost + 1])
        let concealed = concealing.decodeMissing()
        #expect(recovered.count == 960 && concealed.count == 960)
        if squaredError(expected, recovered) * 10 < squaredError(expected, concealed) { improved += 1 }
    }
    #expect(improved >= lostPackets.count / 2, "FEC beat concealment for \(improved) of \(lostPackets.count)")
}
