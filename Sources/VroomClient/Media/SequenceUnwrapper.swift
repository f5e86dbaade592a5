/// Extends 16-bit RTP sequence numbers to 64 bits (RFC 3550 A.1's cycle
/// count): each number is placed within 2^15 of the highest one seen, so
/// reordering and wrap-around both come out right.
struct SequenceUnwrapper {
    private(set) var highest: Int64?

    mutating func unwrap(_ sequence: UInt16) -> Int64 {
        guard let highest else {
            // Start in the second cycle so an early reordered packet stays >= 0.
            let first = Int64(sequence) + 0x1_0000
            self.highest = first
            return first
        }
        let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest)))
        let extended = highest + delta
        if extended > highest { self.highest = extended }
        return extended
    }
}
