import Packets

/// What the server sent on one subscriber connection, by transport-wide
/// sequence number: send time, size and probe cluster, so that transport-cc
/// feedback maps back to them (issue 13). A ring of fixed size allocated
/// once: recording a packet allocates nothing. Feedback about a packet
/// older than the ring (about 4 s at 1,000 packets a second) finds nothing.
struct SendHistory {
    static let capacity = 4096

    private var sequences: [UInt64]
    private var sendTimes: [UInt64]
    private var sizes: [Int32]
    private var clusters: [Int32]
    /// The next transport-wide sequence number, unwrapped (starts at 1).
    private(set) var next: UInt64 = 1

    init() {
        sequences = Array(repeating: .max, count: Self.capacity)
        sendTimes = Array(repeating: 0, count: Self.capacity)
        sizes = Array(repeating: 0, count: Self.capacity)
        clusters = Array(repeating: -1, count: Self.capacity)
    }

    /// The 16 bits the next packet carries.
    var nextWireSequence: UInt16 { UInt16(truncatingIfNeeded: next) }

    /// Records the packet just sent with `nextWireSequence` and moves on.
    mutating func record(size: Int, at time: MediaTime, probeCluster: Int? = nil) {
        let index = Int(truncatingIfNeeded: next) & (Self.capacity &- 1)
        sequences[index] = next
        sendTimes[index] = time.nanoseconds
        sizes[index] = Int32(truncatingIfNeeded: size)
        clusters[index] = probeCluster.map { Int32(truncatingIfNeeded: $0) } ?? -1
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
        guard sequence < next, sequences[index] == sequence else { return nil }
        let cluster = clusters[index]
        return (MediaTime(nanoseconds: sendTimes[index]), Int(sizes[index]), cluster < 0 ? nil : Int(cluster))
    }
}
