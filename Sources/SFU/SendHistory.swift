import Packets

/// What the server sent on one subscriber connection, by transport-wide
/// sequence number: send time, size and probe cluster, so that transport-cc
/// feedback maps back to them (issue 13). A ring of fixed size allocated
/// once: recording a packet allocates nothing. Feedback about a packet
/// older than the ring (about 4 s at 1,000 packets a second) finds nothing.
struct SendHistory {
    static let capacity = 4096

    /// One packet's record, 24 bytes: one array written per packet (one
    /// uniqueness check, one cache line) rather than one per field.
    private struct Entry {
        var sequence: UInt64 = .max
        var sendTime: UInt64 = 0
        var size: Int32 = 0
        /// -1: not a probe.
        var cluster: Int32 = -1
    }

    private var entries = Array(repeating: Entry(), count: SendHistory.capacity)
    /// The next transport-wide sequence number, unwrapped (starts at 1).
    private(set) var next: UInt64 = 1

    init() {}

    /// The 16 bits the next packet carries.
    var nextWireSequence: UInt16 { UInt16(truncatingIfNeeded: next) }

    /// Records the packet just sent with `nextWireSequence` and moves on.
    mutating func record(size: Int, at time: MediaTime, probeCluster: Int? = nil) {
        let index = Int(truncatingIfNeeded: next) & (Self.capacity &- 1)
        entries[index] = Entry(
            sequence: next, sendTime: time.nanoseconds, size: Int32(truncatingIfNeeded: size),
            cluster: probeCluster.map { Int32(truncatingIfNeeded: $0) } ?? -1)
        next &+= 1
    }

    /// The unwrapped sequence number nearest the newest sent that has these
    /// low 16 bits (feedback reports 16-bit numbers).
    func unwrap(_ wire: UInt16) -> UInt64 {
        let newest = next &- 1
        let delta = Int64(Int16(bitPattern: wire &- UInt16(truncatingIfNeeded: newest)))
        return UInt64(bitPattern: Int64(bitPattern: newest) &+ delta)
    }

    /// The send record of `sequence`, if the ring still holds it.
    func lookup(_ sequence: UInt64) -> (sendTime: MediaTime, size: Int, probeCluster: Int?)? {
        let index = Int(truncatingIfNeeded: sequence) & (Self.capacity &- 1)
        let entry = entries[index]
        guard sequence < next, entry.sequence == sequence else { return nil }
        return (MediaTime(nanoseconds: entry.sendTime), Int(entry.size), entry.cluster < 0 ? nil : Int(entry.cluster))
    }
}
