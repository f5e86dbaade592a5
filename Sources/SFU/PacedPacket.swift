import Packets

/// One packet waiting in (or leaving) the `Pacer`: not its bytes, only the
/// caller's opaque `handle` for them (an egress slot's index, say), its
/// size on the wire and its class. 24 bytes, stored in the pacer's rings.
public struct PacedPacket: Sendable, Equatable {
    /// The caller's name for the packet's bytes; the pacer never reads it.
    public var handle: UInt32
    /// Bytes on the wire (the SRTP packet), what the budget is charged.
    public var size: Int
    public var pacingClass: PacingClass
    /// When it was enqueued: its queueing delay is `now` minus this.
    public var enqueued: MediaTime

    public init(handle: UInt32, size: Int, pacingClass: PacingClass, enqueued: MediaTime) {
        self.handle = handle
        self.size = size
        self.pacingClass = pacingClass
        self.enqueued = enqueued
    }
}
