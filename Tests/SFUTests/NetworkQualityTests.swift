import Packets
import SFU
import Testing
import WebRTC

@Suite struct MeanOpinionScoreTests {
    @Test func aPerfectLinkScoresNearTheModelsMaximum() {
        // R = 93.2 - Id(20 ms) = 92.72: MOS 4.40.
        let mos = MeanOpinionScore.score(roundTripTime: 0, jitter: 0, lossFraction: 0)
        #expect(abs(mos - 4.40) < 0.01)
    }

    @Test func annexBMapping() {
        #expect(MeanOpinionScore.score(rating: -5) == 1)
        #expect(MeanOpinionScore.score(rating: 100) == 4.5)
        // R 50: 1 + 1.75 + 7e-6 * 50 * -10 * 50 = 2.575.
        #expect(abs(MeanOpinionScore.score(rating: 50) - 2.575) < 1e-9)
    }

    @Test func delayCostsLittleBelow177msAndMuchAbove() {
        let short = MeanOpinionScore.rating(oneWayDelay: 0.150, lossFraction: 0)
        let long = MeanOpinionScore.rating(oneWayDelay: 0.400, lossFraction: 0)
        #expect(abs(short - (93.2 - 0.024 * 150)) < 1e-9)
        #expect(abs(long - (93.2 - 0.024 * 400 - 0.11 * (400 - 177.3))) < 1e-9)
    }

    @Test func lossUsesTheCodecsRobustnessAndTheBurstRatio() {
        // Opus, 10% random loss: Ie,eff = 95 * 10 / (10 + 20) = 31.67.
        let random = MeanOpinionScore.rating(oneWayDelay: 0, lossFraction: 0.10)
        #expect(abs(random - (93.2 - 95.0 * 10 / 30)) < 1e-9)
        let bursty = MeanOpinionScore.rating(oneWayDelay: 0, lossFraction: 0.10, burstRatio: 2)
        #expect(bursty < random)
        let video = MeanOpinionScore.rating(oneWayDelay: 0, lossFraction: 0.10, codec: .vp8)
        #expect(video < random)
    }

    @Test func theJitterBufferIsTwoJittersAndOnePacket() {
        #expect(abs(MeanOpinionScore.jitterBuffer(for: 0.010) - 0.040) < 1e-12)
        #expect(abs(MeanOpinionScore.jitterBuffer(for: -1) - 0.020) < 1e-12)
    }
}

@Suite struct NetworkQualityLevelTests {
    @Test func theTableAtItsBoundaries() {
        #expect(NetworkQualityLevel.level(mos: 4.2, lossFraction: 0.0099) == 5)
        #expect(NetworkQualityLevel.level(mos: 4.2, lossFraction: 0.01) == 4)
        #expect(NetworkQualityLevel.level(mos: 4.1999, lossFraction: 0) == 4)
        #expect(NetworkQualityLevel.level(mos: 4.0, lossFraction: 0.0199) == 4)
        #expect(NetworkQualityLevel.level(mos: 3.9999, lossFraction: 0) == 3)
        #expect(NetworkQualityLevel.level(mos: 4.4, lossFraction: 0.02) == 3)
        #expect(NetworkQualityLevel.level(mos: 3.6, lossFraction: 0.0499) == 3)
        #expect(NetworkQualityLevel.level(mos: 3.5999, lossFraction: 0) == 2)
        #expect(NetworkQualityLevel.level(mos: 3.1, lossFraction: 0.0999) == 2)
        #expect(NetworkQualityLevel.level(mos: 4.4, lossFraction: 0.10) == 1)
        #expect(NetworkQualityLevel.level(mos: 3.0999, lossFraction: 0) == 1)
    }
}

@Suite struct QualityWarningsTests {
    typealias Sample = QualityWarnings.Sample

    func run(_ samples: [Sample]) -> [[QualityWarning]] {
        var warnings = QualityWarnings()
        return samples.map {
            warnings.record($0)
            return warnings.list
        }
    }

    @Test func highJitterNeedsThreeOfTheLastFiveAbove30ms() {
        let high = Sample(jitter: 0.0301), edge = Sample(jitter: 0.030)
        // Two above in five: nothing; exactly 30 ms is not above.
        #expect(run([high, edge, high, edge, edge]).last == [])
        let raised = run([high, edge, high, edge, high])
        #expect(raised.dropLast().allSatisfy { $0.isEmpty })
        #expect(raised.last == [.highJitter])
    }

    @Test func nothingIsDecidedBeforeFiveSamples() {
        let high = Sample(jitter: 0.1, roundTripTime: 1, mos: 1)
        #expect(run([high, high, high, high]).last == [])
        #expect(run([high, high, high, high, high]).last == [.highJitter, .highRTT, .lowMOS])
    }

    @Test func aThreeOfFiveWarningClearsWhenNoneOfTheLastFiveIsAbove() {
        let high = Sample(roundTripTime: 0.401), fine = Sample(roundTripTime: 0.400)
        let lists = run([high, high, high, fine, fine, fine, fine, high, fine, fine, fine, fine, fine])
        #expect(lists[2] == [])  // only 3 samples
        #expect(lists[4] == [.highRTT])  // 3 of 5
        #expect(lists[6] == [.highRTT])  // 1 of the last 5 still above
        #expect(lists[7] == [.highRTT])
        #expect(lists[11] == [.highRTT])  // the high one is 5th from the end
        #expect(lists[12] == [])
    }

    @Test func lowMOSIsBelow3point5() {
        #expect(run(Array(repeating: Sample(mos: 3.5), count: 5)).last == [])
        #expect(run(Array(repeating: Sample(mos: 3.4999), count: 5)).last == [.lowMOS])
    }

    @Test func highPacketLossRaisesAboveAThreePercentAverageOfSevenAndClearsAtOnePercent() {
        let at3 = Array(repeating: Sample(lossFraction: 0.03), count: 7)
        #expect(run(at3).last == [])  // an average of exactly 3% is not above
        var samples = Array(repeating: Sample(lossFraction: 0.0301), count: 7)
        #expect(run(samples).dropLast().allSatisfy { $0.isEmpty })
        #expect(run(samples).last == [.highPacketLoss])
        // 7 x 3.01% then clean seconds: the average falls to 1.29% (2 x 0%)
        // ... it stays raised between 1% and 3%, clears at <= 1%.
        samples += Array(repeating: Sample(lossFraction: 0), count: 5)
        let lists = run(samples)
        // After k clean samples the average is (7 - k) * 3.01 / 7 %.
        #expect(lists[7 + 3] == [.highPacketLoss])  // k = 4: 1.29%
        #expect(lists[7 + 4] == [])  // k = 5: 0.86%
    }

    @Test func lossClearsExactlyAtOnePercent() {
        var warnings = QualityWarnings()
        for _ in 0..<7 { warnings.record(Sample(lossFraction: 0.05)) }
        #expect(warnings.list == [.highPacketLoss])
        for _ in 0..<6 { warnings.record(Sample(lossFraction: 0.01)) }
        // 6 x 1% + 1 x 5%: 1.57%, still raised.
        #expect(warnings.list == [.highPacketLoss])
        warnings.record(Sample(lossFraction: 0.01))
        #expect(warnings.list == [])  // 7 x 1%: cleared at <= 1%
    }

    @Test func unmeasuredSamplesNeverRaise() {
        #expect(run(Array(repeating: Sample(), count: 10)).last == [])
    }
}

@Suite struct NetworkQualityMonitorTests {
    let start = MediaTime.milliseconds(1_000_000)

    func audio(expected: Int64 = 50, lost: Int64 = 0, jitter: Double = 0.002) -> LinkSample.Direction {
        LinkSample.Direction(audio: .init(expected: expected, lost: lost), audioJitter: jitter)
    }

    func clean(rtt: Double = 0.002) -> LinkSample {
        LinkSample(upstream: audio(), downstream: audio(), roundTripTime: rtt, heard: true)
    }

    @Test func aCleanLinkIsLevel5WithoutWarnings() {
        var monitor = NetworkQualityMonitor(now: start)
        monitor.record(clean(), now: start.adding(milliseconds: 1000))
        #expect(monitor.poll(now: start.adding(milliseconds: 1000)) == NetworkQualityReport(level: 5, warnings: []))
    }

    @Test func sentOnChangeAndAtMostOnceASecond() {
        var monitor = NetworkQualityMonitor(now: start)
        var t = start.adding(milliseconds: 1000)
        monitor.record(clean(), now: t)
        #expect(monitor.poll(now: t) != nil)
        // The same report again: nothing to send.
        t = t.adding(milliseconds: 1000)
        monitor.record(clean(), now: t)
        #expect(monitor.poll(now: t) == nil)
        // A change 999 ms after the last send waits for the full second.
        var lossy = clean()
        lossy.upstream = audio(lost: 25)
        var m2 = NetworkQualityMonitor(now: start)
        let t0 = start.adding(milliseconds: 1000)
        m2.record(clean(), now: t0)
        #expect(m2.poll(now: t0)?.level == 5)
        let t1 = t0.adding(milliseconds: 999)
        m2.record(lossy, now: t1)
        #expect(m2.poll(now: t1) == nil)
        #expect(m2.nextPoll == t0.adding(milliseconds: 1000))
        let sent = m2.poll(now: t0.adding(milliseconds: 1000))
        #expect(sent != nil && sent!.level < 5)
        #expect(m2.nextPoll == nil)
    }

    @Test func levelZeroAfterFiveSecondsWithoutMedia() {
        var monitor = NetworkQualityMonitor(now: start)
        var silent = clean()
        silent.heard = false
        monitor.record(clean(), now: start.adding(milliseconds: 1000))
        _ = monitor.poll(now: start.adding(milliseconds: 1000))
        // Last heard at 1 s: 4.999 s later still a level from media...
        monitor.record(silent, now: start.adding(milliseconds: 5999))
        #expect(monitor.current?.level != 0)
        // ...5 s later, level 0.
        monitor.record(silent, now: start.adding(milliseconds: 6000))
        #expect(monitor.current?.level == 0)
        #expect(monitor.poll(now: start.adding(milliseconds: 6000))?.level == 0)
        // Media again: back above 0.
        monitor.record(clean(), now: start.adding(milliseconds: 7000))
        #expect(monitor.poll(now: start.adding(milliseconds: 7000))?.level == 5)
    }

    /// A participant that only receives, heard through RTCP every 2-6 s
    /// (RFC 3550's randomized interval at its 5 s minimum, GStreamer's
    /// default), never flaps to 0; once it stops, 0 comes after twice its
    /// longest recent interval, not 5 s.
    @Test func sparseReportsAreNotSilenceButTheirStopIs() {
        var monitor = NetworkQualityMonitor(now: start)
        var silent = clean()
        silent.heard = false
        // Seconds between reports: the first interval is halved (RFC 3550
        // 6.3.2), then anywhere in [2.05, 6.16] s.
        let gaps = [2, 4, 6, 3, 6, 6, 2, 5, 6, 4, 3, 6, 6, 6, 2]
        var second = 1
        var sent: [Int] = []
        monitor.record(clean(), now: start.adding(milliseconds: 1000))
        if let report = monitor.poll(now: start.adding(milliseconds: 1000)) { sent.append(report.level) }
        for gap in gaps {
            for step in 1...gap {
                let t = start.adding(milliseconds: UInt64(second + step) * 1000)
                monitor.record(step == gap ? clean() : silent, now: t)
                if let report = monitor.poll(now: t) { sent.append(report.level) }
            }
            second += gap
        }
        #expect(sent == [5])
        // Intervals up to 6 s: 0 after 12 s of silence, not 5.
        #expect(monitor.silenceTimeout == 12_000_000_000)
        var silentFor = 0
        while monitor.current?.level != 0 && silentFor < 30 {
            silentFor += 1
            monitor.record(silent, now: start.adding(milliseconds: UInt64(second + silentFor) * 1000))
        }
        #expect(silentFor == 12)
    }

    /// However sparse a participant's packets, 12 s of silence is level 0.
    @Test func theSilenceBeforeLevelZeroIsCapped() {
        var monitor = NetworkQualityMonitor(now: start)
        for second in stride(from: 1, through: 121, by: 30) {
            monitor.record(clean(), now: start.adding(milliseconds: UInt64(second) * 1000))
        }
        #expect(monitor.silenceTimeout == monitor.configuration.maximumSilenceTimeout)
        // A publisher heard every second keeps the 5 s rule.
        var everySecond = NetworkQualityMonitor(now: start)
        for second in 1...20 { everySecond.record(clean(), now: start.adding(milliseconds: UInt64(second) * 1000)) }
        #expect(everySecond.silenceTimeout == everySecond.configuration.silenceTimeout)
    }

    @Test func nothingBeforeMediaAndLevelZeroWhenItNeverCame() {
        var monitor = NetworkQualityMonitor(now: start)
        monitor.record(LinkSample(), now: start.adding(milliseconds: 4999))
        #expect(monitor.current == nil)
        #expect(monitor.poll(now: start.adding(milliseconds: 4999)) == nil)
        monitor.record(LinkSample(), now: start.adding(milliseconds: 5000))
        #expect(monitor.current?.level == 0)
    }

    @Test func tenPercentLossDropsTheLevelRaisesTheWarningAndRecovers() {
        var monitor = NetworkQualityMonitor(now: start)
        var lossy = clean()
        lossy.upstream = audio(lost: 5)  // 10%
        var sent: [NetworkQualityReport] = []
        var t = start
        for second in 1...20 {
            t = start.adding(milliseconds: UInt64(second) * 1000)
            monitor.record(second <= 10 ? lossy : clean(), now: t)
            if let report = monitor.poll(now: t) { sent.append(report) }
        }
        // Loss 10% -> MOS 3.15 and loss not below 10%: level 1 at once;
        // after 7 samples high-packet-loss and (3 of 5 below 3.5) low-mos.
        #expect(sent.first == NetworkQualityReport(level: 1, warnings: []))
        #expect(sent.contains(NetworkQualityReport(level: 1, warnings: [.lowMOS])))
        #expect(sent.contains(NetworkQualityReport(level: 1, warnings: [.highPacketLoss, .lowMOS])))
        #expect(sent.last == NetworkQualityReport(level: 5, warnings: []))
    }

    @Test func theWorseDirectionCountsAndDownstreamIsHeldBetweenReports() {
        var monitor = NetworkQualityMonitor(now: start)
        var sample = clean()
        sample.downstream = audio(lost: 5)
        monitor.record(sample, now: start.adding(milliseconds: 1000))
        #expect(monitor.lastLoss == 0.1)
        // No receiver report this second: the last downstream figure stands.
        sample.downstream = LinkSample.Direction()
        monitor.record(sample, now: start.adding(milliseconds: 2000))
        #expect(monitor.lastLoss == 0.1)
        // ...for at most 2.5 s.
        monitor.record(sample, now: start.adding(milliseconds: 3600))
        #expect(monitor.lastLoss == 0)
    }

    @Test func highRTTFromFiveSecondsOfHalfSecondRoundTrips() {
        var monitor = NetworkQualityMonitor(now: start)
        for second in 1...5 { monitor.record(clean(rtt: 0.5), now: start.adding(milliseconds: UInt64(second) * 1000)) }
        #expect(monitor.current?.warnings == [.highRTT])
        // 250 ms one way + 24 ms buffer: R = 93.2 - 6.6 - 10.6 = 76, MOS 3.86: level 3.
        #expect(monitor.current?.level == 3)
    }
}
