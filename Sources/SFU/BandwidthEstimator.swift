import Packets

/// The downlink estimate of one subscriber connection (issue 13, PROTOCOL.md
/// section 7): how many bits per second the server may send it. Sans-I/O:
/// the media plane reports what it sent (`onPacketSent`) and what came back
/// (`onFeedback`, `onREMB`, `onLossReport`), passing the time in, and reads
/// `estimate` and `nextProbe(now:)`.
///
/// The pieces are libwebrtc's send-side estimator's (str0m and pion's gcc
/// are smaller readings of it): send groups (`InterArrival`) feed a delay
/// trend (`TrendlineFilter`) that drives AIMD (`AIMDRateControl`), which
/// cuts to 85% of the acknowledged rate (`AcknowledgedBitrate`) on overuse;
/// loss above 10% bounds the result (`LossBasedBound`); probes
/// (`ProbeController`, `ProbeBitrateEstimator`) let it jump up; an
/// application-limited sender (`ApplicationLimitedDetector`) neither grows
/// nor shrinks it. Without transport-cc, REMB is the estimate, bounded by
/// loss.
///
/// Known limit (measured in BandwidthEstimatorTests): when the start rate
/// already fills the link (300 kbit/s start on a 300 kbit/s link), the
/// initial probes fill the 100 ms queue and it never drains, so the delay
/// trend stays flat; the estimate settles at 326 kbit/s with ~8% loss, held
/// by the loss bound (2-10% is its hold zone), not by the delay trend.
public struct BandwidthEstimator: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var startBitsPerSecond: UInt64
        public var minimumBitsPerSecond: UInt64
        public var maximumBitsPerSecond: UInt64

        /// 300 kbit/s to start (a 360p layer and audio), 30 kbit/s floor
        /// (audio alone), 20 Mbit/s ceiling (three 1080p subscriptions).
        public init(
            startBitsPerSecond: UInt64 = 300_000,
            minimumBitsPerSecond: UInt64 = 30_000,
            maximumBitsPerSecond: UInt64 = 20_000_000
        ) {
            self.minimumBitsPerSecond = minimumBitsPerSecond
            self.maximumBitsPerSecond = max(maximumBitsPerSecond, minimumBitsPerSecond)
            self.startBitsPerSecond = min(max(startBitsPerSecond, minimumBitsPerSecond), self.maximumBitsPerSecond)
        }
    }

    public let configuration: Configuration
    /// The target, bits per second.
    public private(set) var estimate: UInt64
    /// The rate the receiver acknowledged lately, bits per second.
    public var acknowledgedBitsPerSecond: UInt64? { acknowledged.bitsPerSecond.map { UInt64($0) } }
    public var state: RateControlState { rateControl.state }
    public var usage: BandwidthUsage { trendline.usage }
    public var isApplicationLimited: Bool { applicationLimited.isApplicationLimited }
    /// Round trip from send to feedback (it includes the receiver's feedback
    /// interval), nanoseconds.
    public private(set) var roundTripTime: UInt64 = 100_000_000
    /// How many times a probe's result raised the estimate: headroom the
    /// link was shown to carry, which the allocator may use at once.
    public private(set) var probeJumps: UInt64 = 0
    /// The last loss fraction applied (feedback's, or a receiver report's).
    public var lossFraction: Double { lossBound.lastFraction }

    private var interArrival = InterArrival()
    private var trendline = TrendlineFilter()
    private var rateControl: AIMDRateControl
    private var acknowledged = AcknowledgedBitrate()
    private var lossBound = LossBasedBound()
    private var applicationLimited = ApplicationLimitedDetector()
    private var probes: ProbeController
    private var probeResults = ProbeBitrateEstimator()
    private var remb: Double?
    /// When the last probe packet went out (see `probeQueueWindow`).
    private var lastProbeSent: UInt64?
    /// A probe overshoots the link on purpose and queues up to tens of ms;
    /// the trend over the next 20 groups (100-250 ms of sending) sees that
    /// queue. An overuse reported for packets sent within 250 ms of a probe
    /// is the probe's own doing, not a reason to cut: without this, every
    /// probe on a saturated link cut the estimate to 73% of the link (0.85 of
    /// an acknowledged rate already 0.85 of it), measured in the tests.
    static let probeQueueWindow: UInt64 = 250_000_000
    /// How long after a delay-based cut no probe is asked for.
    static let congestionHold: UInt64 = 1_000_000_000
    /// Set by the first transport-cc feedback: from then on the delay-based
    /// estimate leads and REMB only caps it.
    private var hasTransportFeedback = false

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        estimate = configuration.startBitsPerSecond
        rateControl = AIMDRateControl(
            start: Double(configuration.startBitsPerSecond),
            minimum: Double(configuration.minimumBitsPerSecond),
            maximum: Double(configuration.maximumBitsPerSecond)
        )
        probes = ProbeController(maximum: Double(configuration.maximumBitsPerSecond))
    }

    /// Every packet sent on the connection, probes included. Runs per
    /// packet: no allocation, a few arithmetic operations.
    public mutating func onPacketSent(size: Int, at now: MediaTime, probeCluster: Int? = nil) {
        // Probe padding is not demand: counting it would end ALR with every
        // probe.
        guard probeCluster == nil else {
            lastProbeSent = now.nanoseconds
            return
        }
        applicationLimited.onSent(bytes: size, now: now.nanoseconds, estimate: Double(estimate))
    }

    /// One transport-cc feedback's packets, in sequence order.
    @inlinable
    public mutating func onFeedback<C: Collection>(_ packets: C, now: MediaTime) where C.Element == PacketFeedback {
        // Iterating an unspecialised generic collection across the module
        // boundary boxed every element: 1 malloc per packet in the
        // benchmark. Contiguous storage (an Array, a slice of one) goes
        // through a buffer instead, with none.
        let handled: Void? = packets.withContiguousStorageIfAvailable { onFeedback(buffer: $0, now: now) }
        if handled == nil {
            Array(packets).withUnsafeBufferPointer { onFeedback(buffer: $0, now: now) }
        }
    }

    /// `onFeedback` over a buffer of the packets.
    public mutating func onFeedback(buffer packets: UnsafeBufferPointer<PacketFeedback>, now: MediaTime) {
        guard !packets.isEmpty else { return }
        hasTransportFeedback = true
        let nowNs = now.nanoseconds
        applicationLimited.advance(now: nowNs, estimate: Double(estimate))
        var lost = 0
        var received = 0
        var probeLost = 0
        var probeReceived = 0
        var newestSend: UInt64 = 0
        var probeResult: Double?
        for packet in packets {
            newestSend = max(newestSend, packet.sendTime.nanoseconds)
            guard let arrival = packet.arrival else {
                // A probe overshoots on purpose; its losses are the probe's
                // answer (measured below), not evidence against the media
                // rate. So are media packets sent around it: on a full link
                // the probe pushes them out of the bottleneck's queue (htb's
                // pfifo of 30 packets held 20 of a probe's 290-byte padding
                // packets), and counting them cut a 600 kbit/s link's
                // estimate below its one 320 kbit/s video in bwe-grid.
                if packet.probeCluster != nil {
                    probeLost += 1
                } else if !isNearProbe(packet.sendTime.nanoseconds) {
                    lost += 1
                }
                continue
            }
            if packet.probeCluster == nil { received += 1 } else { probeReceived += 1 }
            acknowledged.add(arrival: arrival, size: packet.size)
            if let cluster = packet.probeCluster,
               let result = probeResults.add(
                   cluster: cluster, minimumPackets: ProbeController.minimumPackets,
                   sendTime: packet.sendTime.nanoseconds, arrival: arrival, size: packet.size
               ) {
                probeResult = max(probeResult ?? 0, result)
            }
            if let delta = interArrival.add(sendTime: packet.sendTime.nanoseconds, arrival: arrival) {
                trendline.update(delta)
            }
        }
        if newestSend > 0, nowNs > newestSend {
            // Smoothed like TCP's SRTT (1/8 gain): one late feedback must not
            // stretch the decrease interval.
            roundTripTime = (7 * roundTripTime + (nowNs - newestSend)) / 8
        }

        let acked = acknowledged.bitsPerSecond
        let probeQueue = lastProbeSent.map { newestSend <= $0 + Self.probeQueueWindow } ?? false
        if trendline.usage == .overusing,
           probeQueue || !rateControl.mayDecrease(now: nowNs, rtt: roundTripTime, acknowledged: acked) {
            // The probe's own queue, or already cut within this RTT (its
            // effect has not shown yet).
        } else {
            rateControl.update(
                usage: trendline.usage, acknowledged: acked,
                applicationLimited: applicationLimited.isApplicationLimited,
                rtt: roundTripTime, now: nowNs
            )
        }
        if let probeResult {
            if probeResult > rateControl.estimate, trendline.usage != .overusing {
                rateControl.jump(to: probeResult, now: nowNs)
                probeJumps &+= 1
            }
            // A probe that came back whole (under 2% of its packets lost)
            // shows loss does not bind up to its rate; one that lost more
            // (a lossy link) says nothing against the loss bound.
            let probeLoss = Double(probeLost) / Double(max(1, probeLost + probeReceived))
            if trendline.usage != .overusing, probeLoss < LossBasedBound.lowLoss, lossBound.raise(to: probeResult, now: nowNs) {
                probeJumps &+= 1
            }
            probes.onResult(probeResult, estimate: min(rateControl.estimate, lossBound.bitsPerSecond ?? .infinity), now: nowNs)
        }
        lossBound.add(lost: lost, received: received, current: unboundedEstimate, rtt: roundTripTime, now: nowNs)
        updateEstimate()
    }

    /// A REMB from the receiver: without transport-cc, the estimate; with
    /// it, a cap (the receiver says it cannot take more).
    public mutating func onREMB(bitsPerSecond: UInt64, now: MediaTime) {
        remb = Double(bitsPerSecond)
        updateEstimate()
    }

    /// A receiver report's fraction lost (0...1). With transport-cc the
    /// feedback counts losses itself; without it, this is the loss input.
    public mutating func onLossReport(fractionLost: Double, now: MediaTime) {
        guard !hasTransportFeedback else { return }
        lossBound.apply(
            fraction: min(max(fractionLost, 0), 1), current: unboundedEstimate,
            rtt: roundTripTime, now: now.nanoseconds
        )
        updateEstimate()
    }

    /// The allocator wants `targetBitsPerSecond`: probe for it if it is well
    /// above the estimate (rate-limited; see `ProbeController`), unless the
    /// link is congested now.
    public mutating func requestProbe(targetBitsPerSecond: UInt64, now: MediaTime) {
        guard hasTransportFeedback || remb == nil, !isCongested(now: now.nanoseconds) else { return }
        probes.request(target: Double(targetBitsPerSecond), estimate: Double(estimate), now: now.nanoseconds)
    }

    /// A congestion signal is fresh: the delay trend overuses, the last loss
    /// report (within a second) is over 10% (the loss bound cuts), or the
    /// delay-based estimate was cut within `congestionHold`. No headroom is
    /// there to find, and a probe would hide the signal: the feedback around
    /// it is discounted (`probeQueueWindow`). A link cut from 1.8 Mbit/s to
    /// 250 kbit/s was probed right after its first cut; the estimate then
    /// held at 4.5x the link for 1.6 s, and Chromium went 2.1 s without a
    /// frame (bwe-cut).
    private func isCongested(now: UInt64) -> Bool {
        if trendline.usage == .overusing || (lossBound.recentFraction(now: now) ?? 0) > LossBasedBound.highLoss {
            return true
        }
        guard let last = rateControl.lastDecrease else { return false }
        return now < last + Self.congestionHold
    }

    /// A probe cluster is queued: `nextProbe` returns it now (the caller
    /// may want to come back at once rather than at its next timer).
    public var hasProbeQueued: Bool { probes.hasQueued }

    /// The next probe cluster to send, if one is due. Poll it at the pacer's
    /// tick; nil most of the time. Without transport-cc nothing can measure
    /// a probe, so none is asked for once REMB has been seen.
    public mutating func nextProbe(now: MediaTime) -> ProbeRequest? {
        guard hasTransportFeedback || remb == nil else { return nil }
        applicationLimited.advance(now: now.nanoseconds, estimate: Double(estimate))
        guard let probe = probes.next(
            now: now.nanoseconds, start: Double(configuration.startBitsPerSecond),
            estimate: Double(estimate), applicationLimited: applicationLimited.isApplicationLimited
        ) else { return nil }
        let durationNs = ProbeController.minimumDuration
        let bytes = Int(probe.bitsPerSecond * Double(durationNs) / 1e9 / 8)
        probeResults.expect(cluster: probe.cluster, minimumBytes: bytes)
        return ProbeRequest(
            cluster: probe.cluster, bitsPerSecond: UInt64(probe.bitsPerSecond),
            minimumPackets: ProbeController.minimumPackets, minimumBytes: bytes,
            duration: MediaTime(nanoseconds: durationNs)
        )
    }

    /// Sent during the last probe or within `probeQueueWindow` after it.
    private func isNearProbe(_ sendTime: UInt64) -> Bool {
        guard let last = lastProbeSent else { return false }
        return sendTime <= last + Self.probeQueueWindow && sendTime + Self.probeQueueWindow >= last
    }

    /// The estimate before the loss bound: delay-based with transport-cc
    /// (capped by REMB), REMB alone without it.
    private var unboundedEstimate: Double {
        if hasTransportFeedback {
            return min(rateControl.estimate, remb ?? .infinity)
        }
        return remb ?? rateControl.estimate
    }

    private mutating func updateEstimate() {
        let bounded = min(unboundedEstimate, lossBound.bitsPerSecond ?? .infinity)
        let clamped = min(
            max(bounded, Double(configuration.minimumBitsPerSecond)),
            Double(configuration.maximumBitsPerSecond)
        )
        estimate = UInt64(clamped)
    }
}
