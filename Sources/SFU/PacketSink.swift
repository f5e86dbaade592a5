/// Whether a packet handed to a `PacketSink` is RTP or RTCP: the worker
/// protects them with different SRTP calls (`srtp_protect` /
/// `srtp_protect_rtcp`).
public enum EgressKind: Hashable, Sendable {
    case rtp
    case rtcp
}

/// Where the `Router` writes what it sends: the media worker's egress ring.
///
/// For each packet the router asks for a slot on one transport, writes the
/// plaintext packet at its start, then commits its length; the worker
/// protects it in place and queues it for `sendmmsg`. A forwarded RTP
/// packet is committed with only its header written (`commit(transport:
/// length:appending:)`): its payload stays in the ingress slot, and the
/// worker's SRTP encrypts it from there into the egress slot, the one pass
/// over the payload (DESIGN.md, "The packet path"). The slot returned is the space the router may fill: the
/// worker keeps its SRTP spare (tag, up to 144 bytes with MKI) after it, so
/// a 1500-byte ring slot hands out its first 1356 bytes. A nil slot means
/// the ring is full: the router drops the packet and counts `.noSlot`.
///
/// The router takes the sink generically (`inout some PacketSink`), so the
/// calls are specialized: no existential box, no allocation.
public protocol PacketSink {
    /// A writable slot for one packet to `transport`, or nil when there is
    /// no room. Valid until `commit` or the next `slot` call.
    mutating func slot(for transport: TransportID) -> UnsafeMutableRawBufferPointer?
    /// The packet in the slot last handed out for `transport` is complete:
    /// `length` bytes of plaintext RTP or RTCP.
    mutating func commit(transport: TransportID, length: Int, kind: EgressKind)
    /// The RTP packet in the slot last handed out for `transport` is
    /// `length` bytes written there followed by `tail`, which is still
    /// elsewhere (the packet it was forwarded from) and goes right after
    /// them: the slot has room for it. `tail` is read, never written.
    mutating func commit(transport: TransportID, length: Int, appending tail: UnsafeRawBufferPointer)
}
