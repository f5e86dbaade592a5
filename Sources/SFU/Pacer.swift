import Packets

/// Spreads one subscriber connection's packets over time at a pacing rate,
/// so that a keyframe burst (30-60 packets of 1,200 bytes in a few
/// milliseconds) does not overflow a bottleneck's queue and read to the
/// estimator as congestion (DESIGN.md, "Adaptive video"). Sans-I/O: it owns
/// no clock or socket and holds no packet bytes, only the caller's handles
/// (egress-slot indices, say) with their sizes and classes, in rings
/// allocated once, so enqueueing and dequeueing never allocate.
///
/// The caller enqueues each packet it would have sent, then, at
/// `nextSendTime(now:)`, drains `dequeue(now:)` until it returns nil:
/// `.send` means send that handle's bytes now, `.drop` means free them
/// (the queue was too long). Order: audio, retransmissions, video,
/// padding/probes; within a class, first in first out.
///
/// The budget is a leaky bucket: credit in bytes grows at the pacing rate
/// up to a burst allowance (5 ms at the rate: about one 1,200-byte packet
/// at 2 Mbit/s) and each packet sent spends its size; a packet leaves
/// while the credit is not negative, so credit may dip one packet below
/// zero and the next waits for it to refill. Audio is never held for the
/// budget (a 20 ms Opus frame of 100 bytes; holding it behind a video burst
/// would add the burst's time to the audio's delay) but is charged to it,
/// as libwebrtc does when it does not pace audio.
///
/// ```swift
/// var pacer = Pacer()
/// pacer.setRate(bitsPerSecond: 1_500_000)        // the allocation
/// _ = pacer.enqueue(slot, size: 1_180, class: .video, now: now)
/// while let output = pacer.dequeue(now: now) { ... }
/// let wake = pacer.nextSendTime(now: now)         // nil: nothing queued
/// ```
public struct Pacer: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Pacing rate = target rate x this. 2.5, as libwebrtc: the
        /// encoder's rate is an average over seconds, and frames come in
        /// bursts well above it; pacing at the target itself would delay
        /// every keyframe by its whole size over the rate.
        public var pacingFactor: Double
        /// The pacing rate never goes below this, bits per second, so a low
        /// or not yet known estimate does not starve the connection.
        public var minimumRate: Int
        /// How long at the pacing rate the budget may save up while idle.
        public var burstNanoseconds: UInt64
        /// When the queue holds more than this at the pacing rate, the
        /// oldest video packets are dropped (counted) until it does not: a
        /// slow subscriber never grows latency (or the caller's slot use)
        /// without bound. Audio and retransmissions are never dropped here.
        public var maximumQueueNanoseconds: UInt64
        /// Ring sizes, in packets, per class. Video: 1,024 packets hold
        /// 2 s of a 5 Mbit/s stream of 1,200-byte packets (520 a second);
        /// audio: 128 packets are 2.5 s of 20 ms frames; retransmissions
        /// answer NACKs for at most a packet history (512); padding and
        /// probes come in clusters of tens.
        public var audioCapacity: Int
        public var retransmissionCapacity: Int
        public var videoCapacity: Int
        public var paddingCapacity: Int

        public init(
            pacingFactor: Double = 2.5, minimumRate: Int = 250_000, burstNanoseconds: UInt64 = 5_000_000,
            maximumQueueNanoseconds: UInt64 = 2_000_000_000, audioCapacity: Int = 128,
            retransmissionCapacity: Int = 512, videoCapacity: Int = 1_024, paddingCapacity: Int = 64
        ) {
            self.pacingFactor = pacingFactor
            self.minimumRate = minimumRate
            self.burstNanoseconds = burstNanoseconds
            self.maximumQueueNanoseconds = maximumQueueNanoseconds
            self.audioCapacity = audioCapacity
            self.retransmissionCapacity = retransmissionCapacity
            self.videoCapacity = videoCapacity
            self.paddingCapacity = paddingCapacity
        }
    }

    /// What `dequeue(now:)` asks of the caller.
    public enum Output: Sendable, Equatable {
        /// Send this packet now.
        case send(PacedPacket)
        /// Free this packet unsent: the queue held more than
        /// `maximumQueueNanoseconds` of data (counted in `droppedStale`).
        case drop(PacedPacket)
    }

    public struct Counters: Sendable, Equatable {
        public var sentPackets = 0
        public var sentBytes = 0
        /// `enqueue` returned false: the class's ring was full.
        public var refused = 0
        /// Video dropped because the queue was too long.
        public var droppedStale = 0
        /// Sum and largest of the queueing delays of the packets sent,
        /// nanoseconds (mean = total / sentPackets).
        public var totalQueueDelayNanoseconds: UInt64 = 0
        public var maximumQueueDelayNanoseconds: UInt64 = 0

        public init() {}
    }

    public let configuration: Configuration
    public private(set) var counters = Counters()
    /// The rate the caller asked for (the allocation), bits per second.
    public private(set) var targetRate = 0
    /// The rate packets leave at, bits per second: the target times the
    /// pacing factor, at least the minimum (or the probe's rate while
    /// probing, when higher).
    public private(set) var pacingRate: Int
    /// While set, the pacer drains at least at this rate (a bandwidth probe
    /// sent as `.padding` or as real media).
    public private(set) var probeRate: Int?
    /// The queueing delay of the last packet sent, nanoseconds.
    public private(set) var lastQueueDelayNanoseconds: UInt64 = 0

    private var rings: (audio: PacerRing, retransmission: PacerRing, video: PacerRing, padding: PacerRing)
    /// Bytes that may leave now; negative: the debt of the last packet.
    private var credit: Double = 0
    private var updated: MediaTime?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        pacingRate = max(1, configuration.minimumRate)
        rings = (
            PacerRing(capacity: configuration.audioCapacity),
            PacerRing(capacity: configuration.retransmissionCapacity),
            PacerRing(capacity: configuration.videoCapacity),
            PacerRing(capacity: configuration.paddingCapacity)
        )
    }

    // MARK: rates

    /// Sets the target (allocated) rate; packets then leave at
    /// `pacingFactor` times it, at least `minimumRate`.
    public mutating func setRate(bitsPerSecond: Int) {
        targetRate = max(0, bitsPerSecond)
        pacingRate = max(1, configuration.minimumRate, Int(Double(targetRate) * configuration.pacingFactor))
    }

    /// Starts (or, with nil, ends) a probe: while set, the pacer drains at
    /// `max(pacingRate, bitsPerSecond)`, so a cluster of probe packets
    /// enqueued as `.padding` leaves at the probe's own rate.
    public mutating func setProbe(bitsPerSecond: Int?) {
        probeRate = bitsPerSecond.map { max(1, $0) }
    }

    /// The rate the budget refills at now.
    public var drainRate: Int { max(pacingRate, probeRate ?? 0) }

    // MARK: queueing

    /// Queues a packet; false (nothing queued, counted in `refused`) when
    /// its class's ring is full: the caller drops the packet.
    public mutating func enqueue(_ handle: UInt32, size: Int, class pacingClass: PacingClass, now: MediaTime) -> Bool {
        let packet = PacedPacket(handle: handle, size: max(0, size), pacingClass: pacingClass, enqueued: now)
        let stored: Bool
        switch pacingClass {
        case .audio: stored = rings.audio.append(packet)
        case .retransmission: stored = rings.retransmission.append(packet)
        case .video: stored = rings.video.append(packet)
        case .padding: stored = rings.padding.append(packet)
        }
        if !stored { counters.refused += 1 }
        return stored
    }

    /// Whether a packet may skip the queue and leave at once: nothing is
    /// queued and the budget has room (audio: nothing queued is enough).
    /// When true it is charged as sent with no delay; when false the caller
    /// enqueues it. The common case on a link with room: no copy, no wait.
    public mutating func admitDirect(size: Int, class pacingClass: PacingClass, now: MediaTime) -> Bool {
        guard queuedPackets == 0 else { return false }
        refill(now: now)
        guard pacingClass == .audio || credit >= -Self.slack else { return false }
        _ = sent(PacedPacket(handle: 0, size: max(0, size), pacingClass: pacingClass, enqueued: now), now: now)
        return true
    }

    /// Empties the queue unsent, giving each packet to `body` (whose bytes
    /// the caller frees): the connection is going away.
    public mutating func removeAll(_ body: (PacedPacket) -> Void) {
        for index in 0..<4 {
            while let packet = index == 0 ? rings.audio.removeFirst() : index == 1 ? rings.retransmission.removeFirst()
                : index == 2 ? rings.video.removeFirst() : rings.padding.removeFirst()
            {
                body(packet)
            }
        }
    }

    /// The next thing to do at `now`, nil when nothing may leave yet (see
    /// `nextSendTime`). Call until nil.
    public mutating func dequeue(now: MediaTime) -> Output? {
        refill(now: now)
        if hasStaleVideo, let stale = rings.video.removeFirst() {
            counters.droppedStale += 1
            return .drop(stale)
        }
        if let audio = rings.audio.removeFirst() { return .send(sent(audio, now: now)) }
        guard credit >= -Self.slack else { return nil }
        if let packet = rings.retransmission.removeFirst() ?? rings.video.removeFirst()
            ?? rings.padding.removeFirst()
        {
            return .send(sent(packet, now: now))
        }
        return nil
    }

    /// When `dequeue` will next return something: `now` if it would now,
    /// nil when nothing is queued.
    public func nextSendTime(now: MediaTime) -> MediaTime? {
        guard queuedPackets > 0 else { return nil }
        if !rings.audio.isEmpty || hasStaleVideo { return now }
        let available = credit(at: now)
        if available >= -Self.slack { return now }
        let wait = (-available * 8e9 / Double(drainRate)).rounded(.up)
        return now.adding(nanoseconds: UInt64(wait))
    }

    // MARK: figures

    public var queuedPackets: Int {
        rings.audio.count + rings.retransmission.count + rings.video.count + rings.padding.count
    }

    public var queuedBytes: Int {
        rings.audio.bytes + rings.retransmission.bytes + rings.video.bytes + rings.padding.bytes
    }

    public func queuedPackets(of pacingClass: PacingClass) -> Int {
        switch pacingClass {
        case .audio: rings.audio.count
        case .retransmission: rings.retransmission.count
        case .video: rings.video.count
        case .padding: rings.padding.count
        }
    }

    /// How long the queue would take to drain at the current rate: the
    /// delay a packet enqueued now should expect ("pacer queue delay").
    public var expectedQueueNanoseconds: UInt64 {
        UInt64(Double(queuedBytes) * 8e9 / Double(drainRate))
    }

    /// How long the oldest queued packet has waited, 0 when empty.
    public func oldestQueueDelayNanoseconds(now: MediaTime) -> UInt64 {
        var delay: UInt64 = 0
        for first in [rings.audio.first, rings.retransmission.first, rings.video.first, rings.padding.first] {
            if let first { delay = max(delay, now.nanoseconds(since: first.enqueued)) }
        }
        return delay
    }

    /// The queue holds more than its maximum time and video to drop.
    private var hasStaleVideo: Bool {
        !rings.video.isEmpty && expectedQueueNanoseconds > configuration.maximumQueueNanoseconds
    }

    // MARK: the budget

    /// Rounding room when comparing credit with 0 (a billionth of a byte).
    private static let slack = 1e-9

    private var burstBytes: Double { Double(drainRate) * Double(configuration.burstNanoseconds) / 8e9 }

    /// The credit at `now`, refilled since the last update, capped at the burst.
    private func credit(at now: MediaTime) -> Double {
        guard let updated else { return burstBytes }
        let elapsed = Double(now.nanoseconds(since: updated))
        return min(burstBytes, credit + Double(drainRate) * elapsed / 8e9)
    }

    private mutating func refill(now: MediaTime) {
        credit = credit(at: now)
        updated = max(updated ?? now, now)
    }

    private mutating func sent(_ packet: PacedPacket, now: MediaTime) -> PacedPacket {
        credit -= Double(packet.size)
        let delay = now.nanoseconds(since: packet.enqueued)
        lastQueueDelayNanoseconds = delay
        counters.sentPackets += 1
        counters.sentBytes += packet.size
        counters.totalQueueDelayNanoseconds &+= delay
        counters.maximumQueueDelayNanoseconds = max(counters.maximumQueueDelayNanoseconds, delay)
        return packet
    }
}
