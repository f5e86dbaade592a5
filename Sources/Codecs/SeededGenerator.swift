/// A deterministic random number generator (SplitMix64) for synthetic
/// inputs: the load tester's tones and join order, property tests, fuzz-style
/// robustness tests and the impairment relay. The same seed gives the same
/// sequence on every machine, so a failing case or a load run can be replayed
/// from its seed. It lives here, beside the synthetic sources, because the
/// load tester may import Codecs but not VroomTesting (DESIGN.md: no shipped
/// product links VroomTesting); VroomTesting names it for the tests.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}
