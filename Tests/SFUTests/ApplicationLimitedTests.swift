import Packets
import Testing
@testable import SFU

/// Application-limited detection and what it changes.
@Suite struct ApplicationLimitedTests {
    /// 100 kbit/s against a 1 Mbit/s estimate is application-limited within
    /// a second; 900 kbit/s is not.
    @Test func detectsASenderWellBelowTheEstimate() {
        func limited(sending bitsPerSecond: Double) -> Bool {
            var detector = ApplicationLimitedDetector()
            let interval = UInt64(1200 * 8 * 1e9 / bitsPerSecond)
            var now: UInt64 = 0
            while now < 2_000_000_000 {
                detector.onSent(bytes: 1200, now: now, estimate: 1_000_000)
                now += interval
            }
            return detector.isApplicationLimited
        }
        #expect(limited(sending: 100_000))
        #expect(!limited(sending: 900_000))
    }

    /// No overuse while application-limited is no reason to grow: AIMD
    /// holds; the same update without ALR grows.
    @Test func rateControlDoesNotGrowWhileApplicationLimited() {
        func after(applicationLimited: Bool) -> Double {
            var control = AIMDRateControl(start: 1_000_000, minimum: 30_000, maximum: 20_000_000)
            for i in 0..<20 {
                control.update(
                    usage: .normal, acknowledged: nil, applicationLimited: applicationLimited,
                    rtt: 100_000_000, now: UInt64(i) * 100_000_000
                )
            }
            return control.estimate
        }
        #expect(after(applicationLimited: true) == 1_000_000)
        #expect(after(applicationLimited: false) > 1_100_000)
    }

    /// While application-limited, a probe at twice the estimate every 5 s
    /// keeps the estimate current.
    @Test func probesPeriodicallyWhileApplicationLimited() {
        var estimator = BandwidthEstimator()
        var now = MediaTime.seconds(0)
        // The initial pair.
        #expect(estimator.nextProbe(now: now) != nil)
        #expect(estimator.nextProbe(now: now) != nil)
        var probes: [ProbeRequest] = []
        for _ in 0..<700 {
            now = now.adding(milliseconds: 10)
            estimator.onPacketSent(size: 120, at: now)  // 96 kbit/s of audio
            if let probe = estimator.nextProbe(now: now) { probes.append(probe) }
        }
        #expect(estimator.isApplicationLimited)
        #expect(probes.count == 1)
        #expect(probes.first?.bitsPerSecond == 600_000)
    }
}
