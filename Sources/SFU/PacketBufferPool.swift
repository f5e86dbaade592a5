/// Packet buffers of one size that move between owners instead of their
/// bytes being copied (DESIGN.md, "The packet path"): a media worker's
/// ingress ring holds some, its video tracks' NACK histories the others.
/// When a history keeps a received packet it takes the ring slot's buffer
/// itself and puts the buffer of the packet it evicts in its place, so the
/// history is a deeper ring of ingress slots, not a copy of them.
///
/// Each buffer is allocated once, on first need (a history fills up over
/// its first 512 packets), and has exactly one owner at a time; owners
/// give their buffers back when they go (a track unpublished, a ring
/// freed). Up to `keepLimit` free buffers are kept for the next track; the
/// rest go back to the allocator. Taking and giving allocate nothing once
/// the pool is warm.
///
/// Not `Sendable`: one media worker's thread owns it and everything that
/// holds its buffers.
public final class PacketBufferPool {
    /// Bytes in each buffer: a receive slot's size (a 1,500-byte datagram
    /// plus SRTP's trailer allowance, rounded up).
    public let bufferSize: Int
    /// Free buffers kept for reuse; beyond this they are freed.
    public let keepLimit: Int
    private var free: [UnsafeMutableRawPointer] = []
    /// Buffers allocated and not yet freed: free here, or held by an owner.
    public private(set) var liveCount = 0

    public init(bufferSize: Int = 2048, keepLimit: Int = 2048) {
        self.bufferSize = bufferSize
        self.keepLimit = keepLimit
        free.reserveCapacity(keepLimit)
    }

    deinit {
        for buffer in free { buffer.deallocate() }
    }

    /// Free buffers waiting here.
    public var freeCount: Int { free.count }

    /// Allocates buffers until `count` are free (at most `keepLimit`): a
    /// warm-up, so that the next `count` takes allocate nothing.
    public func reserve(_ count: Int) {
        while free.count < min(count, keepLimit) {
            free.append(.allocate(byteCount: bufferSize, alignment: 16))
            liveCount &+= 1
        }
    }

    /// A buffer of `bufferSize` bytes (contents undefined), now the caller's.
    @inline(__always)
    public func take() -> UnsafeMutableRawPointer {
        if let buffer = free.popLast() { return buffer }
        liveCount &+= 1
        return .allocate(byteCount: bufferSize, alignment: 16)
    }

    /// Gives back a buffer `take` handed out; the caller no longer touches it.
    @inline(__always)
    public func give(_ buffer: UnsafeMutableRawPointer) {
        guard free.count < keepLimit else {
            buffer.deallocate()
            liveCount &-= 1
            return
        }
        free.append(buffer)
    }
}
