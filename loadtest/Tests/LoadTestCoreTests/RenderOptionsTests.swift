import Foundation
import Testing

@testable import LoadTestCore

/// `--simulcast`, `--render` and `--render-change-after`: parsing, the
/// scenario keys, validation, and which subscriber asks which size.
@Suite struct RenderOptionsTests {
    static let small = VideoResolution(width: 320, height: 180)
    static let large = VideoResolution(width: 1280, height: 720)

    @Test func renderMixParses() throws {
        let mix = try #require(RenderMix(argument: "320x180:50%,1280x720:50%"))
        #expect(mix.shares == [.init(size: Self.small, percent: 50), .init(size: Self.large, percent: 50)])
        #expect(mix.description == "320x180:50%,1280x720:50%")
        #expect(RenderMix(argument: "640x360")?.shares == [.init(size: VideoResolution(width: 640, height: 360), percent: 100)])
        #expect(RenderMix(argument: "320x180:25%, 640x360:25%,1280x720:50%")?.shares.map(\.percent) == [25, 25, 50])
        #expect(RenderMix(argument: "320x180:33.5%,1280x720:66.5%")?.description == "320x180:33.5%,1280x720:66.5%")
    }

    @Test(arguments: [
        "", "320x180:50%", "320x180:50%,1280x720:40%", "320x180:50,1280x720:50", "320x180,1280x720",
        "320x180:50%,320x180:50%", "321x180:100%", "320x180:0%,1280x720:100%", "big:100%", "320x180:50%,",
        "320x180:150%,1280x720:-50%",
    ])
    func badRenderMixesAreRefused(_ text: String) {
        #expect(RenderMix(argument: text) == nil)
    }

    @Test func flagsParse() throws {
        let options = try LoadTestOptions.parse([
            "--simulcast", "--render", "320x180:50%,1280x720:50%", "--render-change-after", "10",
        ])
        #expect(options.simulcast == true)
        #expect(options.render == RenderMix(argument: "320x180:50%,1280x720:50%"))
        #expect(options.renderChangeAfter == 10)
        #expect(try LoadTestOptions.parse(["--no-simulcast"]).simulcast == false)
        let none = try LoadTestOptions.parse([])
        #expect(none.simulcast == nil && none.render == nil && none.renderChangeAfter == nil)
        #expect(throws: (any Error).self) { try LoadTestOptions.parse(["--render", "320x180:60%,1280x720:50%"]) }
    }

    @Test func scenarioThenFlags() throws {
        let data = Data(#"{"simulcast":true,"render":"320x180:50%,1280x720:50%","renderChangeAfter":5,"duration":20}"#.utf8)
        let scenario = try Scenario.decode(data, path: "s.json")
        #expect(scenario.simulcast == true && scenario.renderChangeAfter == 5)
        let resolved = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([]), scenario: scenario)
        #expect(resolved.simulcast && resolved.render == RenderMix(argument: "320x180:50%,1280x720:50%"))
        #expect(resolved.renderChangeAfter == 5)
        let overridden = try LoadTestConfiguration.resolve(
            options: LoadTestOptions.parse(["--no-simulcast", "--render", "640x360:100%"]),
            scenario: { var s = scenario; s.renderChangeAfter = nil; return s }())
        #expect(!overridden.simulcast && overridden.render?.shares.count == 1)
        #expect(throws: Scenario.Invalid.self) { try Scenario.decode(Data(#"{"render":"320x180:50%"}"#.utf8), path: "bad.json") }
        // The resolved configuration round-trips through the report's JSON.
        let decoded = try JSONDecoder().decode(LoadTestConfiguration.self, from: JSONEncoder().encode(resolved))
        #expect(decoded.simulcast && decoded.render == resolved.render && decoded.renderChangeAfter == 5)
    }

    @Test func invalidCombinationsAreRefused() throws {
        for arguments in [
            ["--audio-only", "--simulcast"], ["--audio-only", "--render", "640x360"], ["--render-change-after", "5"],
            ["--render", "640x360", "--render-change-after", "5"],
            ["--render", "320x180:50%,1280x720:50%", "--render-change-after", "0"],
            ["--render", "320x180:50%,1280x720:50%", "--render-change-after", "30", "--duration", "30"],
        ] {
            #expect(throws: LoadTestConfiguration.Invalid.self, "\(arguments)") {
                try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(arguments))
            }
        }
    }

    @Test func subscribersGetSizesByTheMixAndAllDecode() throws {
        let mix = try #require(RenderMix(argument: "320x180:50%,1280x720:50%"))
        #expect((0..<4).map { mix.size(forSubscriber: $0, of: 4) } == [Self.small, Self.small, Self.large, Self.large])
        #expect((0..<3).map { mix.size(forSubscriber: $0, of: 3) } == [Self.small, Self.small, Self.large])
        let thirds = try #require(RenderMix(argument: "320x180:25%,640x360:25%,1280x720:50%"))
        #expect((0..<8).map { thirds.size(forSubscriber: $0, of: 8).width } == [320, 320, 640, 640, 1280, 1280, 1280, 1280])
        #expect(thirds.changed(from: Self.large) == Self.small && thirds.changed(from: Self.small).width == 640)

        let c = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([
            "--rooms", "2", "--subscribers", "4", "--decode-sample", "1", "--render", "320x180:50%,1280x720:50%",
            "--render-change-after", "10",
        ]))
        let plan = LoadPlan(configuration: c, runID: "x")
        let subscribers = plan.joins.filter { $0.role == .subscriber }.sorted { $0.identity < $1.identity }
        #expect(subscribers.count == 8 && subscribers.allSatisfy(\.decodesVideo))
        #expect(subscribers.filter { $0.roomIndex == 0 }.map(\.renderSize) == [Self.small, Self.small, Self.large, Self.large])
        #expect(subscribers.allSatisfy { $0.changedRenderSize != nil && $0.changedRenderSize != $0.renderSize })
        #expect(plan.joins.filter { $0.role == .publisher }.allSatisfy { $0.renderSize == nil })

        let plain = LoadPlan(configuration: try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([])), runID: "x")
        #expect(plain.joins.allSatisfy { $0.renderSize == nil && $0.changedRenderSize == nil })
    }
}
