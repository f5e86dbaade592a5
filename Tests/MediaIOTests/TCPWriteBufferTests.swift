import Testing

@testable import MediaIO

/// A slow reader's buffer: whole frames only, bounded, the remainder of a
/// partly written frame kept at the front.
@Suite struct TCPWriteBufferTests {
    /// A "kernel" that takes at most `limit` bytes per call and records them.
    private final class Sink {
        var bytes: [UInt8] = []
        var limit: Int
        init(limit: Int) { self.limit = limit }
        func write(_ pending: UnsafeRawBufferPointer) -> Int? {
            let n = min(limit, pending.count)
            bytes += pending[0..<n]
            return n
        }
    }

    private func append(_ buffer: TCPWriteBuffer, _ packet: [UInt8]) -> Bool {
        packet.withUnsafeBytes { buffer.append($0) }
    }

    /// Splits `bytes` into RFC 4571 frames; nil when they are not whole frames.
    private func frames(_ bytes: [UInt8]) -> [[UInt8]]? {
        var out: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            guard index + 2 <= bytes.count else { return nil }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard index + 2 + length <= bytes.count else { return nil }
            out.append(Array(bytes[(index + 2)..<(index + 2 + length)]))
            index += 2 + length
        }
        return out
    }

    @Test func framesThatDoNotFitAreDroppedWholeAndAPartialFrameIsFinishedFirst() {
        let buffer = TCPWriteBuffer(capacity: 4096)
        let sink = Sink(limit: 1000)
        let packets = (0..<10).map { n in [UInt8](repeating: UInt8(n), count: 1000) }
        var accepted: [[UInt8]] = []
        for packet in packets where append(buffer, packet) { accepted.append(packet) }
        // 4096 bytes hold four 1002-byte frames; the other six are dropped whole.
        #expect(accepted.count == 4)
        #expect(buffer.droppedFrames == 6)
        #expect(buffer.pendingBytes == 4008)
        // The kernel takes 1000 bytes: the first frame's last 2 wait.
        #expect(buffer.flush(sink.write))
        #expect(buffer.pendingBytes == 3008)
        // Room for one more frame after moving the rest to the front.
        #expect(append(buffer, packets[4]))
        accepted.append(packets[4])
        #expect(!append(buffer, packets[5]))
        sink.limit = .max
        #expect(buffer.flush(sink.write))
        #expect(buffer.isEmpty)
        #expect(frames(sink.bytes) == accepted)
    }

    @Test func aFailedWriteIsReportedAndEmptyOrHugePacketsAreRefused() {
        let buffer = TCPWriteBuffer(capacity: 4096)
        #expect(!append(buffer, []))
        #expect(!append(buffer, [UInt8](repeating: 1, count: 4095)))
        #expect(append(buffer, [1, 2, 3]))
        #expect(!buffer.flush { _ in nil })
    }
}
