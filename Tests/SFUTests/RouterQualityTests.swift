import Packets
import Testing
import WebRTC
@testable import SFU

/// What the router measures for network quality and dominant speaker.
@Suite struct RouterQualityTests {
    static let publisher = TransportID(1)
    static let subscriber = TransportID(10)
    static let audio = TrackID(2)
    static let audioSSRC = SSRC(0xAAAA_0003)
    static let downSSRC = SSRC(0xA3)

    /// A publisher with Opus and audio level on ID 1; a subscriber receiving it.
    func makeRouter() throws -> Router {
        let router = Router()
        try router.addPublisher(
            transport: Self.publisher, transportCCExtensionID: nil, midExtensionID: nil, audioLevelExtensionID: 1)
        try router.addReceiver(
            track: Self.audio, publisher: Self.publisher, kind: .audio, mid: "0", payloadType: 111,
            ssrc: Self.audioSSRC, clockRate: 48_000)
        try router.addSubscriber(transport: Self.subscriber, midExtensionID: nil, transportCCExtensionID: nil)
        try router.addDownTrack(
            track: Self.audio, subscriber: Self.subscriber, ssrc: Self.downSSRC, payloadType: 111,
            initialSequenceNumber: 0)
        return router
    }

    func opus(_ sequence: UInt16, level: UInt8) -> [UInt8] {
        Publish.opus(
            sequence: sequence, timestamp: UInt32(sequence) &* 960, ssrc: Self.audioSSRC,
            extensions: [.init(id: 1, value: [0x80 | level])])
    }

    @Test func audioLevelsAreSummedPerPublisherAndTaken() throws {
        let router = try makeRouter()
        var sink = CollectingSink()
        var now = MediaTime.milliseconds(10_000)
        for (n, level) in [30, 40, 50].enumerated() {
            router.receive(opus(UInt16(100 + n), level: UInt8(level)), from: Self.publisher, now: now, into: &sink)
            now = now.adding(milliseconds: 20)
        }
        var taken: [TransportID: AudioActivity] = [:]
        router.takeAudioActivity { taken[$0] = $1 }
        #expect(taken == [Self.publisher: AudioActivity(packets: 3, levelSum: 120)])
        #expect(taken[Self.publisher]?.meanLevel == 40)
        // Taken means reset.
        router.takeAudioActivity { taken[$0] = $1 }
        #expect(taken[Self.publisher] == AudioActivity())
        // A disabled (muted) track is nobody speaking.
        try router.setForwarding(track: Self.audio, enabled: false, now: now)
        router.receive(opus(103, level: 10), from: Self.publisher, now: now, into: &sink)
        router.takeAudioActivity { taken[$0] = $1 }
        #expect(taken[Self.publisher] == AudioActivity())
    }

    @Test func upstreamLossCountsRepairsAsLostAndKeepsTheGaps() throws {
        let router = try makeRouter()
        var sink = CollectingSink()
        let now = MediaTime.milliseconds(10_000)
        // 100...119 with 105 and 110-111 missing: 20 expected, 3 lost in 2 gaps.
        for sequence in 100...119 as ClosedRange<UInt16> where ![105, 110, 111].contains(sequence) {
            router.receive(opus(sequence, level: 127), from: Self.publisher, now: now, into: &sink)
        }
        let sample = router.takeLinkSample(publisher: Self.publisher, subscriber: nil, now: now)
        #expect(sample.heard)
        // The first packet sets the base: 100...119 is 20 numbers.
        #expect(sample.upstream.audio == LinkSample.LossCount(expected: 20, lost: 3, gaps: 2, gapPackets: 3))
        #expect(sample.upstream.video.expected == 0)
        #expect(sample.upstream.loss?.fraction == 0.15)
        // The next interval starts from there.
        router.receive(opus(120, level: 127), from: Self.publisher, now: now, into: &sink)
        let next = router.takeLinkSample(publisher: Self.publisher, subscriber: nil, now: now)
        #expect(next.upstream.audio == LinkSample.LossCount(expected: 1, lost: 0))
    }

    @Test func downstreamLossLeavesOutWhatThePublishersLinkLost() throws {
        let router = try makeRouter()
        var sink = CollectingSink()
        var now = MediaTime.milliseconds(10_000)
        func report(highest: UInt32, lost: Int32, lastSR: UInt32 = 0, delay: UInt32 = 0) {
            let rr = ReceiverReport(
                ssrc: SSRC(9), reports: [
                    ReceptionReport(
                        ssrc: Self.downSSRC, fractionLost: 0, cumulativeLost: lost, extendedHighestSequence: highest,
                        jitter: 96, lastSR: lastSR, delaySinceLastSR: delay)
                ])
            router.receiveControl(rr, from: Self.subscriber, now: now, into: &sink)
        }
        _ = router.tick(now: now, into: &sink)
        // One packet every 20 ms, on time: no jitter on the publisher's link.
        func send(_ sequence: UInt16) {
            let at = MediaTime.milliseconds(10_000 + UInt64(sequence) * 20)
            router.receive(opus(sequence, level: 127), from: Self.publisher, now: at, into: &sink)
        }
        for sequence in 0..<50 as Range<UInt16> { send(sequence) }
        now = MediaTime.milliseconds(11_000)
        report(highest: 49, lost: 0)
        // 50 more, of which the publisher's link lost 5; the subscriber lost
        // those 5 and 2 of its own.
        for sequence in 50..<100 as Range<UInt16> where sequence % 10 != 0 { send(sequence) }
        now = MediaTime.milliseconds(12_000)
        report(highest: 99, lost: 7)
        let sample = router.takeLinkSample(publisher: nil, subscriber: Self.subscriber, now: now)
        #expect(sample.downstream.audio == LinkSample.LossCount(expected: 50, lost: 2))
        // Jitter 96 / 48 kHz = 2 ms, less the publisher's (0 here).
        #expect(abs((sample.downstream.audioJitter ?? 0) - 0.002) < 1e-9)
        #expect(sample.heard)
    }

    @Test func rttFromAnOlderSenderReportStillCounts() throws {
        let router = try makeRouter()
        var sink = CollectingSink()
        var now = MediaTime.milliseconds(10_000)
        _ = router.tick(now: now, into: &sink)
        router.receive(opus(0, level: 127), from: Self.publisher, now: now, into: &sink)
        // SRs at 11 s and 12 s.
        now = MediaTime.milliseconds(11_000)
        _ = router.tick(now: now, into: &sink)
        now = MediaTime.milliseconds(12_000)
        _ = router.tick(now: now, into: &sink)
        // At 12.6 s a report echoing the 11 s SR, held 1.1 s: RTT 500 ms.
        now = MediaTime.milliseconds(12_600)
        let rr = ReceiverReport(
            ssrc: SSRC(9), reports: [
                ReceptionReport(
                    ssrc: Self.downSSRC, fractionLost: 0, cumulativeLost: 0, extendedHighestSequence: 0, jitter: 0,
                    lastSR: UInt32(truncatingIfNeeded: (11 << 32) >> 16), delaySinceLastSR: 72_090)
            ])
        router.receiveControl(rr, from: Self.subscriber, now: now, into: &sink)
        let sample = router.takeLinkSample(publisher: nil, subscriber: Self.subscriber, now: now)
        let rtt = try #require(sample.roundTripTime)
        #expect(abs(rtt - 0.500) < 0.001)
        // Still the newest measurement 5 s later, gone after that.
        #expect(router.takeLinkSample(publisher: nil, subscriber: Self.subscriber, now: now.adding(milliseconds: 5000)).roundTripTime != nil)
        #expect(router.takeLinkSample(publisher: nil, subscriber: Self.subscriber, now: now.adding(milliseconds: 5001)).roundTripTime == nil)
    }
}
