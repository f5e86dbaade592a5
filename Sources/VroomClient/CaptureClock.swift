import Codecs
import Foundation

/// The capture timestamp drawn into test-pattern frames: wall-clock
/// milliseconds modulo 2^`TestPattern.timestampBits` (4.6 hours), so a
/// receiver on the same machine (or one with a synchronized clock) reads
/// latency modulo that width.
enum CaptureClock {
    static func stamp() -> UInt32 {
        let milliseconds = UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970 * 1000))
        return milliseconds & ((1 << UInt32(TestPattern.timestampBits)) - 1)
    }

    /// Milliseconds from `stamp` to now.
    static func latency(since stamp: UInt32) -> Double {
        Double(TestPattern.elapsed(since: stamp, now: Self.stamp()))
    }
}
