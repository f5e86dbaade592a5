import Foundation
import Testing

@testable import LoadTestCore

/// The `--render` part of the report: per subscriber the layer received,
/// the layer switches and the time from the changed request to the first
/// frame of the new layer; per render size a summary; and the table and
/// JSON that carry them.
@Suite struct RenderReportTests {
    typealias Size = ParticipantSnapshot.DecodedSize
    typealias Request = ParticipantSnapshot.RenderRequest
    static let q = VideoResolution(width: 160, height: 120)
    static let f = VideoResolution(width: 640, height: 480)
    static let small = VideoResolution(width: 320, height: 180)
    static let large = VideoResolution(width: 1280, height: 720)

    /// s0 renders small then large: it got q, then f 0.25 s after asking.
    /// s1 renders large then small: it got f, then q after 0.5 s, then f
    /// again (a flap: 2 switches). s2 renders small and never changed size.
    static func observations() throws -> RunObservations {
        let configuration = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([
            "--subscribers", "3", "--render", "320x180:50%,1280x720:50%", "--render-change-after", "10",
        ]))
        func subscriber(_ name: String, sizes: [Size], requests: [Request]) -> ParticipantSnapshot {
            ParticipantSnapshot(
                identity: name, roomName: "lt-0", role: .subscriber, decodesVideo: true,
                received: [
                    .init(trackSid: "MTv", kind: "video", packetsReceived: 900, bytesReceived: 300_000, packetsLost: 0, decodedSizes: sizes),
                    .init(trackSid: "MTa", kind: "audio", packetsReceived: 500, bytesReceived: 30_000, packetsLost: 0),
                ],
                renderRequests: requests)
        }
        let publisher = ParticipantSnapshot(
            identity: "p0-r0", roomName: "lt-0", role: .publisher, decodesVideo: false,
            sent: [
                .init(trackSid: "MTv", name: "camera", kind: "video", packetsSent: 1000, bytesSent: 400_000, framesSent: 300),
                .init(trackSid: "MTa", name: "microphone", kind: "audio", packetsSent: 500, bytesSent: 30_000, framesSent: 500),
            ])
        let end = [
            publisher,
            subscriber("s0-r0", sizes: [Size(size: q, seconds: 1.0), Size(size: f, seconds: 12.25)],
                       requests: [Request(trackSid: "MTv", size: small, seconds: 0.8), Request(trackSid: "MTv", size: large, seconds: 12.0)]),
            subscriber("s1-r0", sizes: [Size(size: f, seconds: 2.0), Size(size: q, seconds: 12.5), Size(size: f, seconds: 20)],
                       requests: [Request(trackSid: "MTv", size: large, seconds: 1.5), Request(trackSid: "MTv", size: small, seconds: 12.0)]),
            subscriber("s2-r0", sizes: [Size(size: q, seconds: 3.0)],
                       requests: [Request(trackSid: "MTv", size: small, seconds: 2.0)]),
        ]
        return RunObservations(
            configuration: configuration, startedAt: Date(timeIntervalSince1970: 0),
            rooms: [LoadPlan.Room(index: 0, name: "lt-0", maxParticipants: 4)],
            joins: ["p0-r0", "s0-r0", "s1-r0", "s2-r0"].map {
                JoinRecord(identity: $0, roomName: "lt-0", role: $0.hasPrefix("p") ? .publisher : .subscriber, joinMilliseconds: 10)
            },
            windowStart: end, windowEnd: end, windowSeconds: 20, scrapeSeconds: 25)
    }

    @Test func perSubscriberLayerSwitchesAndSwitchTime() throws {
        let report = LoadTestReport(observations: try Self.observations())
        let renders = try #require(report.renders)
        #expect(renders.map(\.subscriber) == ["s0-r0", "s1-r0", "s2-r0"])
        #expect(renders.allSatisfy { $0.publisher == "p0-r0" && $0.trackSid == "MTv" })
        #expect(renders.map(\.renderSize) == [Self.small, Self.large, Self.small])
        #expect(renders.map(\.changedRenderSize) == [Self.large, Self.small, nil])
        #expect(renders.map(\.decodedSize) == [Self.f, Self.f, Self.q])
        #expect(renders.map(\.firstLayer) == [Self.q, Self.f, Self.q], "the layer while rendering the first size")
        #expect(renders.map(\.layerSwitches) == [1, 2, 0])
        #expect(renders[0].switchMilliseconds == 250)
        #expect(renders[1].switchMilliseconds == 500)
        #expect(renders[2].switchMilliseconds == nil)
    }

    @Test func summaryPerRenderSize() throws {
        let summary = try #require(LoadTestReport(observations: try Self.observations()).renderSummary)
        #expect(summary.map(\.renderSize) == [Self.small, Self.large])
        #expect(summary[0].receivers == 2 && summary[0].decodedSizes == ["160x120": 2])
        #expect(summary[0].layerSwitchesMean == 0.5)
        #expect(summary[0].switchMilliseconds.count == 1 && abs((summary[0].switchMilliseconds.p50 ?? 0) - 250) < 0.3)
        #expect(summary[1].receivers == 1 && summary[1].decodedSizes == ["640x480": 1] && summary[1].layerSwitchesMean == 2)
    }

    /// A change that never showed (the server kept the layer): no time.
    @Test func aChangeWithoutANewLayerHasNoSwitchTime() {
        let request = Request(trackSid: "MTv", size: Self.large, seconds: 12)
        #expect(LoadTestReport.switchMilliseconds(after: request, sizes: [Size(size: Self.q, seconds: 1)]) == nil)
        #expect(LoadTestReport.switchMilliseconds(after: request, sizes: []) == nil)
        // The first frame came after the request: that is no switch.
        #expect(LoadTestReport.switchMilliseconds(after: request, sizes: [Size(size: Self.q, seconds: 13)]) == nil)
    }

    @Test func withoutRenderThereIsNoRenderSection() throws {
        var o = try Self.observations()
        o.configuration.render = nil
        o.configuration.renderChangeAfter = nil
        let report = LoadTestReport(observations: o)
        #expect(report.renders == nil && report.renderSummary == nil)
        #expect(!ReportTable.render(report).contains("Render sizes"))
    }

    @Test func tableAndJSONCarryTheRenderNumbers() throws {
        let report = LoadTestReport(observations: try Self.observations())
        let table = ReportTable.render(report)
        #expect(table.contains("Render sizes (320x180:50%,1280x720:50%, each changes once at 10.0 s into the window)"))
        let lines = table.split(separator: "\n").map(String.init)
        // The max goes through HdrHistogram: within 0.1% of 250.
        #expect(lines.contains { $0.contains("320x180") && $0.contains("160x120 x2") && $0.contains("0.5") && $0.contains("250.0 / 250.") })
        #expect(lines.contains { $0.contains("s1-r0") && $0.contains("1280x720") && $0.contains("640x480") && $0.contains("500.0") })
        #expect(lines.contains { $0.hasPrefix("  s2-r0") && $0.contains("160x120") && $0.hasSuffix("-") })

        let json = try JSONEncoder().encode(report)
        let decoded = try JSONDecoder().decode(LoadTestReport.self, from: json)
        #expect(decoded.renders == report.renders && decoded.renderSummary == report.renderSummary)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""renderSize":"320x180""#) && text.contains(#""switchMilliseconds":250"#))
    }
}
