/// Extends 16-bit RTP sequence numbers to 64 bits (RFC 3550 appendix A.1's
/// cycle count, done the LiveKit way): a number within 32,767 of the newest
/// one is taken as the nearest one, before or after it. The first number is
/// placed at cycle 1, so a packet that arrives late by a few numbers never
/// goes below zero.
public struct SequenceNumberUnwrapper: Sendable, Equatable {
    /// The newest extended number seen, nil before the first packet.
    public private(set) var highest: UInt64?

    public init() {}

    /// The extended value of `sequenceNumber`, without remembering it.
    public func extended(_ sequenceNumber: UInt16) -> UInt64 {
        guard let highest else { return 0x1_0000 | UInt64(sequenceNumber) }
        let delta = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highest))
        return UInt64(bitPattern: Int64(bitPattern: highest) &+ Int64(delta))
    }

    /// The extended value of `sequenceNumber`; it becomes `highest` if newer.
    public mutating func unwrap(_ sequenceNumber: UInt16) -> UInt64 {
        let value = extended(sequenceNumber)
        if highest == nil || value > highest! { highest = value }
        return value
    }
}
