/// The recent packets of one video track, kept to answer NACKs: a ring of
/// fixed slots allocated once, indexed by the receiver's compacted sequence
/// number (the numbering subscribers see, padding removed).
///
/// 512 packets: VP8 at 1.5 Mbit/s is about 150 packets a second, so the ring
/// holds 3 s of it, and even 500 packets/s (a 720p keyframe burst) keeps 1 s:
/// a NACK round trip of 300 ms plus a subscriber's own 100 ms NACK delay
/// fits with margin. Slots are 1,500 bytes (an Ethernet MTU; plaintext RTP
/// is always smaller), so a track costs 768 KB. Audio has none: Vroom's SDP
/// negotiates no NACK for Opus (PROTOCOL.md section 5).
final class PacketHistory {
    static let capacity = 512
    static let slotSize = 1500

    struct Entry {
        /// The compacted sequence number stored here, nil when empty.
        var sequence: UInt64?
        var length: Int = 0
        /// Where the media payload starts: after the header, plus 2 for an
        /// RTX packet's original sequence number.
        var payloadOffset: Int = 0
    }

    private let storage: UnsafeMutableRawBufferPointer
    private var entries: [Entry]

    init() {
        storage = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Self.capacity * Self.slotSize, alignment: 16)
        entries = Array(repeating: Entry(), count: Self.capacity)
    }

    deinit { storage.deallocate() }

    /// Copies `packet` in as `sequence` (packets larger than a slot are not
    /// kept: they cannot have come off a 1,500-byte MTU link).
    func store(_ packet: UnsafeRawBufferPointer, payloadOffset: Int, sequence: UInt64) {
        let index = Int(sequence % UInt64(Self.capacity))
        guard packet.count <= Self.slotSize else {
            entries[index].sequence = nil
            return
        }
        let slot = UnsafeMutableRawBufferPointer(
            rebasing: storage[(index * Self.slotSize)..<(index * Self.slotSize + packet.count)])
        slot.copyMemory(from: packet)
        entries[index] = Entry(sequence: sequence, length: packet.count, payloadOffset: payloadOffset)
    }

    /// The stored packet with compacted number `sequence`, if still held.
    func packet(_ sequence: UInt64) -> (bytes: UnsafeRawBufferPointer, payloadOffset: Int)? {
        let index = Int(sequence % UInt64(Self.capacity))
        let entry = entries[index]
        guard entry.sequence == sequence else { return nil }
        let start = index * Self.slotSize
        return (UnsafeRawBufferPointer(rebasing: storage[start..<(start + entry.length)]), entry.payloadOffset)
    }

    func removeAll() {
        for index in entries.indices { entries[index].sequence = nil }
    }
}
