/// The recent packets of one video track, kept to answer NACKs: a ring of
/// entries indexed by the receiver's compacted sequence number (the
/// numbering subscribers see, padding removed), each entry a buffer of the
/// worker's `PacketBufferPool`.
///
/// On the worker the packets are not copied: `keep` takes the ingress
/// slot's buffer, with the packet in it, and hands back the buffer of the
/// entry it replaces (or a fresh one) for the ring slot to receive into
/// next. `store` copies, for packets that are not in a pool buffer.
///
/// 512 packets: VP8 at 1.5 Mbit/s is about 150 packets a second, so the ring
/// holds 3 s of it, and even 500 packets/s (a 720p keyframe burst) keeps 1 s:
/// a NACK round trip of 300 ms plus a subscriber's own 100 ms NACK delay
/// fits with margin. Buffers are the pool's size (2 KB): a track's history
/// holds at most 1 MB, taken as packets arrive and given back when the track
/// goes. Audio has none: Vroom's SDP negotiates no NACK for Opus
/// (PROTOCOL.md section 5).
final class PacketHistory {
    static let capacity = Router.historyCapacity

    struct Entry {
        /// The compacted sequence number stored here, nil when empty.
        var sequence: UInt64?
        /// The pool buffer holding it (kept while the entry is emptied).
        var buffer: UnsafeMutableRawPointer?
        var length: Int = 0
        /// Where the media payload starts: after the header, plus 2 for an
        /// RTX packet's original sequence number.
        var payloadOffset: Int = 0
    }

    let pool: PacketBufferPool
    private var entries: [Entry]

    init(pool: PacketBufferPool) {
        self.pool = pool
        entries = Array(repeating: Entry(), count: Self.capacity)
    }

    deinit {
        for entry in entries {
            if let buffer = entry.buffer { pool.give(buffer) }
        }
    }

    /// Copies `packet` in as `sequence` (a packet larger than a buffer is
    /// not kept: it cannot have come off a 1,500-byte MTU link).
    func store(_ packet: UnsafeRawBufferPointer, payloadOffset: Int, sequence: UInt64) {
        let index = Int(sequence % UInt64(Self.capacity))
        guard packet.count <= pool.bufferSize, let source = packet.baseAddress else {
            entries[index].sequence = nil
            return
        }
        let buffer = entries[index].buffer ?? pool.take()
        buffer.copyMemory(from: source, byteCount: packet.count)
        entries[index] = Entry(sequence: sequence, buffer: buffer, length: packet.count, payloadOffset: payloadOffset)
    }

    /// Keeps the `length`-byte packet at the start of `slot`, a buffer of
    /// the pool's, as `sequence` without copying it: the history owns
    /// `slot` from now on. Returns the buffer that takes its place, the
    /// caller's now: the evicted entry's, or a fresh one.
    func keep(_ slot: UnsafeMutableRawPointer, length: Int, payloadOffset: Int, sequence: UInt64)
        -> UnsafeMutableRawPointer
    {
        let index = Int(sequence % UInt64(Self.capacity))
        let replacement = entries[index].buffer ?? pool.take()
        entries[index] = Entry(sequence: sequence, buffer: slot, length: length, payloadOffset: payloadOffset)
        return replacement
    }

    /// The stored packet with compacted number `sequence`, if still held.
    func packet(_ sequence: UInt64) -> (bytes: UnsafeRawBufferPointer, payloadOffset: Int)? {
        let index = Int(sequence % UInt64(Self.capacity))
        let entry = entries[index]
        guard entry.sequence == sequence, let buffer = entry.buffer else { return nil }
        return (UnsafeRawBufferPointer(start: buffer, count: entry.length), entry.payloadOffset)
    }

    func removeAll() {
        for index in entries.indices { entries[index].sequence = nil }
    }
}
