import Codecs
import Testing

@Test(arguments: [(160, 120), (320, 240), (640, 480), (175, 143), (1280, 720)])
func drawnStampsReadBackExactly(width: Int, height: Int) {
    var random = SeededRandom(seed: UInt64(width * 1000 + height))
    for _ in 0..<40 {
        let number = UInt32.random(in: 0...UInt32.max, using: &random)
        let timestamp = UInt32.random(in: 0...UInt32.max, using: &random)
        let frame = TestPattern.draw(frameNumber: number, timestamp: timestamp, width: width, height: height)
        #expect(frame.hasValidPlanes)
        // Both are carried modulo 2^24.
        #expect(TestPattern.read(frame) == TestPatternStamp(frameNumber: number & 0xFF_FFFF, timestamp: timestamp & 0xFF_FFFF))
    }
    #expect(TestPattern.read(TestPattern.draw(frameNumber: 0, timestamp: 0, width: width, height: height))
        == TestPatternStamp(frameNumber: 0, timestamp: 0))
    #expect(TestPattern.read(TestPattern.draw(frameNumber: 0xFF_FFFF, timestamp: 0xFF_FFFF, width: width, height: height))
        == TestPatternStamp(frameNumber: 0xFF_FFFF, timestamp: 0xFF_FFFF))
}

/// Frames a decoder could show instead of the real one never read as a
/// wrong stamp: a blend of two frames (a smear), one frame's value rows with
/// another's inverse rows, and one frame's left blocks beside another's
/// right blocks (a stale region: each bit agrees with its inverse there, so
/// only the CRC catches it).
@Test func damagedFramesReadAsNilNotAsAnotherNumber() {
    let width = 320, height = 240
    var random = SeededRandom(seed: 42)
    var caught = (blend: 0, rows: 0, columns: 0)
    for _ in 0..<50 {
        let a = TestPattern.draw(frameNumber: UInt32.random(in: 0...0xFF_FFFF, using: &random),
                                 timestamp: UInt32.random(in: 0...0xFF_FFFF, using: &random), width: width, height: height)
        let b = TestPattern.draw(frameNumber: UInt32.random(in: 0...0xFF_FFFF, using: &random),
                                 timestamp: UInt32.random(in: 0...0xFF_FFFF, using: &random), width: width, height: height)
        var blend = a
        blend.y = zip(a.y, b.y).map { UInt8((Int($0) + Int($1)) / 2) }
        if TestPattern.read(blend) == nil { caught.blend += 1 }

        // Grid rows 0-3 (the values) of a, rows 4-7 (the inverses) of b.
        var rows = a
        let gridHeight = height * 4 / 5
        rows.y.replaceSubrange((gridHeight / 2 * width)..<(gridHeight * width),
                               with: b.y[(gridHeight / 2 * width)..<(gridHeight * width)])
        if TestPattern.read(rows) == nil { caught.rows += 1 }

        // Left 7 of the 14 block columns from a, the right 7 from b.
        var columns = a
        for row in 0..<height {
            let start = row * width + width / 2
            columns.y.replaceSubrange(start..<(row * width + width), with: b.y[start..<(row * width + width)])
        }
        if TestPattern.read(columns) == nil { caught.columns += 1 }
    }
    #expect(caught.blend == 50)
    #expect(caught.rows == 50)
    #expect(caught.columns == 50)
}

@Test func tooSmallOrEmptyFramesReadAsNil() {
    #expect(TestPattern.read(TestPattern.draw(frameNumber: 1, timestamp: 2, width: 40, height: 30)) == nil)
    #expect(TestPattern.read(TestPattern.draw(frameNumber: 1, timestamp: 2, width: 0, height: 0)) == nil)
    #expect(TestPattern.read(VideoFrame(width: 320, height: 240, y: [], u: [], v: [])) == nil)
    #expect(TestPattern.read(VideoFrame(width: 320, height: 240)) == nil)  // all black
    #expect(TestPattern.read(VideoFrame(width: 320, height: 240, luma: 235)) == nil)  // all white
}

@Test func elapsedWrapsModuloTheTimestampWidth() {
    #expect(TestPattern.elapsed(since: 1000, now: 1042) == 42)
    #expect(TestPattern.elapsed(since: 0xFF_FFF0, now: 0x0100_0005) == 0x15)
    #expect(TestPattern.elapsed(since: 0xFF_FFF0, now: 5) == 0x15)
}

@Test func sourceNumbersFramesAndMovesTheBand() {
    var source = TestPatternSource(width: 320, height: 240)
    var previousBand: ArraySlice<UInt8>?
    for expected in UInt32(0)..<5 {
        let (frame, number) = source.nextFrame(timestamp: 500 + expected)
        #expect(number == expected)
        #expect(TestPattern.read(frame) == TestPatternStamp(frameNumber: expected, timestamp: 500 + expected))
        // The bottom fifth moves every frame: the encoder has motion to code.
        let band = frame.y[(200 * 320)...]
        #expect(band != previousBand)
        #expect(Set(band).count > 10)
        previousBand = band
    }
    #expect(source.nextFrameNumber == 5)
}

@Test func sourceFramesStayIntactWhenTheCallerKeepsThem() {
    var source = TestPatternSource(width: 160, height: 120)
    let first = source.nextFrame(timestamp: 1).frame
    let second = source.nextFrame(timestamp: 2).frame
    // The reused buffer is copied on write, never changed under a holder.
    #expect(TestPattern.read(first) == TestPatternStamp(frameNumber: 0, timestamp: 1))
    #expect(TestPattern.read(second) == TestPatternStamp(frameNumber: 1, timestamp: 2))
}
