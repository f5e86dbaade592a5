import Foundation
import Testing

@testable import LoadTestCore

/// `--downlink-kbps`: parsing, scenario key, validation, who is in which
/// group, the `/Stats` samples and the report's Downlink section.
@Suite struct DownlinkTests {
    @Test func groupsParseAndAssignRoundRobin() throws {
        let groups = try #require(DownlinkGroups(argument: "250,800,0"))
        #expect(groups.kilobitsPerSecond == [250, 800, 0])
        #expect(groups.description == "250,800,0")
        #expect((0..<7).map(groups.kilobitsPerSecond(forSubscriber:)) == [250, 800, 0, 250, 800, 0, 250])
        #expect(DownlinkGroups(argument: " 500 , 0")?.kilobitsPerSecond == [500, 0])
        for bad in ["", "250,", "fast", "-1", "4", "250k", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"] {
            #expect(DownlinkGroups(argument: bad) == nil, "\(bad)")
        }
        #expect(DownlinkGroups.label(0) == "unlimited" && DownlinkGroups.label(250) == "250 kbit/s")
    }

    @Test func flagScenarioAndValidation() throws {
        let options = try LoadTestOptions.parse(["--downlink-kbps", "250,800,0", "--subscribers", "6", "--impair-path", "/x/vroom-impair"])
        let c = try LoadTestConfiguration.resolve(options: options)
        #expect(c.downlinkKbps?.kilobitsPerSecond == [250, 800, 0])
        #expect(c.impairPath == "/x/vroom-impair")
        #expect(c.decodingSubscribersPerRoom == 6, "every subscriber decodes: freezes are counted on decoded frames")
        #expect(throws: (any Error).self) { try LoadTestOptions.parse(["--downlink-kbps", "fast"]) }
        #expect(throws: LoadTestConfiguration.Invalid.self) {
            try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--downlink-kbps", "250", "--audio-only"]))
        }

        // The scenario key, overridden by the flag; the JSON report keeps it.
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(#"{"downlinkKbps":"300,0","subscribers":4}"#.utf8))
        let fromScenario = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([]), scenario: scenario)
        #expect(fromScenario.downlinkKbps?.description == "300,0")
        let overridden = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--downlink-kbps", "100"]), scenario: scenario)
        #expect(overridden.downlinkKbps?.description == "100")
        let decoded = try JSONDecoder().decode(LoadTestConfiguration.self, from: JSONEncoder().encode(overridden))
        #expect(decoded.downlinkKbps == overridden.downlinkKbps)

        // Each room's subscribers go round robin over the groups.
        let plan = LoadPlan(configuration: c, runID: "t")
        let subscribers = plan.joins.filter { $0.role == .subscriber }.sorted { $0.identity < $1.identity }
        #expect(subscribers.map { $0.downlinkKbps } == [250, 800, 0, 250, 800, 0])
        #expect(subscribers.allSatisfy { $0.decodesVideo })
    }

    @Test func statsRowsDecodeAndAccumulate() throws {
        let json = """
            {"room_sid":"RM1","participants":[
              {"identity":"s0-r0","available_outgoing_bitrate":null,"subscribed_tracks":[]},
              {"identity":"s1-r0","available_outgoing_bitrate":412000,"published_tracks":[],"subscribed_tracks":[
                {"track_sid":"MTa","kind":"audio","layer":null,"switched_off":false},
                {"track_sid":"MTv","kind":"video","layer":{"rid":"h","spatial_layer":1,"temporal_layer":2},"switched_off":false,"switch_off_reason":null}]},
              {"identity":"s2-r0","available_outgoing_bitrate":90000,"subscribed_tracks":[
                {"track_sid":"MTv","kind":"video","layer":null,"switched_off":true,"switch_off_reason":"network-congestion"}]}]}
            """
        let sample = try JSONDecoder().decode(RoomStatsSample.self, from: Data(json.utf8))
        var series: [String: DownlinkSeries] = [:]
        for participant in sample.participants { series[participant.identity, default: .init()].add(participant) }
        #expect(series["s0-r0"] == DownlinkSeries())
        #expect(series["s1-r0"] == DownlinkSeries(estimates: [412_000], layers: ["h/T2"]))
        #expect(series["s2-r0"] == DownlinkSeries(estimates: [90_000], layers: ["off"]))
        #expect(RoomStatsSample.Layer(rid: nil, spatialLayer: 0, temporalLayer: nil).description == "s0")
    }

    static func observations() throws -> RunObservations {
        var c = LoadTestConfiguration()
        c.subscribers = 3
        c.downlinkKbps = DownlinkGroups(argument: "250,0")
        func subscriber(_ name: String, kbps: Int, bytes: Int, freezes: Int, off: Int = 0) -> ParticipantSnapshot {
            ParticipantSnapshot(
                identity: name, roomName: "r", role: .subscriber, decodesVideo: true,
                received: [
                    .init(trackSid: "MTv", kind: "video", packetsReceived: 100, bytesReceived: bytes, packetsLost: 0, freezeCount: freezes),
                    .init(trackSid: "MTa", kind: "audio", packetsReceived: 100, bytesReceived: 1_000_000, packetsLost: 0),
                ],
                switchedOffEvents: off, downlinkKbps: kbps)
        }
        let start = [
            subscriber("s0", kbps: 250, bytes: 100_000, freezes: 1), subscriber("s1", kbps: 0, bytes: 100_000, freezes: 0),
            subscriber("s2", kbps: 250, bytes: 0, freezes: 0),
        ]
        let end = [
            subscriber("s0", kbps: 250, bytes: 1_100_000, freezes: 4, off: 1), subscriber("s1", kbps: 0, bytes: 4_100_000, freezes: 0),
            subscriber("s2", kbps: 250, bytes: 500_000, freezes: 2, off: 2),
        ]
        return RunObservations(
            configuration: c, startedAt: Date(timeIntervalSince1970: 0), rooms: [], joins: [], windowStart: start,
            windowEnd: end, windowSeconds: 40, scrapeSeconds: 40,
            downlinkSeries: [
                "s0": DownlinkSeries(estimates: [300_000, 200_000, 240_000, 260_000], layers: ["f/T2", "f/T2", "q/T2", "off"]),
                "s1": DownlinkSeries(estimates: [2_000_000, 2_500_000, 3_000_000], layers: ["f/T2", "f/T2", "f/T2"]),
            ],
            relayQueueDrops: ["s0": 17, "s2": 3])
    }

    @Test func reportPerSubscriberAndPerGroup() throws {
        let report = LoadTestReport(observations: try Self.observations())
        let rows = try #require(report.downlink)
        #expect(rows.map(\.subscriber) == ["s0", "s2", "s1"], "slowest group first, unshaped last")
        let s0 = rows[0]
        #expect(s0.downlinkKbps == 250)
        #expect(s0.estimateLast == 260_000 && s0.estimateMin == 200_000 && s0.estimateMedian == 250_000)
        #expect(s0.estimateSamples == 4)
        #expect(s0.videoBitrate == 200_000, "1,000,000 video bytes over 40 s; audio not counted")
        #expect(s0.freezes == 3, "in the window only")
        #expect(s0.layerLast == "off" && s0.layersSeen == ["f/T2", "q/T2", "off"])
        #expect(s0.switchedOffEvents == 1 && s0.relayQueueDrops == 17)
        #expect(rows[1].estimateLast == nil && rows[1].estimateMedian == nil && rows[1].layersSeen.isEmpty)
        #expect(rows[2].relayQueueDrops == nil && rows[2].estimateMedian == 2_500_000)

        let groups = try #require(report.downlinkGroups)
        #expect(groups.map(\.downlinkKbps) == [250, 0])
        #expect(groups[0].subscribers == 2 && groups[0].freezes == 5 && groups[0].switchedOffEvents == 3)
        #expect(groups[0].videoBitrateMean == 150_000)
        #expect(groups[0].estimateMedian == 250_000, "the one subscriber with samples")
        #expect(groups[0].layersLast == ["off": 1, "-": 1])

        let table = ReportTable.render(report)
        #expect(table.contains("Downlink (--downlink-kbps 250,0"))
        #expect(table.contains("250 kbit/s"))
        #expect(table.contains("260 / 200 / 250"))
        #expect(table.contains("f/T2 > q/T2 > off"))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(#""estimateMedian":250000"#))
        #expect(json.contains(#""downlinkGroups":["#))
        // Without the flag: no section.
        var plain = try Self.observations()
        plain.configuration.downlinkKbps = nil
        let without = LoadTestReport(observations: plain)
        #expect(without.downlink == nil && !ReportTable.render(without).contains("Downlink"))
    }
}
