import Packets
import Testing
@testable import SFU

/// The downlink estimator on a simulated bottleneck (issue 13 item 2's
/// numbers): 1200-byte packets, a 100 ms drop-tail queue, 30 ms one way,
/// feedback every 50 ms, a sender whose source could send 4 Mbit/s and asks
/// for it (`requestProbe`). All time is virtual: a 30 s run takes
/// milliseconds. Each test prints the figures it measured.
@Suite struct BandwidthEstimatorTests {
    static let second: UInt64 = 1_000_000_000

    static func run(_ simulation: inout BandwidthSimulation, until seconds: Double) -> [(time: UInt64, estimate: Double)] {
        var samples: [(time: UInt64, estimate: Double)] = []
        simulation.run(until: UInt64(seconds * 1e9)) { samples.append(($0, Double($1))) }
        return samples
    }

    static func bottleneckRun(_ bitsPerSecond: Double, seconds: Double = 20) -> [(time: UInt64, estimate: Double)] {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: bitsPerSecond), sourceCap: 4_000_000)
        return run(&simulation, until: seconds)
    }

    /// From the start bitrate (300 kbit/s) to within 15% of the bottleneck
    /// by 5 s, and within it from then on (to 20 s).
    @Test(arguments: [300_000.0, 1_000_000.0, 2_500_000.0])
    func convergesToTheBottleneckWithinFiveSeconds(bottleneck: Double) {
        let samples = Self.bottleneckRun(bottleneck)
        let settled = samples.filter { $0.time >= 5 * Self.second }
        let low = settled.map(\.estimate).min() ?? 0
        let high = settled.map(\.estimate).max() ?? 0
        let firstWithin = samples.first { abs($0.estimate - bottleneck) <= 0.15 * bottleneck }?.time
        print("BWE \(Int(bottleneck / 1000)) kbit/s: within 15% first at \(firstWithin.map { Double($0) / 1e9 } ?? -1) s; 5-20 s range \(Int(low / 1000))-\(Int(high / 1000)) kbit/s")
        #expect(low >= 0.85 * bottleneck)
        #expect(high <= 1.15 * bottleneck)
    }

    /// A minute on a steady 1 Mbit/s link: after convergence the estimate
    /// stays within 15% of its own mean (the AIMD sawtooth, no wider), and
    /// the delay trend keeps the queue short and the loss low (the loss
    /// bound alone would also hold the rate near the link, by filling the
    /// 100 ms queue and dropping).
    @Test func steadyLinkGivesASteadyEstimate() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 1_000_000), sourceCap: 4_000_000)
        _ = Self.run(&simulation, until: 5)
        simulation.link.resetCounts()
        let samples = Self.run(&simulation, until: 60)
        let link = simulation.link
        let queueing = Double(link.queueingDelayTotal) / Double(max(link.delivered, 1)) / 1e6
        let loss = Double(link.dropped) / Double(link.dropped + link.delivered)
        print("BWE steady 1 Mbit/s, 5-60 s: mean queueing delay \(queueing) ms, loss \(loss * 100)%")
        #expect(queueing < 30)
        #expect(loss < 0.01)
        let values = samples.map(\.estimate)
        let mean = values.reduce(0, +) / Double(values.count)
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        print("BWE steady 1 Mbit/s, 5-60 s: mean \(Int(mean / 1000)), range \(Int(low / 1000))-\(Int(high / 1000)) kbit/s")
        #expect(low >= 0.85 * mean)
        #expect(high <= 1.15 * mean)
    }

    /// 2.5 Mbit/s, halved at 10 s: below 1.25 Mbit/s within 1 s. Restored
    /// at 20 s: back within 15% of 2.5 Mbit/s within 10 s.
    @Test func followsAHalvedAndRestoredBottleneck() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 2_500_000), sourceCap: 4_000_000)
        _ = Self.run(&simulation, until: 10)
        simulation.link.bitsPerSecond = 1_250_000
        let halved = Self.run(&simulation, until: 20)
        let below = halved.first { $0.estimate < 1_250_000 }?.time
        simulation.link.bitsPerSecond = 2_500_000
        let restored = Self.run(&simulation, until: 30)
        let recovered = restored.first { $0.estimate >= 0.85 * 2_500_000 }?.time
        print("BWE halved at 10 s: below 1.25 Mbit/s at \(below.map { Double($0) / 1e9 } ?? -1) s; restored at 20 s: within 15% at \(recovered.map { Double($0) / 1e9 } ?? -1) s")
        #expect((below ?? .max) <= 11 * Self.second)
        #expect((recovered ?? .max) <= 30 * Self.second)
        // And it stays below the halved link's rate until the restore, give
        // or take the 15% sawtooth.
        let afterReaction = halved.filter { $0.time >= 11 * Self.second }.map(\.estimate)
        #expect((afterReaction.max() ?? .infinity) <= 1.15 * 1_250_000)
    }

    /// A subscriber's link cut to a seventh mid-call (interop bwe-cut:
    /// 1.8 Mbit/s of simulcast f into 250 kbit/s, behind htb's 30-packet
    /// queue, 1.15 s at that rate): the estimate must be under the new
    /// rate (+15%) within 1 s, so the allocator moves straight to a layer
    /// that fits rather than stepping down through the ones that do not
    /// (issue 13: down within 3 s, no decode gap over 2 s).
    @Test func aLinkCutToASeventhIsFoundWithinASecond() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 5_000_000), sourceCap: 1_800_000)
        _ = Self.run(&simulation, until: 10)
        simulation.link.bitsPerSecond = 250_000
        simulation.link.queueLimit = 30 * 1200 * 8 / 250_000
        let cut = Self.run(&simulation, until: 20)
        let below = cut.first { $0.estimate <= 1.15 * 250_000 }?.time
        print("BWE cut from 5 Mbit/s (1.8 sent) to 250 kbit/s at 10 s, 30-packet queue: under 288 kbit/s at \(below.map { Double($0) / 1e9 } ?? -1) s; \(cut.prefix(20).map { "\(Int($0.estimate / 1000))" }.joined(separator: " "))")
        #expect((below ?? .max) <= 11 * Self.second)
    }

    /// A subscriber held on its lowest layer (180 kbit/s sent) by a
    /// 250 kbit/s link that is then lifted (5 Mbit/s), its allocator
    /// wanting 2 Mbit/s: only probes can show the room, and they must find
    /// it within 10 s (issue 13: back up within 15 s, the allocator's 5 s
    /// hold included).
    @Test func anApplicationLimitedSenderFindsARestoredLinkByProbing() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 250_000), sourceCap: 180_000)
        simulation.probeTarget = 2_000_000
        let cut = Self.run(&simulation, until: 10)
        simulation.link.bitsPerSecond = 5_000_000
        let restored = Self.run(&simulation, until: 25)
        let found = restored.first { $0.estimate >= 0.85 * 2_000_000 }?.time
        print("BWE held at 180 kbit/s: cut to 250 kbit/s, estimate at 10 s \(Int((cut.last?.estimate ?? 0) / 1000)) kbit/s; link restored at 10 s: 1.7 Mbit/s at \(found.map { Double($0) / 1e9 } ?? -1) s; \(restored.filter { $0.time % Self.second == 0 }.map { Int($0.estimate / 1000) })")
        #expect((cut.last?.estimate ?? .infinity) <= 1.15 * 250_000)
        #expect((found ?? .max) <= 20 * Self.second)
    }

    /// A link that dropped much of what was sent (the loss bound cut the
    /// estimate), then nearly nothing sent (every video switched off, audio
    /// left), then the link widened: the probes that come back whole lift
    /// the loss bound too, so the estimate finds the room within 10 s.
    @Test func probesLiftALossBoundLeftByCongestion() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 300_000), sourceCap: 3_000_000)
        simulation.link.queueLimit = 0.02
        _ = Self.run(&simulation, until: 10)
        simulation.sourceCap = 40_000
        simulation.probeTarget = 2_000_000
        simulation.link.bitsPerSecond = 5_000_000
        let widened = Self.run(&simulation, until: 25)
        let found = widened.first { $0.estimate >= 0.85 * 2_000_000 }?.time
        print("BWE after loss, then idle on a widened link: \(widened.filter { $0.time % Self.second == 0 }.map { Int($0.estimate / 1000) }) kbit/s")
        #expect((found ?? .max) <= 20 * Self.second)
    }

    /// A sender with only 100 kbit/s to send on a 2.5 Mbit/s link: the
    /// estimate does not fall (nothing is congested) and does not climb past
    /// the link (only probes, which measure it, raise it).
    @Test func applicationLimitedSenderNeitherDropsNorInflatesTheEstimate() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 2_500_000), sourceCap: 100_000)
        let samples = Self.run(&simulation, until: 30)
        let values = samples.map(\.estimate)
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        print("BWE application-limited (100 kbit/s on 2.5 Mbit/s), 0-30 s: range \(Int(low / 1000))-\(Int(high / 1000)) kbit/s, ALR \(simulation.estimator.isApplicationLimited)")
        #expect(simulation.estimator.isApplicationLimited)
        #expect(low >= 300_000)
        #expect(high <= 1.15 * 2_500_000)
    }

    /// Without the probes (so only AIMD could raise it): an idle link is no
    /// proof of capacity, the estimate stays at the start rate.
    @Test func applicationLimitedSenderWithoutProbesKeepsTheStartRate() {
        var simulation = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 2_500_000), sourceCap: 100_000)
        simulation.probes = false
        let samples = Self.run(&simulation, until: 30)
        let values = samples.map(\.estimate)
        print("BWE application-limited, no probes: range \(Int((values.min() ?? 0) / 1000))-\(Int((values.max() ?? 0) / 1000)) kbit/s")
        #expect((values.min() ?? 0) >= 300_000)
        #expect((values.max() ?? .infinity) <= 1.15 * 300_000)
    }

    /// 15% random loss on a 2.5 Mbit/s link (no queueing signal at all):
    /// the loss bound takes the estimate down.
    @Test func heavyRandomLossLowersTheEstimate() {
        var clean = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 2_500_000), sourceCap: 4_000_000)
        _ = Self.run(&clean, until: 10)
        var lossy = BandwidthSimulation(link: BottleneckLink(bitsPerSecond: 2_500_000, randomLoss: 0.15), sourceCap: 4_000_000)
        _ = Self.run(&lossy, until: 10)
        print("BWE 15% random loss at 10 s: \(lossy.estimator.estimate / 1000) kbit/s (no loss: \(clean.estimator.estimate / 1000))")
        #expect(lossy.estimator.estimate < clean.estimator.estimate / 2)
        #expect(lossy.estimator.lossFraction > 0.1)
    }
}
