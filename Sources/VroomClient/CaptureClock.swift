import Foundation
import WebRTC

/// The capture timestamp drawn into test-pattern frames: wall-clock
/// milliseconds modulo 2^24 (4.6 hours), so a receiver on the same machine
/// (or one with a synchronized clock) reads latency modulo that width.
enum CaptureClock {
    static let mask: UInt32 = 0xFF_FFFF

    static func stamp() -> UInt32 {
        UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970 * 1000)) & mask
    }

    /// Milliseconds from `stamp` to now.
    static func latency(since stamp: UInt32) -> Double {
        Double((Self.stamp() &- stamp) & mask)
    }

    /// The monotonic clock the media engine runs on.
    static func mediaNow() -> MediaTime {
        MediaTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)
    }
}
