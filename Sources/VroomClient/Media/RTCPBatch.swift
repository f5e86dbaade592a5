import Packets

/// One round of RTCP on one connection (reports, NACKs, PLIs, transport-cc
/// feedback) packed into as few compound packets as fit a datagram, the
/// way libwebrtc batches what is due at one time. Each compound starts with
/// a report (RFC 3550 6.1, RFC 4585 3.1): the caller's own RR or SR when it
/// appends one first, else an empty RR from `reporter`.
struct RTCPBatch {
    /// A 1,200-byte datagram (PeerTransport's MTU) less SRTCP's 4-byte
    /// index and 16-byte tag (the longer of the two profiles' tags).
    static let maximumCompoundSize = 1200 - 20

    private let buffer: UnsafeMutableRawBufferPointer
    private let reporter: SSRC
    private let send: (UnsafeRawBufferPointer) -> Void
    private var writer: RTCPCompoundWriter
    /// Compound packets handed to `send` so far.
    private(set) var compoundsSent = 0

    /// `buffer` is the caller's scratch (only its first
    /// `maximumCompoundSize` bytes are used); `send` gets each compound.
    init(buffer: UnsafeMutableRawBufferPointer, reporter: SSRC, send: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.buffer = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, Self.maximumCompoundSize)])
        self.reporter = reporter
        self.send = send
        writer = RTCPCompoundWriter(buffer: self.buffer)
    }

    /// Appends `packet`; a compound that has no room left is sent first.
    /// A packet too large for a datagram of its own is dropped.
    mutating func append<P: RTCPPacketWriter>(_ packet: P) {
        let isReport = packet is ReceiverReport || packet is SenderReport
        if writer.count == 0, !isReport { try? writer.append(ReceiverReport(ssrc: reporter)) }
        if (try? writer.append(packet)) != nil { return }
        flush()
        if !isReport { try? writer.append(ReceiverReport(ssrc: reporter)) }
        try? writer.append(packet)
    }

    /// Sends what is written, if anything.
    mutating func flush() {
        guard writer.count > 0 else { return }
        send(writer.written)
        compoundsSent += 1
        writer = RTCPCompoundWriter(buffer: buffer)
    }
}
