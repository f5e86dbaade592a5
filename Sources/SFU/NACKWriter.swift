import Packets

/// Writes a generic NACK (RFC 4585 section 6.2.1: RTPFB FMT 1) straight into
/// a slot, packing sequence numbers into PID/BLP pairs as they come, so the
/// receive path can ask for a lost packet without building an array
/// (`GenericNACK` holds one).
struct NACKWriter {
    let buffer: UnsafeMutableRawBufferPointer
    private var offset = 12
    private var pid: UInt16?
    private var bitmask: UInt16 = 0
    private(set) var count = 0

    /// nil when `buffer` cannot hold the header and one pair.
    init?(buffer: UnsafeMutableRawBufferPointer, senderSSRC: SSRC, mediaSSRC: SSRC) {
        guard buffer.count >= 16 else { return nil }
        self.buffer = buffer
        buffer[0] = 0x80 | GenericNACKView.format
        buffer[1] = RTCPPacketType.transportFeedback
        buffer.sfuSetU32(senderSSRC.rawValue, at: 4)
        buffer.sfuSetU32(mediaSSRC.rawValue, at: 8)
    }

    /// Adds a lost number (in increasing order); false when the buffer is full.
    mutating func append(_ sequence: UInt16) -> Bool {
        if let pid {
            let distance = sequence &- pid
            if distance == 0 { return true }
            if distance <= 16 {
                bitmask |= 1 << (distance - 1)
                count += 1
                return true
            }
            guard offset + 8 <= buffer.count else { return false }
            flush()
        }
        pid = sequence
        bitmask = 0
        count += 1
        return true
    }

    private mutating func flush() {
        guard let pid else { return }
        buffer.sfuSetU16(pid, at: offset)
        buffer.sfuSetU16(bitmask, at: offset + 2)
        offset += 4
    }

    /// Completes the packet; its length, or nil when nothing was added.
    mutating func finish() -> Int? {
        guard pid != nil else { return nil }
        flush()
        pid = nil
        buffer.sfuSetU16(UInt16(offset / 4 - 1), at: 2)
        return offset
    }
}
