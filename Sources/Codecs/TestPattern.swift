/// A synthetic picture that carries a frame number and a timestamp in its
/// pixels, so a receiver proves which frames arrived, and how late, from
/// decoded video alone.
///
/// Layout: the top 4/5 of the picture is a grid of 14 x 8 black (16) or
/// white (235) blocks. The first 56 blocks (rows 0-3) are the payload bits:
/// the frame number (24 bits), the timestamp (24 bits) and a CRC-8 of both;
/// the last 56 (rows 4-7) are the same bits inverted. `read` takes the mean
/// of each block's middle half and accepts only a clear black or white, a
/// bit that differs from its inverse, and a matching CRC: a block that VP8
/// smeared or left stale makes the frame unreadable (nil), never a wrong
/// number. The bottom 1/5 is a band whose gradient and bar move every frame,
/// so the encoder has real motion to code.
///
/// Sizes: any size draws; reading is supported (and tested through VP8)
/// from 160x120 up. Smaller frames with blocks under 4 pixels read as nil.
public enum TestPattern {
    /// Bits of the frame number carried (numbers wrap modulo 2^24: 6.5 days
    /// at 30 fps).
    public static let frameNumberBits = 24
    /// Bits of the timestamp carried: milliseconds modulo 2^24 wrap after
    /// 4.66 hours, far beyond any latency measured with them.
    public static let timestampBits = 24
    /// The smallest size `read` is tested at after VP8 encode and decode.
    public static let minimumWidth = 160
    public static let minimumHeight = 120

    static let columns = 14
    static let rows = 8
    static let payloadBits = 56  // 24 + 24 + 8 (CRC)
    static let black: UInt8 = 16
    static let white: UInt8 = 235
    // A block reads as 0 below 82 and as 1 above 169: 30% of the 219 steps
    // between black and white on either side; anything between is a smear.
    static let darkLimit = 82
    static let lightLimit = 169
    static let frameNumberMask: UInt32 = (1 << 24) - 1
    static let timestampMask: UInt32 = (1 << 24) - 1

    /// A new frame showing `frameNumber` and `timestamp` (each kept modulo
    /// 2^24) at `width` x `height` (negative sizes count as 0).
    public static func draw(frameNumber: UInt32, timestamp: UInt32, width: Int, height: Int) -> VideoFrame {
        let width = max(0, width)
        let height = max(0, height)
        var luma = [UInt8](repeating: black, count: width * height)
        render(frameNumber: frameNumber, timestamp: timestamp, width: width, height: height, into: &luma)
        let chroma = [UInt8](repeating: 128, count: VideoFrame.chromaWidth(width) * VideoFrame.chromaHeight(height))
        return VideoFrame(width: width, height: height, y: luma, u: chroma, v: chroma)
    }

    /// The stamp drawn in `frame`, or nil when any block is unclear, a bit
    /// equals its inverse, or the CRC does not match.
    public static func read(_ frame: VideoFrame) -> TestPatternStamp? {
        let width = frame.width
        let height = frame.height
        let gridHeight = height * 4 / 5
        guard width / columns >= 4, gridHeight / rows >= 4, frame.y.count >= width * height else { return nil }
        return frame.y.withUnsafeBufferPointer { luma -> TestPatternStamp? in
            var payload: UInt64 = 0
            for bit in 0..<payloadBits {
                guard let value = readBlock(bit, luma: luma, width: width, gridHeight: gridHeight),
                      let inverse = readBlock(bit + payloadBits, luma: luma, width: width, gridHeight: gridHeight),
                      value != inverse else { return nil }
                if value { payload |= 1 << UInt64(bit) }
            }
            let data = payload & ((1 << 48) - 1)
            guard UInt64(crc8(data)) == payload >> 48 else { return nil }
            return TestPatternStamp(frameNumber: UInt32(data & UInt64(frameNumberMask)),
                                    timestamp: UInt32(data >> 24))
        }
    }

    /// Milliseconds from `sent` to `now`, both wall-clock milliseconds
    /// modulo 2^24 as the pattern carries them (`now` may be a full value).
    public static func elapsed(since sent: UInt32, now: UInt32) -> UInt32 {
        (now &- sent) & timestampMask
    }

    /// Draws the whole picture's luma into `luma` (`width * height` bytes,
    /// resized if it is not): used by `draw` and, reusing one buffer, by
    /// `TestPatternSource`.
    static func render(frameNumber: UInt32, timestamp: UInt32, width: Int, height: Int, into luma: inout [UInt8]) {
        if luma.count != width * height { luma = [UInt8](repeating: black, count: width * height) }
        guard width > 0, height > 0 else { return }
        let data = UInt64(frameNumber & frameNumberMask) | UInt64(timestamp & timestampMask) << 24
        let payload = data | UInt64(crc8(data)) << 48
        let gridHeight = height * 4 / 5
        luma.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for block in 0..<(2 * payloadBits) {
                let bit = payload >> UInt64(block % payloadBits) & 1 == 1
                let on = block < payloadBits ? bit : !bit
                let (x0, x1, y0, y1) = bounds(block, width: width, gridHeight: gridHeight)
                for row in y0..<y1 {
                    (base + row * width + x0).update(repeating: on ? white : black, count: x1 - x0)
                }
            }
            drawBand(frameNumber: frameNumber, base: base, width: width, top: gridHeight, height: height)
        }
    }

    /// The moving band: a grey ramp scrolling left by width/80 pixels a
    /// frame (4 at 320) with a dark bar crossing three times as fast.
    private static func drawBand(frameNumber: UInt32, base: UnsafeMutablePointer<UInt8>,
                                 width: Int, top: Int, height: Int) {
        guard top < height else { return }
        let speed = max(1, width / 80)
        let period = max(16, width / 4)
        let shift = Int(frameNumber) % period * speed % period
        let barWidth = max(2, width / 16)
        let barX = Int(frameNumber) % width * (3 * speed) % width
        let first = base + top * width
        for x in 0..<width {
            let phase = (x + shift) % period
            var value = 40 + phase * 180 / period
            if x >= barX && x < barX + barWidth { value = Int(black) }
            first[x] = UInt8(value)
        }
        for row in (top + 1)..<height {
            (base + row * width).update(from: first, count: width)
        }
    }

    /// Whether block `index` is white (true), black (false) or unclear (nil).
    private static func readBlock(_ index: Int, luma: UnsafeBufferPointer<UInt8>,
                                  width: Int, gridHeight: Int) -> Bool? {
        let (x0, x1, y0, y1) = bounds(index, width: width, gridHeight: gridHeight)
        // The middle half of the block: VP8 blurs edges first.
        let insetX = (x1 - x0) / 4
        let insetY = (y1 - y0) / 4
        var sum = 0
        var count = 0
        for row in (y0 + insetY)..<(y1 - insetY) {
            let start = row * width
            for x in (x0 + insetX)..<(x1 - insetX) {
                sum += Int(luma[start + x])
                count += 1
            }
        }
        guard count > 0 else { return nil }
        let mean = sum / count
        if mean < darkLimit { return false }
        if mean > lightLimit { return true }
        return nil
    }

    /// Pixel bounds (x0..<x1, y0..<y1) of block `index` in row-major order.
    private static func bounds(_ index: Int, width: Int, gridHeight: Int) -> (Int, Int, Int, Int) {
        let row = index / columns
        let column = index % columns
        return (column * width / columns, (column + 1) * width / columns,
                row * gridHeight / rows, (row + 1) * gridHeight / rows)
    }

    /// CRC-8 (polynomial 0x07) of the 6 bytes of a 48-bit value: catches a
    /// stale block that passes the inverse check.
    static func crc8(_ value: UInt64) -> UInt8 {
        var crc: UInt8 = 0
        for byte in 0..<6 {
            crc ^= UInt8(truncatingIfNeeded: value >> UInt64(8 * byte))
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1
            }
        }
        return crc
    }
}
