/// Decides when to probe and how hard. An estimate only grows a few percent
/// a second on its own; a probe tests a higher rate in tens of ms and lets
/// the estimate jump when the link carries it. Probes go out (libwebrtc's
/// ProbeController schedule, simplified):
/// - at start, two clusters at 3x and 6x the start rate, then exponentially
///   (2x the last result) for as long as each result reaches 70% of what
///   was sent, up to what the allocator wants and 20% past it (a result a
///   few percent short of the want is not taken for it: the allocator's
///   last step needs the whole of it);
/// - when the allocator wants more than the estimate (`request`), at twice
///   the estimate up to what it wants: 2 s after the last such probe,
///   doubling while they find nothing, to at most 4 s (a link that widens
///   again is found within about 4 s, then climbed in a few clusters);
/// - every 5 s while the sender is application-limited, at twice the
///   estimate up to what the allocator wants, so an idle link's estimate
///   stays current.
struct ProbeController: Sendable {
    static let initialMultipliers = (3.0, 6.0)
    static let continueRatio = 0.7
    /// Probes go past what the allocator wants by this much: a link that
    /// carries the want then reads at least the want, not 0.95 of it (a
    /// probe at exactly the want read 878 of 912 kbit/s on loopback).
    static let overshoot = 1.2
    /// How long to wait for a probe's result before giving up on going on.
    static let resultTimeout: UInt64 = 1_000_000_000
    static let firstRetry: UInt64 = 2_000_000_000
    static let maximumRetry: UInt64 = 4_000_000_000
    static let applicationLimitedInterval: UInt64 = 5_000_000_000
    /// Five packets and 40 ms at the target rate: fewer packets make the
    /// arrival spacing one or two packets' jitter.
    static let minimumPackets = 5
    static let minimumDuration: UInt64 = 40_000_000

    let maximum: Double
    private var started = false
    private var nextCluster = 0
    /// At most two probes wait (the initial pair): two slots, no array.
    private var queued: (first: Double?, second: Double?) = (nil, nil)
    private var isIdle: Bool { queued.first == nil }
    /// A cluster waits to be sent (`next` returns it).
    var hasQueued: Bool { !isIdle }
    /// Results at or above this continue the exponential search.
    private var continueAbove: Double?
    private var waitingUntil: UInt64?
    private var lastProbe: UInt64?
    private var lastRequested: UInt64?
    private var retryInterval = ProbeController.firstRetry
    /// The estimate when the last requested probe went out: a result above
    /// it by 10% found headroom.
    private var estimateAtRequest: Double?
    /// What the allocator last said it wants; probes go at most
    /// `overshoot` past it.
    private var wanted: Double?
    /// The rate of the last cluster sent: a continuation must go higher.
    private var lastRate: Double?

    init(maximum: Double) {
        self.maximum = maximum
    }

    private var ceiling: Double { min(wanted ?? maximum, maximum) }

    /// The allocator wants `target`; a probe if it is well above `estimate`.
    mutating func request(target: Double, estimate: Double, now: UInt64) {
        let isNewWant = target > (wanted ?? 0) * 1.2
        wanted = target
        guard target > estimate * 1.2, isIdle else { return }
        if let waitingUntil, now < waitingUntil { return }
        if !isNewWant, let lastRequested, now < lastRequested + retryInterval { return }
        if let before = estimateAtRequest, estimate < before * 1.1 {
            // The last one found nothing: wait longer before the next.
            retryInterval = min(retryInterval * 2, Self.maximumRetry)
        } else {
            retryInterval = Self.firstRetry
        }
        lastRequested = now
        estimateAtRequest = estimate
        enqueue(min(target, 2 * estimate), continuing: true)
    }

    /// A probe cluster measured `bitsPerSecond`; `estimate` is the
    /// estimate after it. Goes on while each cluster is carried (70% of its
    /// rate comes back), the next one is 10% faster than the last (so the
    /// search ends: rates are bounded by `overshoot` past the want; on a
    /// link that reads a steady 70% of each probe, equal rates went on
    /// forever) and it is 20% past the estimate or the estimate is still
    /// short of what is wanted.
    mutating func onResult(_ bitsPerSecond: Double, estimate: Double, now: UInt64) {
        if let before = estimateAtRequest, estimate >= before * 1.1 {
            // Headroom found: the allocator's next want is probed for at
            // the first retry interval, not after the back-off the empty
            // probes before it built up.
            retryInterval = Self.firstRetry
        }
        guard let threshold = continueAbove, bitsPerSecond >= threshold else { return }
        let next = min(2 * bitsPerSecond, ceiling * Self.overshoot, maximum)
        let short = wanted.map { estimate < min($0, maximum) } ?? false
        let rises = next >= (lastRate ?? 0) * 1.1
        let climbs = rises && (next > estimate * 1.2 || short)
        if climbs, isIdle {
            enqueue(next, continuing: true)
        } else {
            continueAbove = nil
        }
    }

    mutating func next(now: UInt64, start: Double, estimate: Double, applicationLimited: Bool) -> (cluster: Int, bitsPerSecond: Double)? {
        if !started {
            started = true
            enqueue(start * Self.initialMultipliers.0, continuing: false)
            enqueue(start * Self.initialMultipliers.1, continuing: true)
        }
        if let waitingUntil, now >= waitingUntil, isIdle {
            self.waitingUntil = nil
            continueAbove = nil
        }
        if isIdle, applicationLimited, waitingUntil == nil,
           now >= (lastProbe ?? 0) + Self.applicationLimitedInterval {
            // No higher than what the allocator wants (libwebrtc caps its
            // idle probes at the allocated maximum too): a subscriber with
            // all it wants needs no proof of more, and at 2x a 20 Mbit/s
            // estimate each idle probe was a 100 kB burst of padding.
            let target = min(2 * estimate, ceiling)
            if target > estimate { enqueue(target, continuing: true) }
        }
        guard let rate = queued.first else { return nil }
        queued = (queued.second, nil)
        lastProbe = now
        lastRate = rate
        waitingUntil = now + Self.resultTimeout
        let cluster = nextCluster
        nextCluster += 1
        return (cluster, rate)
    }

    private mutating func enqueue(_ bitsPerSecond: Double, continuing: Bool) {
        let rate = min(bitsPerSecond, maximum)
        if queued.first == nil {
            queued.first = rate
        } else {
            queued.second = rate
        }
        if continuing { continueAbove = Self.continueRatio * rate }
    }
}
