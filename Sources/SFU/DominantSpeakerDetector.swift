import Packets

/// What one publisher's audio did over one interval, from the
/// `ssrc-audio-level` extension (RFC 6464): the level is in -dBov, 0 the
/// loudest and 127 silence.
public struct AudioActivity: Sendable, Equatable {
    /// Packets that carried a level.
    public var packets: UInt32 = 0
    /// Sum of their levels (-dBov).
    public var levelSum: UInt32 = 0

    public init(packets: UInt32 = 0, levelSum: UInt32 = 0) {
        self.packets = packets
        self.levelSum = levelSum
    }

    /// The mean level in -dBov (lower is louder), nil without packets.
    public var meanLevel: Double? {
        packets == 0 ? nil : Double(levelSum) / Double(packets)
    }
}

/// The dominant speaker's constants (nanoseconds and -dBov), configurable
/// through `MediaConfiguration.dominantSpeaker`.
public struct DominantSpeakerConfiguration: Sendable, Equatable {
    /// -dBov: at most this is speech. 50 is quiet speech; a silent
    /// microphone sends 70-127.
    public var threshold: Double
    /// "Speaking for 300 ms more than the current one."
    public var switchAdvance: UInt64
    /// "Holds at least 1 s."
    public var minimumHold: UInt64
    /// "After 2 s of silence, null."
    public var silenceTimeout: UInt64
    /// How often the media worker feeds the detector: 100 ms, five Opus
    /// packets, fine enough for a 300 ms rule.
    public var updateInterval: UInt64
    /// An update after a longer pause counts as this long (a stalled
    /// worker must not hand anyone a 300 ms lead in one step).
    public var maximumStep: UInt64 = 200_000_000

    public init(
        threshold: Double = 50, switchAdvance: UInt64 = 300_000_000, minimumHold: UInt64 = 1_000_000_000,
        silenceTimeout: UInt64 = 2_000_000_000, updateInterval: UInt64 = 100_000_000
    ) {
        self.threshold = threshold
        self.switchAdvance = switchAdvance
        self.minimumHold = minimumHold
        self.silenceTimeout = silenceTimeout
        self.updateInterval = updateInterval
    }
}

/// The room's dominant speaker (PROTOCOL.md 3.7 `dominantSpeaker`), sans-I/O:
/// fed each publisher's `AudioActivity` every ~100 ms on a virtual clock.
///
/// A publisher speaks in an interval when its mean level is at or above
/// `threshold` (at most `threshold` -dBov). Each other speaker gains "lead"
/// over the dominant one for the time it speaks while the dominant one is
/// silent or quieter, and loses lead for the time the dominant one speaks
/// while it is silent or quieter (never below 0). A speaker becomes
/// dominant when its lead reaches `switchAdvance` (300 ms: it spoke 300 ms
/// more than the current one) and the current one has held for
/// `minimumHold` (1 s); with nobody dominant, 300 ms of speech is enough
/// (speech long past fades: silence takes lead away at the same rate).
/// When nobody has spoken for `silenceTimeout` (2 s), the dominant speaker
/// becomes nobody (`null` on the wire).
public struct DominantSpeakerDetector<Speaker: Hashable & Sendable>: Sendable {
    public typealias Configuration = DominantSpeakerConfiguration

    /// A change to announce: the new dominant speaker, nil for nobody.
    public struct Change: Sendable, Equatable {
        public var speaker: Speaker?
    }

    public let configuration: Configuration
    public private(set) var dominant: Speaker?
    private var dominantSince: MediaTime?
    private var lastSpeech: MediaTime?
    private var lastUpdate: MediaTime?
    private var leads: [Speaker: UInt64] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// One interval's activity of every publisher (a publisher missing from
    /// `activity` is silent). Returns the change to announce, if any.
    public mutating func update(_ activity: [Speaker: AudioActivity], now: MediaTime) -> Change? {
        let step = min(lastUpdate.map { now.nanoseconds(since: $0) } ?? 0, configuration.maximumStep)
        lastUpdate = now
        var levels: [Speaker: Double] = [:]
        for (speaker, interval) in activity {
            if let level = interval.meanLevel, level <= configuration.threshold { levels[speaker] = level }
        }
        if !levels.isEmpty { lastSpeech = now }
        // Speakers that left take their lead with them.
        for speaker in leads.keys where activity[speaker] == nil && speaker != dominant { leads[speaker] = nil }

        let dominantLevel = dominant.flatMap { levels[$0] }
        for (speaker, level) in levels where speaker != dominant {
            if dominantLevel == nil || level < dominantLevel! { leads[speaker, default: 0] &+= step }
        }
        for (speaker, lead) in leads where speaker != dominant {
            let level = levels[speaker]
            // Losing ground: the dominant one speaks louder, or nobody is
            // dominant and this one went quiet (old speech fades).
            let losing = dominantLevel.map { level == nil || level! > $0 } ?? (dominant == nil && level == nil)
            if losing { leads[speaker] = lead &- min(step, lead) }
        }

        if dominant != nil, let lastSpeech, now.nanoseconds(since: lastSpeech) >= configuration.silenceTimeout {
            return become(nil, now: now)
        }
        if let since = dominantSince, dominant != nil, now.nanoseconds(since: since) < configuration.minimumHold {
            return nil
        }
        // The longest lead wins; ties go to the louder speaker now.
        let best = leads.filter { $0.key != dominant && $0.value >= configuration.switchAdvance }
            .max { a, b in
                a.value != b.value ? a.value < b.value : (levels[a.key] ?? 127) > (levels[b.key] ?? 127)
            }
        guard let best else { return nil }
        return become(best.key, now: now)
    }

    private mutating func become(_ speaker: Speaker?, now: MediaTime) -> Change {
        dominant = speaker
        dominantSince = speaker == nil ? nil : now
        leads.removeAll()
        return Change(speaker: speaker)
    }
}
