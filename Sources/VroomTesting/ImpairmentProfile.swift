/// What a link does to the datagrams going one way through the impairment
/// relay: every knob is a probability in 0...1 or a time in milliseconds.
/// The default passes every datagram at once, untouched.
public struct ImpairmentProfile: Sendable, Equatable, Codable {
    /// How the jitter around `delayMilliseconds` is drawn.
    public enum JitterDistribution: String, Sendable, Equatable, Codable, CaseIterable {
        /// Uniform in `delay - jitter ... delay + jitter` ("50 +/- 10 ms").
        case uniform
        /// Normal with mean `delay` and standard deviation `jitter`
        /// (clamped at 0 ms), as netem's default table.
        case normal
    }

    /// Probability that a datagram is dropped.
    public var dropProbability: Double
    /// Mean one-way delay added to every datagram.
    public var delayMilliseconds: Double
    /// Spread of the delay (see `jitterDistribution`).
    public var jitterMilliseconds: Double
    public var jitterDistribution: JitterDistribution
    /// Probability that a datagram is held back `reorderHoldMilliseconds`
    /// beyond its delay so that the datagrams behind it overtake it.
    /// Datagrams that are not picked keep their order even with jitter
    /// (a datagram never leaves before the one in front of it), so jitter
    /// alone never reorders: reordering is this knob's job only.
    public var reorderProbability: Double
    public var reorderHoldMilliseconds: Double
    /// Probability that a datagram is sent twice (both copies at its time).
    public var duplicateProbability: Double
    /// Probability that one byte of a datagram has bits flipped.
    public var corruptProbability: Double
    /// A bottleneck (`BottleneckModel`): the link's rate, nil for none.
    /// Datagrams pass it before the delay above (a queue at the link's
    /// entry, then the way across).
    public var rateKilobitsPerSecond: Int?
    /// The bottleneck's drop-tail queue, in milliseconds of data at its rate.
    public var queueMilliseconds: Double

    public init(
        dropProbability: Double = 0, delayMilliseconds: Double = 0, jitterMilliseconds: Double = 0,
        jitterDistribution: JitterDistribution = .uniform, reorderProbability: Double = 0,
        reorderHoldMilliseconds: Double = 20, duplicateProbability: Double = 0, corruptProbability: Double = 0,
        rateKilobitsPerSecond: Int? = nil, queueMilliseconds: Double = 200
    ) {
        self.dropProbability = dropProbability
        self.delayMilliseconds = delayMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.jitterDistribution = jitterDistribution
        self.reorderProbability = reorderProbability
        self.reorderHoldMilliseconds = reorderHoldMilliseconds
        self.duplicateProbability = duplicateProbability
        self.corruptProbability = corruptProbability
        self.rateKilobitsPerSecond = rateKilobitsPerSecond
        self.queueMilliseconds = queueMilliseconds
    }

    /// A profile that passes everything at once.
    public static let none = ImpairmentProfile()
}
