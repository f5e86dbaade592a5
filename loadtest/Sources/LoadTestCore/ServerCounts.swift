/// What the server itself counted during a run: the difference of two
/// `/metrics` scrapes (before and after), for the names DESIGN.md
/// ("Metrics") fixes. A counter absent from either scrape is nil, so the
/// report says "not exported" rather than a false zero.
public struct ServerCounts: Sendable, Equatable, Codable {
    /// `vroom_packets_forwarded_total`, all kinds.
    public var packetsForwarded: Double?
    /// `vroom_packets_forwarded_total` by `kind` (audio, video).
    public var packetsForwardedByKind: [String: Double]
    /// `vroom_packets_received_total`, all kinds.
    public var packetsReceived: Double?
    /// `vroom_bytes_forwarded_total`, all kinds.
    public var bytesForwarded: Double?
    /// `vroom_packets_dropped_total` by `reason`; reasons that stayed at 0
    /// are left out; nil when the server does not export the counter.
    public var droppedByReason: [String: Double]?
    /// `vroom_retransmissions_total`.
    public var retransmissions: Double?
    /// `vroom_nack_received_total`.
    public var nacksReceived: Double?
    /// `vroom_pli_sent_total`.
    public var plisSent: Double?
    /// `vroom_relay_packets_total{direction="in"}`: packets other media
    /// workers than a room's home took to forward to the subscribers they
    /// hold (a room spread over workers); nil when not exported.
    public var relayedPackets: Double?
    /// `vroom_tcp_frames_sent_total`: what the server sent over ICE-TCP
    /// (RFC 4571 frames) rather than UDP; nil when not exported. With UDP
    /// open, as on loopback, it stays 0 unless the run asked for TCP.
    public var tcpFramesSent: Double?

    public init(
        packetsForwarded: Double? = nil, packetsForwardedByKind: [String: Double] = [:],
        packetsReceived: Double? = nil, bytesForwarded: Double? = nil,
        droppedByReason: [String: Double]? = nil, retransmissions: Double? = nil,
        nacksReceived: Double? = nil, plisSent: Double? = nil, relayedPackets: Double? = nil,
        tcpFramesSent: Double? = nil
    ) {
        self.relayedPackets = relayedPackets
        self.tcpFramesSent = tcpFramesSent
        self.packetsForwarded = packetsForwarded
        self.packetsForwardedByKind = packetsForwardedByKind
        self.packetsReceived = packetsReceived
        self.bytesForwarded = bytesForwarded
        self.droppedByReason = droppedByReason
        self.retransmissions = retransmissions
        self.nacksReceived = nacksReceived
        self.plisSent = plisSent
    }

    /// `after - before` for every counter. A counter that went down (the
    /// server restarted between scrapes) is reported from `after` alone,
    /// as Prometheus' `increase()` treats a reset.
    public init(before: MetricsSnapshot, after: MetricsSnapshot) {
        func delta(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            guard let end = after.sum(name, labels) else { return nil }
            let start = before.sum(name, labels) ?? 0
            return end >= start ? end - start : end
        }
        var byKind: [String: Double] = [:]
        for kind in after.values("vroom_packets_forwarded_total", by: "kind").keys {
            byKind[kind] = delta("vroom_packets_forwarded_total", ["kind": kind])
        }
        var dropped: [String: Double]? = after.contains("vroom_packets_dropped_total") ? [:] : nil
        for reason in after.values("vroom_packets_dropped_total", by: "reason").keys {
            if let d = delta("vroom_packets_dropped_total", ["reason": reason]), d > 0 { dropped?[reason] = d }
        }
        self.init(
            packetsForwarded: delta("vroom_packets_forwarded_total"),
            packetsForwardedByKind: byKind,
            packetsReceived: delta("vroom_packets_received_total"),
            bytesForwarded: delta("vroom_bytes_forwarded_total"),
            droppedByReason: dropped,
            retransmissions: delta("vroom_retransmissions_total"),
            nacksReceived: delta("vroom_nack_received_total"),
            plisSent: delta("vroom_pli_sent_total"),
            relayedPackets: delta("vroom_relay_packets_total", ["direction": "in"]),
            tcpFramesSent: delta("vroom_tcp_frames_sent_total")
        )
    }

    /// All drops, whatever the reason; nil when the counter is not exported.
    public var droppedTotal: Double? { droppedByReason.map { $0.values.reduce(0, +) } }
}
