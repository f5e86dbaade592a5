import Packets

/// A participant's network quality (PROTOCOL.md 3.8) as sent in
/// `networkQuality`: level 0-5 and the active warnings in wire order.
public struct NetworkQualityReport: Sendable, Hashable {
    public var level: Int
    public var warnings: [QualityWarning]

    public init(level: Int, warnings: [QualityWarning]) {
        self.level = level
        self.warnings = warnings
    }
}

/// One participant's network quality, sans-I/O: fed one `LinkSample` a
/// second (`record`), asked what to send (`poll`). Decides:
///
/// - the sample's loss: the worse direction (audio's figures when audio
///   flowed, `LinkSample.Direction.loss`); a downstream figure is kept for
///   `downstreamHold` because receiver reports come every 0.5-1.5 s, not
///   every second;
/// - jitter: the worse direction; RTT: the subscriber connection's newest;
/// - MOS: `MeanOpinionScore` with Opus's impairment when audio flowed either
///   way, else VP8's, and the upstream burst ratio;
/// - the level: `NetworkQualityLevel` on the mean MOS and loss of the last
///   `levelWindow` samples (one odd second does not flap the level), 0 once
///   nothing arrived from the participant for `silenceTimeout`, or for
///   twice its longest recent interval between packets when that is longer (no
///   report at all before the first packet or that timeout). A participant
///   that only receives is heard through its RTCP alone, and an RFC 3550
///   client (GStreamer's webrtcbin) sends that 2-6 s apart: a fixed 5 s
///   flapped its level between 0 and 5 every few seconds, each flip a
///   `networkQuality` to everyone in the room;
/// - the warnings: `QualityWarnings`;
/// - what to send: the report when it differs from the last one sent and
///   the last was sent at least `minimumInterval` ago.
public struct NetworkQualityMonitor: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// "At most once a second" (PROTOCOL.md 3.8).
        public var minimumInterval: UInt64 = 1_000_000_000
        /// "0: nothing from the participant for 5 s": the silence that
        /// means level 0 for a participant heard at least every 2.5 s.
        public var silenceTimeout: UInt64 = 5_000_000_000
        /// The longest silence that waits for level 0, however sparse the
        /// participant's usual packets (RFC 3550's reports at its 5 s
        /// minimum interval come at most 6.2 s apart: about twice that).
        public var maximumSilenceTimeout: UInt64 = 12_000_000_000
        public var levelWindow = 3
        public var downstreamHold: UInt64 = 2_500_000_000
        public var thresholds = QualityWarnings.Thresholds()

        public init() {}
    }

    public let configuration: Configuration
    public private(set) var warnings: QualityWarnings
    /// The newest report (what `poll` sends when it may).
    public private(set) var current: NetworkQualityReport?
    /// The newest sample's figures, for stats.
    public private(set) var lastMOS: Double?
    public private(set) var lastLoss: Double?
    public private(set) var lastJitter: Double?
    public private(set) var lastRoundTripTime: Double?
    private var lastHeard: MediaTime
    private var everHeard = false
    /// The last `gapWindow` intervals between the samples that heard the
    /// participant, oldest first.
    private var gaps: [UInt64] = []
    private static let gapWindow = 8
    private var lastSent: (report: NetworkQualityReport, at: MediaTime)?
    private var downstream: (loss: Double?, jitter: Double?, at: MediaTime)?
    private var recent: [(mos: Double, loss: Double)] = []

    /// `now`: when the participant's media started to be watched; level 0
    /// comes `silenceTimeout` after it if nothing arrives.
    public init(configuration: Configuration = Configuration(), now: MediaTime) {
        self.configuration = configuration
        self.warnings = QualityWarnings(thresholds: configuration.thresholds)
        self.lastHeard = now
    }

    /// One interval's measurements, taken at `now`.
    public mutating func record(_ sample: LinkSample, now: MediaTime) {
        if sample.heard {
            if everHeard {
                gaps.append(min(now.nanoseconds(since: lastHeard), configuration.maximumSilenceTimeout))
                if gaps.count > Self.gapWindow { gaps.removeFirst() }
            }
            lastHeard = now
            everHeard = true
        }
        if now.nanoseconds(since: lastHeard) >= silenceTimeout {
            warnings.record(QualityWarnings.Sample())
            recent.removeAll()
            lastMOS = nil
            current = NetworkQualityReport(level: 0, warnings: warnings.list)
            return
        }
        // Nothing to rate before the first packet (level 0 comes after 5 s).
        guard everHeard else { return }

        let upLoss = sample.upstream.loss
        let downLoss = sample.downstream.loss
        if downLoss != nil || sample.downstream.jitter != nil {
            downstream = (downLoss?.fraction, sample.downstream.jitter, now)
        } else if let held = downstream, now.nanoseconds(since: held.at) > configuration.downstreamHold {
            downstream = nil
        }
        let loss = Self.worse(upLoss?.fraction, downstream?.loss)
        let jitter = Self.worse(sample.upstream.jitter, downstream?.jitter)
        let rtt = sample.roundTripTime
        let audio = sample.upstream.carriedAudio || sample.downstream.carriedAudio
        let mos = MeanOpinionScore.score(
            roundTripTime: rtt ?? 0, jitter: jitter ?? 0, lossFraction: loss ?? 0,
            burstRatio: upLoss?.burstRatio ?? 1, codec: audio ? .opus : .vp8)

        lastMOS = mos
        lastLoss = loss
        lastJitter = jitter
        lastRoundTripTime = rtt
        warnings.record(QualityWarnings.Sample(jitter: jitter, roundTripTime: rtt, lossFraction: loss, mos: mos))
        recent.append((mos, loss ?? 0))
        if recent.count > configuration.levelWindow { recent.removeFirst(recent.count - configuration.levelWindow) }
        let meanMOS = recent.map(\.mos).reduce(0, +) / Double(recent.count)
        let meanLoss = recent.map(\.loss).reduce(0, +) / Double(recent.count)
        current = NetworkQualityReport(
            level: NetworkQualityLevel.level(mos: meanMOS, lossFraction: meanLoss), warnings: warnings.list)
    }

    /// How long without a packet means level 0: `silenceTimeout`, or twice
    /// the longest of the participant's last 8 intervals between packets
    /// when that is longer, up to `maximumSilenceTimeout`.
    public var silenceTimeout: UInt64 {
        min(max(2 * (gaps.max() ?? 0), configuration.silenceTimeout), configuration.maximumSilenceTimeout)
    }

    /// The report to send now, if any: marks it sent.
    public mutating func poll(now: MediaTime) -> NetworkQualityReport? {
        guard let current else { return nil }
        if let last = lastSent {
            guard last.report != current, now.nanoseconds(since: last.at) >= configuration.minimumInterval else {
                return nil
            }
        }
        lastSent = (current, now)
        return current
    }

    /// When `poll` may send a pending change, if one is held back.
    public var nextPoll: MediaTime? {
        guard let current, let last = lastSent, last.report != current else { return nil }
        return last.at.adding(nanoseconds: configuration.minimumInterval)
    }

    private static func worse(_ a: Double?, _ b: Double?) -> Double? {
        switch (a, b) {
        case (nil, nil): nil
        case (let a?, nil): a
        case (nil, let b?): b
        case (let a?, let b?): max(a, b)
        }
    }
}
