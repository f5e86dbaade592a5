import Packets
import Testing
@testable import SFU

/// The downlink estimator on a simulated bottleneck (issue 13 item 2's
/// numbers). All time is virtual: a 30 s run takes well under a second.
@Suite struct BandwidthEstimatorTests {
    static let second: UInt64 = 1_000_000_000

    /// The estimate every 100 ms over `seconds` of a run.
    static func curve(_ simulation: inout BandwidthSimulation, seconds: Double) -> [(time: UInt64, estimate: UInt64)] {
        var samples: [(time: UInt64, estimate: UInt64)] = []
        simulation.run(until: UInt64(seconds * 1e9)) { samples.append(($0, $1)) }
        return samples
    }

    @Test(arguments: [300_000.0, 1_000_000.0, 2_500_000.0])
    func explore(bottleneck: Double) {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: bottleneck), sourceCap: 4_000_000)
        let samples = Self.curve(&simulation, seconds: 20)
        print("bottleneck \(bottleneck):", samples.map { "\($0.time / 100_000_000):\($0.estimate / 1000)" }.joined(separator: " "))
    }
}
