import Foundation
import Testing
@testable import SFU

/// The published convergence curves, kept as test vectors: the estimate
/// every 100 ms over the first 10 s of `BandwidthEstimatorTests`' three
/// bottleneck runs, in Fixtures/bwe-<kbit/s>k.csv (`time_ms,estimate_bps`).
/// A change to the estimator that moves a curve fails here, and whoever
/// made it decides whether the new curve is better and re-records it:
///
///     VROOM_RECORD_BWE_FIXTURES=1 swift test --skip-build --filter BandwidthEstimatorFixtureTests
///
/// rewrites the files in the source tree (and fails, so a recording run is
/// never mistaken for a passing one); commit them with the change.
@Suite struct BandwidthEstimatorFixtureTests {
    static let recording = ProcessInfo.processInfo.environment["VROOM_RECORD_BWE_FIXTURES"] == "1"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// A sample may differ from the recorded one by 10% of the bottleneck
    /// (one AIMD step shifted by a feedback interval), and the whole curve
    /// by 3% on average.
    static let sampleTolerance = 0.10
    static let meanTolerance = 0.03

    static func file(_ bottleneck: Double) -> URL {
        fixtures.appendingPathComponent("bwe-\(Int(bottleneck / 1000))k.csv")
    }

    static func csv(_ samples: [(time: UInt64, estimate: Double)]) -> String {
        "time_ms,estimate_bps\n" + samples.map { "\($0.time / 1_000_000),\(Int($0.estimate))\n" }.joined()
    }

    static func parse(_ text: String) -> [(time: UInt64, estimate: Double)] {
        text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let ms = UInt64(fields[0]), let bps = Double(fields[1]) else { return nil }
            return (ms * 1_000_000, bps)
        }
    }

    @Test(arguments: [300_000.0, 1_000_000.0, 2_500_000.0])
    func curveMatchesTheRecordedOne(bottleneck: Double) throws {
        let current = BandwidthEstimatorTests.bottleneckRun(bottleneck, seconds: 10)
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
            try Self.csv(current).write(to: Self.file(bottleneck), atomically: true, encoding: .utf8)
            Issue.record("recorded \(Self.file(bottleneck).path); unset VROOM_RECORD_BWE_FIXTURES to check")
            return
        }
        let recorded = Self.parse(try String(contentsOf: Self.file(bottleneck), encoding: .utf8))
        try #require(recorded.count == current.count)
        var total = 0.0
        var worst = 0.0
        for (now, then) in zip(current, recorded) {
            #expect(now.time == then.time)
            let error = abs(now.estimate - then.estimate) / bottleneck
            worst = max(worst, error)
            total += error
        }
        let mean = total / Double(current.count)
        print("BWE fixture \(Int(bottleneck / 1000))k: worst sample off by \(worst * 100)%, mean \(mean * 100)%")
        #expect(worst <= Self.sampleTolerance)
        #expect(mean <= Self.meanTolerance)
    }
}
