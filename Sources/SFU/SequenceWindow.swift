/// Which of the last 1,024 sequence numbers of a stream arrived, and which
/// of them were padding-only packets the router dropped. Two bit rings,
/// allocated once.
///
/// The padding bits let the receiver close the numbering: a padding probe
/// dropped in order shifts every later packet down by one, so subscribers
/// see no gap (INTEROP.md: Chrome and Firefox probe with padding-only
/// packets on the media SSRC). A packet that arrives late is shifted by the
/// padding dropped before it only, counted from the bits.
///
/// 1,024 numbers: the history keeps 512 packets, and a packet later than
/// that cannot be retransmitted anyway; twice that keeps the duplicate check
/// meaningful through a burst of loss.
struct SequenceWindow {
    static let size: UInt64 = 1024
    private var received: [UInt64]
    private var padding: [UInt64]
    /// The newest extended number placed, nil before the first packet.
    private(set) var highest: UInt64?
    /// Padding-only packets dropped in order since the stream began.
    private(set) var paddingDropped: UInt64 = 0

    init() {
        received = Array(repeating: 0, count: Int(Self.size / 64))
        padding = Array(repeating: 0, count: Int(Self.size / 64))
    }

    mutating func reset() {
        for index in received.indices {
            received[index] = 0
            padding[index] = 0
        }
        highest = nil
        paddingDropped = 0
    }

    @inline(__always)
    private static func position(_ value: UInt64) -> (word: Int, mask: UInt64) {
        let bit = value % size
        return (Int(bit / 64), 1 << (bit % 64))
    }

    @inline(__always)
    private func isSet(_ ring: [UInt64], _ value: UInt64) -> Bool {
        let (word, mask) = Self.position(value)
        return ring[word] & mask != 0
    }

    /// What a packet with extended number `value` is to the stream.
    enum Placement: Equatable {
        /// Newer than anything before, or a late one that fills a hole: its
        /// place in the numbering the subscribers see (padding removed).
        case new(compacted: UInt64)
        case duplicate
        /// More than `size` behind the newest number.
        case tooOld
    }

    /// Where `value` goes, without recording it.
    func place(_ value: UInt64) -> Placement {
        guard let highest else { return .new(compacted: value) }
        if value > highest { return .new(compacted: value &- paddingDropped) }
        let behind = highest &- value
        guard behind < Self.size else { return .tooOld }
        if isSet(received, value) { return .duplicate }
        // Padding dropped after `value` did not shift it.
        var later: UInt64 = 0
        var probe = value &+ 1
        while probe <= highest {
            if isSet(padding, probe) { later &+= 1 }
            probe &+= 1
        }
        return .new(compacted: value &- (paddingDropped &- later))
    }

    /// Records `value` as received; `droppedPadding` when it is a
    /// padding-only packet dropped in order (newer than everything), which
    /// shifts later packets down by one.
    mutating func record(_ value: UInt64, droppedPadding: Bool) {
        if let highest, value > highest {
            // Clear the bits of the numbers skipped over and of `value`
            // itself: they belong to numbers 1,024 older.
            let first = value - highest >= Self.size ? value &- Self.size &+ 1 : highest &+ 1
            var clear = first
            while clear <= value {
                let (word, mask) = Self.position(clear)
                received[word] &= ~mask
                padding[word] &= ~mask
                clear &+= 1
            }
        }
        let (word, mask) = Self.position(value)
        received[word] |= mask
        if droppedPadding {
            padding[word] |= mask
            paddingDropped &+= 1
        }
        if highest == nil || value > highest! { highest = value }
    }

    /// Whether `value` (within the window) arrived.
    func contains(_ value: UInt64) -> Bool {
        guard let highest, value <= highest, highest &- value < Self.size else { return false }
        return isSet(received, value)
    }
}
