/// A point on the media worker's monotonic clock, in nanoseconds since an
/// arbitrary origin. The sans-I/O cores (`WebRTC`, `SFU`) never read a clock:
/// the worker passes `now` in, so tests can step time by 30 s in a microsecond
/// (STYLE.md habit 1).
public struct MediaTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    @inlinable
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    @inlinable
    public static func milliseconds(_ ms: UInt64) -> MediaTime { MediaTime(nanoseconds: ms &* 1_000_000) }

    @inlinable
    public static func seconds(_ s: Double) -> MediaTime { MediaTime(nanoseconds: UInt64(s * 1e9)) }

    @inlinable
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// `self` moved forward by `ns` nanoseconds.
    @inlinable
    public func adding(nanoseconds ns: UInt64) -> MediaTime { MediaTime(nanoseconds: nanoseconds &+ ns) }

    @inlinable
    public func adding(milliseconds ms: UInt64) -> MediaTime { adding(nanoseconds: ms &* 1_000_000) }

    /// Nanoseconds from `earlier` to `self`, 0 when `earlier` is later.
    @inlinable
    public func nanoseconds(since earlier: MediaTime) -> UInt64 {
        nanoseconds >= earlier.nanoseconds ? nanoseconds - earlier.nanoseconds : 0
    }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}
