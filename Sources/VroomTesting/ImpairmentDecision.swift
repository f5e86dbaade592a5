/// What happens to one datagram, decided before anything is done to it (so a
/// test can check decisions without sockets).
public struct ImpairmentDecision: Sendable, Equatable {
    /// One byte to change: `bytes[index] ^= mask` (`mask` is never 0, so the
    /// datagram really changes).
    public struct ByteFlip: Sendable, Equatable {
        public var index: Int
        public var mask: UInt8

        public init(index: Int, mask: UInt8) {
            self.index = index
            self.mask = mask
        }
    }

    /// Dropped datagrams have no other effect (the other fields are false/nil/0).
    public var dropped: Bool
    /// Delay from arrival to sending, before the in-order rule of the queue.
    public var delayNanoseconds: UInt64
    /// Held back so that later datagrams overtake it (`delayNanoseconds`
    /// already includes the hold).
    public var reordered: Bool
    /// Sent twice.
    public var duplicated: Bool
    /// Nil for an intact datagram (always nil for an empty one).
    public var corruption: ByteFlip?

    public init(
        dropped: Bool = false, delayNanoseconds: UInt64 = 0, reordered: Bool = false, duplicated: Bool = false,
        corruption: ByteFlip? = nil
    ) {
        self.dropped = dropped
        self.delayNanoseconds = delayNanoseconds
        self.reordered = reordered
        self.duplicated = duplicated
        self.corruption = corruption
    }
}
