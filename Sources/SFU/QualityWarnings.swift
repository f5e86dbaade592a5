/// One warning of PROTOCOL.md 3.8, by its wire name (Twilio Voice SDK's).
public enum QualityWarning: String, Sendable, Hashable, CaseIterable, Comparable {
    case highJitter = "high-jitter"
    case highRTT = "high-rtt"
    case highPacketLoss = "high-packet-loss"
    case lowMOS = "low-mos"

    /// The order warnings are listed in: the order of the cases.
    public static func < (lhs: QualityWarning, rhs: QualityWarning) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The warnings' raise and clear rules over the last samples (one a
/// second), with the thresholds of Twilio's Voice SDK (PROTOCOL.md 3.8):
///
/// - `high-jitter`: raised when 3 of the last 5 samples have jitter above
///   30 ms; cleared when none of the last 5 has.
/// - `high-rtt`: the same with RTT above 400 ms.
/// - `low-mos`: the same with MOS below 3.5.
/// - `high-packet-loss`: raised when the average loss of the last 7 samples
///   is above 3%; cleared when it is at or below 1%.
///
/// A rule decides only once its window is full (5 or 7 samples), so a
/// participant is never warned on its first second. A sample without a
/// value (no RTT measured yet) never counts as above a threshold and is
/// left out of the loss average. "Cleared when none of the last 5" is the
/// Voice SDK's clear count of 0; the protocol gives only the raise rule.
public struct QualityWarnings: Sendable, Equatable {
    public struct Thresholds: Sendable, Equatable {
        /// Seconds.
        public var jitter = 0.030
        /// Seconds.
        public var roundTripTime = 0.400
        public var mos = 3.5
        /// Loss fractions: raise above, clear at or below.
        public var lossRaise = 0.03
        public var lossClear = 0.01
        /// "3 of the last 5".
        public var countWindow = 5
        public var raiseCount = 3
        /// "the last 7".
        public var lossWindow = 7

        public init() {}
    }

    /// One second's values; nil when not measured.
    public struct Sample: Sendable, Equatable {
        public var jitter: Double?
        public var roundTripTime: Double?
        public var lossFraction: Double?
        public var mos: Double?

        public init(jitter: Double? = nil, roundTripTime: Double? = nil, lossFraction: Double? = nil, mos: Double? = nil) {
            self.jitter = jitter
            self.roundTripTime = roundTripTime
            self.lossFraction = lossFraction
            self.mos = mos
        }
    }

    public let thresholds: Thresholds
    /// The newest sample last; at most `max(countWindow, lossWindow)`.
    public private(set) var samples: [Sample] = []
    /// The warnings raised now.
    public private(set) var active: Set<QualityWarning> = []

    public init(thresholds: Thresholds = Thresholds()) {
        self.thresholds = thresholds
    }

    /// The active warnings in wire order.
    public var list: [QualityWarning] { active.sorted() }

    /// Adds a sample and applies the rules.
    public mutating func record(_ sample: Sample) {
        samples.append(sample)
        let keep = max(thresholds.countWindow, thresholds.lossWindow)
        if samples.count > keep { samples.removeFirst(samples.count - keep) }

        let limits = thresholds
        apply(.highJitter) { $0.jitter.map { $0 > limits.jitter } ?? false }
        apply(.highRTT) { $0.roundTripTime.map { $0 > limits.roundTripTime } ?? false }
        apply(.lowMOS) { $0.mos.map { $0 < limits.mos } ?? false }

        guard samples.count >= thresholds.lossWindow else { return }
        let known = samples.suffix(thresholds.lossWindow).compactMap(\.lossFraction)
        guard !known.isEmpty else {
            active.remove(.highPacketLoss)
            return
        }
        // 1e-9 absorbs the rounding of the sum: seven samples of exactly 3%
        // average to 3.0000000000000002%, which is not "above 3%".
        let average = known.reduce(0, +) / Double(known.count)
        if average > thresholds.lossRaise + 1e-9 {
            active.insert(.highPacketLoss)
        } else if average <= thresholds.lossClear + 1e-9 {
            active.remove(.highPacketLoss)
        }
    }

    /// "N of the last 5" for one warning: raise at `raiseCount`, clear at 0.
    private mutating func apply(_ warning: QualityWarning, over: (Sample) -> Bool) {
        guard samples.count >= thresholds.countWindow else { return }
        let count = samples.suffix(thresholds.countWindow).filter(over).count
        if count >= thresholds.raiseCount {
            active.insert(warning)
        } else if count == 0 {
            active.remove(warning)
        }
    }
}
