import Foundation
import Testing

@testable import LoadTestCore

@Suite struct ScenarioTests {
    static let scenariosDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scenarios").path

    @Test func decodesEveryField() throws {
        let json = """
            {"description": "d", "rooms": 4, "publishers": 1, "subscribers": 3, "audioOnly": false,
             "videoResolution": "640x360", "videoBitrate": "500k", "videoFrameRate": 15, "duration": 30,
             "ramp": 4, "settle": 3, "seed": 7, "decodeSample": 1, "maxLoss": 0.01}
            """
        let s = try Scenario.decode(Data(json.utf8), path: "x.json")
        #expect(s.rooms == 4 && s.publishers == 1 && s.subscribers == 3 && s.audioOnly == false)
        #expect(s.videoResolution == VideoResolution(width: 640, height: 360))
        #expect(s.videoBitrate == BitRate(bitsPerSecond: 500_000))
        #expect(s.videoFrameRate == 15 && s.duration == 30 && s.ramp == 4 && s.settle == 3)
        #expect(s.seed == 7 && s.decodeSample == 1 && s.maxLoss == 0.01)
        #expect(try Scenario.decode(Data(#"{"videoBitrate": 300000}"#.utf8), path: "y").videoBitrate == BitRate(bitsPerSecond: 300_000))
    }

    @Test func unknownKeysAndBadValuesAreRefused() {
        for json in [#"{"subscriber": 3}"#, #"{"videoResolution": "big"}"#, #"{"rooms": "four"}"#, "[]", "{"] {
            #expect(throws: Scenario.Invalid.self, "\(json)") { try Scenario.decode(Data(json.utf8), path: "bad.json") }
        }
    }

    @Test func locatesByNameOrPath() throws {
        let path = try Scenario.locate("smoke", in: ["/nonexistent", Self.scenariosDirectory])
        #expect(path == Self.scenariosDirectory + "/smoke.json")
        #expect(try Scenario.locate(path, in: []) == path)
        #expect(throws: Scenario.NotFound.self) { try Scenario.locate("no-such-scenario", in: [Self.scenariosDirectory]) }
        let directories = Scenario.searchDirectories(
            environment: ["VROOM_LOADTEST_SCENARIOS": "/etc/scenarios"], currentDirectory: "/work/repo",
            executablePath: "/work/repo/.build/x86_64-unknown-linux-gnu/release/vroom-loadtest")
        #expect(directories.prefix(3) == ["/etc/scenarios", "/work/repo/loadtest/scenarios", "/work/repo/scenarios"])
        #expect(directories.contains("/work/repo/loadtest/scenarios"))
        #expect(directories.contains("/work/repo/.build/loadtest/scenarios"))
    }

    /// Every scenario shipped in loadtest/scenarios decodes and resolves, and
    /// the named ones have the shapes the README promises.
    @Test func shippedScenariosAreValid() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.scenariosDirectory).filter { $0.hasSuffix(".json") }
        #expect(Set(files).isSuperset(of: ["smoke.json", "small-meeting.json", "webinar.json", "audio-town-hall.json", "simulcast-mix.json"]))
        var shapes: [String: LoadTestConfiguration] = [:]
        for file in files {
            let path = Self.scenariosDirectory + "/" + file
            let scenario = try Scenario.decode(try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
            #expect(scenario.description?.isEmpty == false, "\(file) has a description")
            shapes[file] = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([]), scenario: scenario)
        }
        let meeting = try #require(shapes["small-meeting.json"])
        #expect(meeting.rooms == 4 && meeting.publishers == 1 && meeting.subscribers == 3)
        let webinar = try #require(shapes["webinar.json"])
        #expect(webinar.rooms == 1 && webinar.publishers == 1 && webinar.subscribers == 100)
        let townHall = try #require(shapes["audio-town-hall.json"])
        #expect(townHall.audioOnly && townHall.subscribers >= 50)
        let mix = try #require(shapes["simulcast-mix.json"])
        #expect(mix.simulcast && mix.render?.shares.count == 2 && mix.renderChangeAfter == 10 && mix.subscribers == 4)
        let smoke = try #require(shapes["smoke.json"])
        #expect(smoke.totalParticipants <= 4 && smoke.duration <= 10)
    }
}
