#if canImport(Glibc)
import Packets
import Glibc
#endif

/// Ties the monotonic media clock to NTP wall-clock time for RTCP sender
/// reports (RFC 3550 section 4: 32.32 fixed point, seconds since 1900).
enum NTPClock {
    /// Seconds from 1900 (NTP epoch) to 1970 (Unix epoch).
    static let unixEpochOffset: UInt64 = 2_208_988_800

    /// The NTP timestamp at `MediaTime` zero: wall clock now minus the
    /// monotonic clock now.
    static func ntpAtMonotonicZero() -> UInt64 {
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let monotonic = MediaClock.now().nanoseconds
        let wallNanoseconds = UInt64(wall.tv_sec) &* 1_000_000_000 &+ UInt64(wall.tv_nsec)
        let zero = wallNanoseconds &- monotonic
        let seconds = zero / 1_000_000_000 &+ unixEpochOffset
        let fraction = (zero % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }
}
