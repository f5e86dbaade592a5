/// A link of fixed rate with a drop-tail queue, for one direction of the
/// impairment relay: where the kernel's htb does not fit (no namespace of
/// the test's own, the load tester). Sans-I/O: times are monotonic
/// nanoseconds from the caller's clock.
///
/// A token bucket one datagram deep: each datagram admitted occupies the
/// link for its length at the rate, after those before it; it leaves when
/// its last bit would (`admit` returns that time). The queue holds
/// `queueMilliseconds` of data at the rate: a datagram that would wait
/// longer than that behind the ones already queued is dropped (tail drop)
/// and counted, as a router's buffer of that size does.
public struct BottleneckModel: Sendable, Equatable {
    public private(set) var bitsPerSecond: Int
    public private(set) var queueNanoseconds: UInt64
    /// Datagrams refused because the queue was full.
    public private(set) var dropped = 0
    /// When the link has sent everything admitted so far.
    private var busyUntil: UInt64 = 0

    public init(kilobitsPerSecond: Int, queueMilliseconds: Double) {
        bitsPerSecond = max(1, kilobitsPerSecond) * 1_000
        queueNanoseconds = UInt64(max(0, queueMilliseconds) * 1_000_000)
    }

    /// A new rate and queue from the next datagram on; what is queued
    /// keeps its times.
    public mutating func set(kilobitsPerSecond: Int, queueMilliseconds: Double) {
        bitsPerSecond = max(1, kilobitsPerSecond) * 1_000
        queueNanoseconds = UInt64(max(0, queueMilliseconds) * 1_000_000)
    }

    /// How long a datagram arriving at `now` waits before its first bit
    /// goes: the backlog, in time.
    public func backlogNanoseconds(now: UInt64) -> UInt64 {
        busyUntil > now ? busyUntil - now : 0
    }

    /// Admits a datagram of `length` bytes arriving at `now`: the time it
    /// has fully left the link, or nil when the queue is full (counted).
    public mutating func admit(length: Int, now: UInt64) -> UInt64? {
        let backlog = backlogNanoseconds(now: now)
        // A datagram finding the link idle always goes, whatever its size.
        if backlog > 0, backlog > queueNanoseconds {
            dropped += 1
            return nil
        }
        let transmission = UInt64(length) * 8 * 1_000_000_000 / UInt64(bitsPerSecond)
        busyUntil = max(busyUntil, now) + transmission
        return busyUntil
    }
}
