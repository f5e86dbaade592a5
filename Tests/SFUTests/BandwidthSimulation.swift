import Packets
@testable import SFU

/// A sender, a `BottleneckLink` and a receiver on a virtual clock, around one
/// `BandwidthEstimator`: the sender paces 1200-byte packets at
/// min(estimate, `sourceCap`) (or at a probe's rate while a probe is out,
/// topping media up with padding), the receiver sends transport-cc feedback
/// every 50 ms, which reaches the sender one propagation delay later. Each
/// 1 ms step is: deliver feedback, emit feedback, ask for probes, send.
struct BandwidthSimulation {
    var estimator: BandwidthEstimator
    var link: BottleneckLink
    /// What the application has to send (bits/s); nil: as much as allowed.
    var sourceCap: Double?
    /// Whether the sender asks for probes when it wants more than the
    /// estimate (the allocator's `requestProbe`).
    var requestsProbes = true
    /// What the allocator wants when it is not what is sent (a subscriber
    /// held on a low layer that asks for probes towards its top layer):
    /// probes are requested towards this instead of `sourceCap`.
    var probeTarget: Double?
    /// Whether the sender sends the probes the estimator asks for at all.
    var probes = true
    let packetSize = 1200
    let feedbackInterval: UInt64 = 50_000_000
    let step: UInt64 = 1_000_000
    /// The receiver's clock is 7 s off the sender's: only differences count.
    let receiverClockOffset: Int64 = 7_000_000_000

    private(set) var now: UInt64 = 0
    private var credit = 0.0
    private var probe: (request: ProbeRequest, bytes: Int, packets: Int)?
    private var sequence: UInt64 = 0
    /// Sent, not yet reported: the packet and its arrival (nil: lost).
    private var unreported: [(feedback: PacketFeedback, arrival: UInt64?)] = []
    private var pendingFeedback: [(deliverAt: UInt64, packets: [PacketFeedback])] = []
    private(set) var sentBytes = 0

    init(link: BottleneckLink, sourceCap: Double? = nil, configuration: BandwidthEstimator.Configuration = .init()) {
        self.link = link
        self.sourceCap = sourceCap
        estimator = BandwidthEstimator(configuration: configuration)
    }

    /// Runs until `end` (ns), calling `sample` with the time and estimate
    /// every 100 ms.
    mutating func run(until end: UInt64, sample: (UInt64, UInt64) -> Void = { _, _ in }) {
        while now < end {
            advance()
            now += step
            if now % 100_000_000 == 0 { sample(now, estimator.estimate) }
        }
    }

    private mutating func advance() {
        let at = MediaTime(nanoseconds: now)
        while let first = pendingFeedback.first, first.deliverAt <= now {
            pendingFeedback.removeFirst()
            estimator.onFeedback(first.packets, now: at)
        }
        if now % feedbackInterval == 0 { emitFeedback() }
        let estimate = Double(estimator.estimate)
        if requestsProbes, let probeTarget {
            if probeTarget > estimate { estimator.requestProbe(targetBitsPerSecond: UInt64(probeTarget), now: at) }
        } else if requestsProbes, let sourceCap, sourceCap > estimate {
            estimator.requestProbe(targetBitsPerSecond: UInt64(sourceCap), now: at)
        } else if requestsProbes, sourceCap == nil {
            estimator.requestProbe(targetBitsPerSecond: estimator.configuration.maximumBitsPerSecond, now: at)
        }
        if probes, probe == nil, let request = estimator.nextProbe(now: at) {
            probe = (request, 0, 0)
        }
        let rate = probe.map { Double($0.request.bitsPerSecond) } ?? min(estimate, sourceCap ?? .infinity)
        credit += rate * Double(step) / 1e9 / 8
        while credit >= Double(packetSize) {
            credit -= Double(packetSize)
            send(cluster: probe?.request.cluster)
            if var active = probe {
                active.bytes += packetSize
                active.packets += 1
                probe = active.bytes >= active.request.minimumBytes && active.packets >= active.request.minimumPackets ? nil : active
                if probe == nil { break }
            }
        }
        // A paced sender does not save up: no bursts after a slow spell.
        credit = min(credit, Double(packetSize))
    }

    private mutating func send(cluster: Int?) {
        let feedback = PacketFeedback(
            sequence: sequence, size: packetSize, sendTime: MediaTime(nanoseconds: now), arrival: nil, probeCluster: cluster
        )
        sequence += 1
        sentBytes += packetSize
        estimator.onPacketSent(size: packetSize, at: MediaTime(nanoseconds: now), probeCluster: cluster)
        unreported.append((feedback, link.send(size: packetSize, at: now)))
    }

    /// The receiver reports every packet up to the newest that has arrived;
    /// the link is FIFO, so an earlier one not arrived by then was lost.
    private mutating func emitFeedback() {
        guard let last = unreported.lastIndex(where: { $0.arrival.map { $0 <= now } ?? false }) else { return }
        var packets: [PacketFeedback] = []
        packets.reserveCapacity(last + 1)
        for entry in unreported[...last] {
            var feedback = entry.feedback
            feedback.arrival = entry.arrival.map { Int64($0) + receiverClockOffset }
            packets.append(feedback)
        }
        unreported.removeFirst(last + 1)
        pendingFeedback.append((now + link.propagation, packets))
    }
}
