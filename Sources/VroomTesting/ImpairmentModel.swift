#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides, from a seed, what happens to each datagram going one way:
/// sans-I/O, so the same seed and the same datagram lengths give the same
/// decisions on every machine (the relay's determinism rests on this).
///
/// Every datagram consumes exactly seven random numbers, whatever the
/// profile and the outcome, so changing one knob (say the delay) leaves the
/// other knobs' decisions for a seed unchanged.
public struct ImpairmentModel: Sendable {
    public private(set) var profile: ImpairmentProfile
    public private(set) var counters = ImpairmentCounters()
    private var generator: SeededGenerator

    public init(profile: ImpairmentProfile, seed: UInt64) {
        self.profile = profile
        self.generator = SeededGenerator(seed: seed)
    }

    /// Changes the link from the next datagram on; the random stream goes on
    /// where it was, so a run with the same seed and schedule replays.
    public mutating func setProfile(_ profile: ImpairmentProfile) {
        self.profile = profile
    }

    /// The decision for the next datagram, of `length` bytes; counts it.
    public mutating func decide(length: Int) -> ImpairmentDecision {
        let drop = unit()
        let jitter1 = unit()
        let jitter2 = unit()
        let reorder = unit()
        let duplicate = unit()
        let corrupt = unit()
        let flip = generator.next()

        counters.received += 1
        if drop < profile.dropProbability {
            counters.dropped += 1
            return ImpairmentDecision(dropped: true)
        }
        var decision = ImpairmentDecision()
        var milliseconds = profile.delayMilliseconds + jitterSample(jitter1, jitter2)
        if reorder < profile.reorderProbability {
            decision.reordered = true
            milliseconds += profile.reorderHoldMilliseconds
            counters.reordered += 1
        }
        decision.delayNanoseconds = UInt64(max(0, milliseconds) * 1_000_000)
        if duplicate < profile.duplicateProbability {
            decision.duplicated = true
            counters.duplicated += 1
        }
        if corrupt < profile.corruptProbability, length > 0 {
            // Low bits pick the byte; bits 32... the mask, forced non-zero.
            let index = Int(flip % UInt64(length))
            let mask = UInt8(truncatingIfNeeded: flip >> 32) | 0x01
            decision.corruption = .init(index: index, mask: mask)
            counters.corrupted += 1
        }
        return decision
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    private mutating func unit() -> Double {
        Double(generator.next() >> 11) * 0x1p-53
    }

    /// Milliseconds to add to the mean delay, from two uniform draws.
    private func jitterSample(_ u1: Double, _ u2: Double) -> Double {
        let jitter = profile.jitterMilliseconds
        guard jitter > 0 else { return 0 }
        switch profile.jitterDistribution {
        case .uniform:
            return (u1 * 2 - 1) * jitter
        case .normal:
            // Box-Muller; 1 - u1 is in (0, 1], so the log is finite.
            let radius = (-2 * log(1 - u1)).squareRoot()
            return radius * cos(2 * Double.pi * u2) * jitter
        }
    }
}
