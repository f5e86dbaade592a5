/// The last `capacity` RTP packets a local track sent, as plaintext, by
/// sequence number: what a NACK asks to resend (RFC 4585 section 6.2.1).
/// 512 video packets are about 4 s at 1 Mbit/s: more than any NACK's age.
struct SendHistory {
    private var slots: [(sequence: UInt16, packet: [UInt8])?]

    init(capacity: Int) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    mutating func store(sequence: UInt16, packet: [UInt8]) {
        slots[Int(sequence) % slots.count] = (sequence, packet)
    }

    func packet(sequence: UInt16) -> [UInt8]? {
        guard let slot = slots[Int(sequence) % slots.count], slot.sequence == sequence else { return nil }
        return slot.packet
    }
}
