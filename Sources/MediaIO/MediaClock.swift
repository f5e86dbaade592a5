#if canImport(Glibc)
import Glibc
#endif
import Packets

/// The media workers' monotonic clock (CLOCK_MONOTONIC): the one place
/// where the media plane reads time; the sans-I/O cores get it as a value.
public enum MediaClock {
    public static func now() -> MediaTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MediaTime(nanoseconds: UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec))
    }
}
