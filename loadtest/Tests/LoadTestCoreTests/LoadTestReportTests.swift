import Foundation
import Testing

@testable import LoadTestCore

@Suite struct LoadTestReportTests {
    typealias Sent = ParticipantSnapshot.SentTrack
    typealias Received = ParticipantSnapshot.ReceivedTrack

    static func configuration(maxLoss: Double = 0.05) throws -> LoadTestConfiguration {
        try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--subscribers", "2", "--max-loss", "\(maxLoss)"]))
    }

    static let rooms = [LoadPlan.Room(index: 0, name: "lt-0", maxParticipants: 3)]

    /// One publisher (audio + video), two subscribers; s0 decodes, s1 counts.
    /// Over a 10 s window s0 gets 400,000 bytes of video and s1 300,000.
    static func observations(maxLoss: Double = 0.05, s1Lost: Int = 10, joins: [JoinRecord]? = nil) throws -> RunObservations {
        func publisher(videoBytes: Int, frames: Int) -> ParticipantSnapshot {
            ParticipantSnapshot(identity: "p0-r0", roomName: "lt-0", role: .publisher, decodesVideo: false, sent: [
                Sent(trackSid: "MTa", name: "microphone", kind: "audio", packetsSent: 1500, bytesSent: 90_000, framesSent: 1500),
                Sent(trackSid: "MTv", name: "camera", kind: "video", packetsSent: 3000, bytesSent: videoBytes, framesSent: frames,
                     retransmissionsSent: 4, keyframeRequestsReceived: 2),
            ])
        }
        let start = [
            publisher(videoBytes: 100_000, frames: 60),
            ParticipantSnapshot(identity: "s0-r0", roomName: "lt-0", role: .subscriber, decodesVideo: true, received: [
                Received(trackSid: "MTv", kind: "video", packetsReceived: 100, bytesReceived: 100_000, packetsLost: 0,
                         framesDecoded: 50, frameNumbersRead: 50, firstFrameNumber: 10, latencyMilliseconds: [900, 900]),
                Received(trackSid: "MTa", kind: "audio", packetsReceived: 100, bytesReceived: 6_000, packetsLost: 0),
            ]),
            ParticipantSnapshot(identity: "s1-r0", roomName: "lt-0", role: .subscriber, decodesVideo: false, received: [
                Received(trackSid: "MTv", kind: "video", packetsReceived: 100, bytesReceived: 50_000, packetsLost: 5),
            ]),
        ]
        let end = [
            publisher(videoBytes: 600_000, frames: 310),
            ParticipantSnapshot(identity: "s0-r0", roomName: "lt-0", role: .subscriber, decodesVideo: true, received: [
                Received(trackSid: "MTv", kind: "video", packetsReceived: 1090, bytesReceived: 500_000, packetsLost: 0,
                         framesDecoded: 296, frameNumbersRead: 294, firstFrameNumber: 10,
                         latencyMilliseconds: [900, 900] + Array(repeating: 40, count: 99) + [80], nacksSent: 3),
                Received(trackSid: "MTa", kind: "audio", packetsReceived: 600, bytesReceived: 36_000, packetsLost: 0),
            ]),
            ParticipantSnapshot(identity: "s1-r0", roomName: "lt-0", role: .subscriber, decodesVideo: false, received: [
                Received(trackSid: "MTv", kind: "video", packetsReceived: 1100, bytesReceived: 350_000, packetsLost: 5 + s1Lost),
            ]),
        ]
        let defaultJoins = [
            JoinRecord(identity: "p0-r0", roomName: "lt-0", role: .publisher, joinMilliseconds: 100),
            JoinRecord(identity: "s0-r0", roomName: "lt-0", role: .subscriber, joinMilliseconds: 200),
            JoinRecord(identity: "s1-r0", roomName: "lt-0", role: .subscriber, joinMilliseconds: 300),
        ]
        return RunObservations(
            configuration: try configuration(maxLoss: maxLoss), startedAt: Date(timeIntervalSince1970: 0), rooms: rooms,
            joins: joins ?? defaultJoins, windowStart: start, windowEnd: end, windowSeconds: 10,
            metricsBefore: MetricsSnapshot(parsing: "vroom_packets_forwarded_total{kind=\"video\"} 1000\nvroom_retransmissions_total 1"),
            metricsAfter: MetricsSnapshot(parsing: "vroom_packets_forwarded_total{kind=\"video\"} 21000\nvroom_retransmissions_total 5"),
            scrapeSeconds: 20,
            cpuBefore: ProcessCPUTime(ticks: 1000, ticksPerSecond: 100), cpuAfter: ProcessCPUTime(ticks: 1200, ticksPerSecond: 100))
    }

    @Test func windowedRatesLossAndLatency() throws {
        let report = LoadTestReport(observations: try Self.observations())
        #expect(report.tracks.map(\.kind) == ["audio", "video"])
        let video = try #require(report.tracks.first { $0.kind == "video" })
        #expect(video.subscribers == 2)
        // (400,000 + 300,000) bytes * 8 / 10 s / 2 receivers.
        #expect(video.receivedBitrateMean == 280_000)
        #expect(video.packetsReceived == 990 + 1000)
        #expect(video.packetsLost == 10)
        #expect(video.lossFraction == 10.0 / 2000)
        // Only the window's samples: the two 900 ms ones came before it.
        #expect(video.latencyMilliseconds.count == 100)
        // HdrHistogram reports the highest value equivalent to a bucket (3 significant digits: within 0.1%).
        #expect(abs((video.latencyMilliseconds.p50 ?? 0) - 40) <= 0.04)
        #expect(report.latencyMilliseconds.count == 100)
        #expect(abs((report.latencyMilliseconds.max ?? 0) - 80) <= 0.08)
        let audio = try #require(report.tracks.first { $0.kind == "audio" })
        #expect(audio.subscribers == 1)
        #expect(audio.receivedBitrateMean == 24_000)
        #expect(audio.sampled.isEmpty)
        #expect(report.lossFraction == 10.0 / 2500)
    }

    @Test func framesReadAgainstFramesSentSinceTheFirstOne() throws {
        let report = LoadTestReport(observations: try Self.observations())
        let video = try #require(report.tracks.first { $0.kind == "video" })
        let sampled = try #require(video.sampled.first)
        #expect(video.sampled.count == 1)  // s1 does not decode
        #expect(sampled.subscriber == "s0-r0")
        #expect(sampled.framesExpected == 300)  // 310 sent, first read was frame 10
        #expect(sampled.frameRatio == 294.0 / 300)
        #expect(report.worstFrameRatio == 294.0 / 300)
        #expect(video.framesSent == 310)
    }

    /// With the frame numbers read as ranges, only those below the frames
    /// its publisher had sent count: one read after the publisher's
    /// snapshot is not counted, and a gap is missing.
    @Test func framesReadAfterThePublishersSnapshotDoNotCount() throws {
        var observations = try Self.observations()
        let s0 = try #require(observations.windowEnd.firstIndex { $0.identity == "s0-r0" })
        // 10...199 and 210...320: 190 + 100 below the 310 sent (0...309), 11 past them.
        observations.windowEnd[s0].received[0].frameNumberRanges = [10...199, 210...320]
        let video = try #require(LoadTestReport(observations: observations).tracks.first { $0.kind == "video" })
        let sampled = try #require(video.sampled.first)
        #expect(sampled.frameNumbersRead == 290)
        #expect(sampled.framesExpected == 300)
        #expect(sampled.frameRatio == 290.0 / 300)
        #expect(LoadTestReport.framesRead([0...5, 7...7, 9...20], before: 8) == 7)
        #expect(LoadTestReport.framesRead([3...4], before: 0) == 0)
        #expect(LoadTestReport.framesRead([8...9], before: 8) == 0)
    }

    @Test func serverCountsCPUAndClientTotals() throws {
        let report = LoadTestReport(observations: try Self.observations())
        #expect(report.server.counts?.packetsForwarded == 20_000)
        #expect(report.server.counts?.retransmissions == 4)
        #expect(report.server.forwardedPacketsPerSecond == 1_000)
        #expect(report.server.cpuSeconds == 2)
        #expect(report.server.cpuSecondsPerForwardedPacket == 2.0 / 20_000)
        #expect(report.clients.packetsSent == 4500)
        #expect(report.clients.packetsReceived == 1090 + 600 + 1100)
        #expect(report.clients.packetsLost == 15)
        #expect(report.clients.framesSent == 310)
        #expect(report.clients.nacksSent == 3)
        #expect(report.clients.retransmissionsSent == 4)
        #expect(report.joinTimeMilliseconds.count == 3)
        #expect(abs((report.joinTimeMilliseconds.p50 ?? 0) - 200) <= 0.2)
    }

    @Test func verdictPassesThenFailsOnLossAndFailures() throws {
        #expect(LoadTestReport(observations: try Self.observations()).verdict == .init(passed: true, reasons: []))

        let lossy = LoadTestReport(observations: try Self.observations(maxLoss: 0.01, s1Lost: 100))
        #expect(!lossy.verdict.passed)
        #expect(lossy.verdict.reasons.count == 1)
        #expect(lossy.verdict.reasons.first?.contains("above --max-loss 1.00%") == true)

        let failedJoin = LoadTestReport(observations: try Self.observations(joins: [
            JoinRecord(identity: "p0-r0", roomName: "lt-0", role: .publisher, joinMilliseconds: 100),
            JoinRecord(identity: "s0-r0", roomName: "lt-0", role: .subscriber, failure: "53105"),
            JoinRecord(identity: "s1-r0", roomName: "lt-0", role: .subscriber, joinMilliseconds: 300, disconnect: "53002"),
        ]))
        #expect(failedJoin.participants.joined == 2)
        #expect(failedJoin.participants.failed == 1)
        #expect(failedJoin.participants.failuresByCode == ["53105": 1])
        #expect(failedJoin.participants.disconnectsByCode == ["53002": 1])
        #expect(failedJoin.verdict.reasons.count == 2)
    }

    @Test func aTrackNobodyReceivedFails() throws {
        var o = try Self.observations()
        o.windowEnd = o.windowEnd.map { p in
            var p = p
            p.received = p.received.map { t in
                var t = t
                if t.kind == "audio" { t.packetsReceived = 100; t.bytesReceived = 6_000 }
                return t
            }
            return p
        }
        let report = LoadTestReport(observations: o)
        #expect(report.verdict.reasons == ["audio track MTa of p0-r0: its 1 receiver(s) got no packets in the window"])
    }

    @Test func tableAndJSONCarryTheNumbers() throws {
        let report = LoadTestReport(observations: try Self.observations())
        let table = ReportTable.render(report)
        for expected in ["joined 3 of 3", "p50 200.1 ms", "280.0", "294/300", "20,000", "1,000", "2.00 s", "100.00 µs", "PASS"] {
            #expect(table.contains(expected), "table lacks \(expected):\n\(table)")
        }
        #expect(ReportTable.number(7970.6) == "7,971")
        #expect(ReportTable.number(0.5, 2) == "0.50")
        let json = try JSONEncoder().encode(report)
        let decoded = try JSONDecoder().decode(LoadTestReport.self, from: json)
        #expect(decoded.tracks == report.tracks)
        #expect(decoded.server == report.server)
        #expect(decoded.verdict == report.verdict)
    }

    /// Issue 14: where each participant was connected when the window
    /// closed, and how many per node; a participant gone by then is not
    /// counted, one whose node is unknown neither.
    @Test func participantsPerNode() throws {
        var o = try Self.observations()
        let nodes = ["p0-r0": "10.0.0.5:7880", "s0-r0": "10.0.0.6:7880", "s1-r0": "10.0.0.5:7880"]
        o.windowEnd = o.windowEnd.map { p in
            var p = p
            p.node = nodes[p.identity]
            return p
        }
        o.windowEnd.append(ParticipantSnapshot(identity: "s2-r0", roomName: "lt-0", role: .subscriber, decodesVideo: false))
        let report = LoadTestReport(observations: o)
        #expect(report.participants.nodes == nodes)
        #expect(report.participants.perNode == ["10.0.0.5:7880": 2, "10.0.0.6:7880": 1])
        let table = ReportTable.render(report)
        #expect(table.contains("10.0.0.5:7880 x2, 10.0.0.6:7880 x1"), "\(table)")
        let decoded = try JSONDecoder().decode(LoadTestReport.self, from: try JSONEncoder().encode(report))
        #expect(decoded.participants == report.participants)

        let unknown = LoadTestReport(observations: try Self.observations())
        #expect(unknown.participants.perNode == [:])
        #expect(!ReportTable.render(unknown).contains("per node"))
    }

    /// Issue 14: each node's CPU over the window, in cores, in the JSON
    /// and the table; none without node figures.
    @Test func cpuCoresPerNode() throws {
        var o = try Self.observations()
        o.nodeCPUSeconds = ["10.0.0.5:7880": 2 * o.windowSeconds, "10.0.0.6:7880": 0.25 * o.windowSeconds]
        let report = LoadTestReport(observations: o)
        #expect(report.participants.cpuCoresPerNode == ["10.0.0.5:7880": 2, "10.0.0.6:7880": 0.25])
        let table = ReportTable.render(report)
        #expect(table.contains("cores per node over the window: 10.0.0.5:7880 2.00, 10.0.0.6:7880 0.25"), "\(table)")
        let decoded = try JSONDecoder().decode(LoadTestReport.self, from: try JSONEncoder().encode(report))
        #expect(decoded.participants.cpuCoresPerNode == report.participants.cpuCoresPerNode)
        #expect(LoadTestReport(observations: try Self.observations()).participants.cpuCoresPerNode == nil)
    }

    @Test func nodeAddressIsTheSignalingURLsHostAndPort() {
        let cases: [(String, String?)] = [
            ("ws://10.0.0.5:7880/v1/signal", "10.0.0.5:7880"),
            ("wss://node2.example/v1/signal", "node2.example:443"),
            ("ws://node2.example/v1/signal", "node2.example:80"),
            ("ws://[::1]:7880/v1/signal", "[::1]:7880"),
            ("/v1/signal", nil),
        ]
        for (text, expected) in cases {
            #expect(URL(string: text).flatMap(NodeAddress.of) == expected, "\(text)")
        }
    }

    @Test func progressLine() {
        let line = ProgressLine(
            elapsedSeconds: 12, phase: .measuring, planned: 16, joined: 15, failed: 1, disconnected: 0,
            receivedBitsPerSecond: 4_810_000, lossFraction: 0.001)
        #expect(line.text == "[  12.0 s measure] joined 15/16 failed 1 dropped 0 | rx 4.81 Mbit/s | loss 0.10%")
    }
}
