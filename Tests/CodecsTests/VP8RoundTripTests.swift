import Codecs
import Testing

/// What one encode+decode run of the test pattern produced.
private struct RunResult {
    var frames = 0
    var read = 0
    var unreadable = 0
    var wrong = 0
    var bytes = 0
    var keyframes: [Int] = []
}

/// Encodes `count` test-pattern frames at 30 fps, decodes each and reads
/// the stamp back, comparing with what was drawn.
private func roundTrip(width: Int, height: Int, bitrate: Int, count: Int = 60) throws -> RunResult {
    let encoder = try VP8Encoder(VP8EncoderConfiguration(width: width, height: height, frameRate: 30, bitrate: bitrate))
    let decoder = try VP8Decoder()
    var source = TestPatternSource(width: width, height: height)
    var result = RunResult()
    for index in 0..<count {
        // A wall clock past 2^24 ms, so the modulo shows.
        let timestamp = UInt32(1_700_000_000 &+ index * 33)
        let (frame, number) = source.nextFrame(timestamp: timestamp)
        #expect(number == UInt32(index))
        guard let encoded = try encoder.encode(frame) else { continue }
        result.frames += 1
        result.bytes += encoded.data.count
        if encoded.isKeyframe { result.keyframes.append(index) }
        let decoded = try #require(try decoder.decode(encoded.data))
        #expect(decoded.width == width && decoded.height == height)
        #expect(decoded.y.count == width * height && decoded.u.count == decoded.chromaWidth * decoded.chromaHeight)
        if let stamp = TestPattern.read(decoded) {
            result.read += 1
            if stamp != TestPatternStamp(frameNumber: number, timestamp: timestamp & 0xFF_FFFF) { result.wrong += 1 }
        } else {
            result.unreadable += 1
        }
    }
    return result
}

// Measured on this machine: every frame of each run reads back (0
// unreadable of 60). The bound allows 2 of 60 (3%) for another libvpx build;
// a wrong number is never allowed.
@Test(arguments: [
    (320, 240, 300_000),
    (640, 480, 800_000),
    (160, 120, 150_000),
])
func testPatternSurvivesVP8(width: Int, height: Int, bitrate: Int) throws {
    let result = try roundTrip(width: width, height: height, bitrate: bitrate)
    #expect(result.frames == 60)  // frame dropping is off by default
    #expect(result.wrong == 0)
    #expect(result.unreadable <= 2)
    #expect(result.read + result.unreadable == result.frames)
    #expect(result.keyframes == [0])  // keyframes come on request only
}

@Test func firstFrameIsAKeyframeAndKeyframesComeOnRequest() throws {
    let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240))
    var source = TestPatternSource(width: 320, height: 240)
    for index in 0..<20 {
        let frame = source.nextFrame(timestamp: UInt32(index * 33)).frame
        let encoded = try #require(try encoder.encode(frame, forceKeyframe: index == 12))
        let expectKeyframe = index == 0 || index == 12
        #expect(encoded.isKeyframe == expectKeyframe, "frame \(index)")
        // RFC 7741 section 4.3: the payload header's lowest bit P is 0 for a
        // keyframe, and a keyframe's bytes 3-5 are the start code 9d 01 2a.
        #expect(encoded.data[0] & 1 == (expectKeyframe ? 0 : 1), "frame \(index)")
        if expectKeyframe {
            #expect(Array(encoded.data[3..<6]) == [0x9D, 0x01, 0x2A])
            // Bytes 6-9: width and height, 14 bits each, little endian.
            #expect(Int(encoded.data[6]) | Int(encoded.data[7] & 0x3F) << 8 == 320)
            #expect(Int(encoded.data[8]) | Int(encoded.data[9] & 0x3F) << 8 == 240)
        }
    }
    #expect(encoder.framesEncoded == 20)
}

@Test func lowerBitrateMakesSmallerFrames() throws {
    let width = 640, height = 480
    let encoder = try VP8Encoder(VP8EncoderConfiguration(width: width, height: height, bitrate: 2_000_000))
    var source = TestPatternSource(width: width, height: height)
    func bytes(frames: Int) throws -> Int {
        var total = 0
        for _ in 0..<frames {
            total += try encoder.encode(source.nextFrame(timestamp: 0).frame)?.data.count ?? 0
        }
        return total
    }
    _ = try bytes(frames: 30)
    let high = try bytes(frames: 30)
    encoder.setBitrate(100_000)
    #expect(encoder.configuration.bitrate == 100_000)
    _ = try bytes(frames: 30)
    let low = try bytes(frames: 30)
    #expect(low < high)
}

@Test func corruptFramesThrowAndDoNotCrash() throws {
    let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240))
    var source = TestPatternSource(width: 320, height: 240)
    let keyframe = try #require(try encoder.encode(source.nextFrame(timestamp: 0).frame)).data
    let delta = try #require(try encoder.encode(source.nextFrame(timestamp: 33).frame)).data

    var random = SeededRandom(seed: 7)
    var flipped = keyframe
    for index in stride(from: 20, to: flipped.count, by: 7) { flipped[index] ^= 0x55 }
    let bad: [(String, [UInt8])] = [
        ("truncated keyframe", Array(keyframe.prefix(keyframe.count / 2))),
        ("ten bytes of a keyframe", Array(keyframe.prefix(10))),
        ("one byte", [0x00]),
        ("random bytes", (0..<600).map { _ in UInt8.random(in: 0...255, using: &random) }),
        ("a delta frame before any keyframe", delta),
        ("a keyframe with flipped bytes", flipped),
    ]
    for (name, data) in bad {
        let decoder = try VP8Decoder()
        #expect(throws: CodecError.self, "\(name)") { try decoder.decode(data) }
    }
    let decoder = try VP8Decoder()
    #expect(throws: CodecError.invalidArgument("empty VP8 frame")) { try decoder.decode([]) }

    // After the garbage, the same decoder takes a real keyframe and delta.
    #expect(throws: CodecError.self) { try decoder.decode(Array(keyframe.prefix(40))) }
    let picture = try #require(try decoder.decode(keyframe))
    #expect(TestPattern.read(picture) == TestPatternStamp(frameNumber: 0, timestamp: 0))
    let next = try #require(try decoder.decode(delta))
    #expect(TestPattern.read(next) == TestPatternStamp(frameNumber: 1, timestamp: 33))
}

@Test func encoderRejectsFramesThatDoNotFit() throws {
    let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240))
    #expect(throws: CodecError.self) { try encoder.encode(VideoFrame(width: 160, height: 120)) }
    var short = VideoFrame(width: 320, height: 240)
    short.u.removeLast()
    #expect(throws: CodecError.self) { try encoder.encode(short) }
    #expect(throws: CodecError.self) { try VP8Encoder(VP8EncoderConfiguration(width: 0, height: 240)) }
    #expect(throws: CodecError.self) { try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240, frameRate: 0)) }
    // libvpx itself refuses 1000 threads (at most 64): the half-built
    // encoder is torn down once, not twice, and the message is libvpx's.
    #expect {
        try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 240, threads: 1000))
    } throws: { error in
        guard case .vpx(let code, let message) = error as? CodecError else { return false }
        return code == 8 && message.contains("g_threads")  // VPX_CODEC_INVALID_PARAM
    }
    // Odd sizes work: chroma planes round up.
    let odd = try VP8Encoder(VP8EncoderConfiguration(width: 175, height: 143))
    let encoded = try #require(try odd.encode(TestPattern.draw(frameNumber: 5, timestamp: 9, width: 175, height: 143)))
    let decoded = try #require(try VP8Decoder().decode(encoded.data))
    #expect(decoded.width == 175 && decoded.height == 143 && decoded.u.count == 88 * 72)
}
