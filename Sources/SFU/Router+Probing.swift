import Packets

/// A probe cluster being sent to one subscriber connection.
struct ProbeBurst {
    var request: ProbeRequest
    var start: MediaTime
    var bytes = 0
    var packets = 0

    /// Both of the request's minimums are met.
    var isComplete: Bool { packets >= request.minimumPackets && bytes >= request.minimumBytes }
}

/// Bandwidth probes on subscriber connections (issue 13, PROTOCOL.md
/// section 7: "probes before it upgrades"). When a connection's estimator
/// asks for a cluster (at the start, while the allocator wants more than
/// the estimate, now and then while the link is idle), probe packets
/// carrying transport-wide numbers go out at the cluster's rate, spread
/// over the router's ticks (every `probeTickInterval`), each recorded with
/// its cluster so the feedback measures what the link carried. They are
/// padding-only packets on an RTX stream for video, as libwebrtc sends its
/// own. A connection without RTX is not probed: padding on its media SSRC
/// would take numbers from the stream it decodes, and copies of media
/// packets already delivered are dropped by its SRTP replay check before
/// any feedback counts them (tried: none came back).
extension Router {
    /// The padding in one probe packet: the most one RTP packet can say
    /// (RFC 3550's padding count is one byte); with the header and the
    /// mid and transport-cc extensions, about 290 bytes on the wire.
    static let probePaddingSize = 255
    /// How often a cluster being sent gets its next packets: 40 ms at the
    /// cluster's rate in steps of 2.5 ms.
    static let probeTickInterval: UInt64 = 2_500_000

    /// Probe packets sent to `subscriber` since it was added.
    public func probePacketsSent(subscriber: TransportID) -> UInt64? {
        subscribers[subscriber]?.probePacketsSent
    }

    /// Sends what is due of each connection's probe cluster, starting one
    /// when its estimator asks. Returns when to come back for the rest.
    func sendProbes(now: MediaTime, into sink: inout some PacketSink) -> MediaTime? {
        var deadline: MediaTime?
        for session in subscribers.values where session.hasDownlinkFeedback && session.transportCCExtensionID != nil {
            guard let carrier = probeCarrier(session) else {
                session.probe = nil
                continue
            }
            if session.probe == nil {
                guard let request = session.estimator.nextProbe(now: now) else { continue }
                session.probe = ProbeBurst(request: request, start: now)
            }
            guard var burst = session.probe else { continue }
            // What the cluster's rate allows since it started, and one
            // packet more (the first goes at once).
            let elapsed = now.nanoseconds(since: burst.start)
            let due = Int(burst.request.bitsPerSecond &* elapsed / 8_000_000_000) &+ Self.probePaddingSize
            var failed = false
            while burst.bytes < due && !burst.isComplete {
                guard let slot = sink.slot(for: session.transport) else {
                    counters.drop(.noSlot)
                    break
                }
                guard let length = carrier.writePadding(
                    Self.probePaddingSize, transportSequence: session.sendHistory.nextWireSequence, into: slot)
                else {
                    failed = true
                    break
                }
                session.sendHistory.record(size: length, at: now, probeCluster: burst.request.cluster)
                session.estimator.onPacketSent(size: length, at: now, probeCluster: burst.request.cluster)
                sink.commit(transport: session.transport, length: length, kind: .rtp)
                burst.bytes &+= length
                burst.packets &+= 1
                session.probePacketsSent &+= 1
                counters.probePacketsSent &+= 1
            }
            if burst.isComplete || failed {
                session.probe = nil
            } else {
                session.probe = burst
                let next = now.adding(nanoseconds: Self.probeTickInterval)
                deadline = min(deadline ?? next, next)
            }
        }
        return deadline
    }

    /// The DownTrack that carries the probes: a video one with RTX (the
    /// subscriber's SDP pairs it with its media SSRC), preferably one that
    /// is on. A switched-off one, even one that never sent, still carries
    /// padding: with every video off for congestion (or off from the start,
    /// on the 300 kbit/s start estimate), probes are what can show the link
    /// has room; the receiver counts padding for its feedback and discards
    /// it whatever its stream does.
    func probeCarrier(_ session: SubscriberSession) -> DownTrack? {
        var held: DownTrack?
        for downTrack in session.downTracks where downTrack.kind == .video && downTrack.rtxSSRC != nil {
            if !downTrack.isHeld && downTrack.munger.lastForwardTime != nil { return downTrack }
            held = held ?? downTrack
        }
        return held
    }
}
