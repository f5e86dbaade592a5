import Foundation
import Testing

@testable import LoadTestCore

@Suite struct ConfigurationTests {
    @Test func flagsParse() throws {
        let options = try LoadTestOptions.parse([
            "--url", "http://10.0.0.5:7880", "--api-key", "k", "--api-secret", "s", "--rooms", "4",
            "--publishers", "2", "--subscribers", "10", "--video-resolution", "640x360", "--video-bitrate", "1.5M",
            "--duration", "12.5", "--ramp", "8", "--seed", "42", "--decode-sample", "3", "--max-loss", "0.02",
            "--server-pid", "1234", "--json", "--scenario", "webinar", "--no-audio-only",
        ])
        #expect(options.url == "http://10.0.0.5:7880")
        #expect(options.rooms == 4)
        #expect(options.publishers == 2)
        #expect(options.subscribers == 10)
        #expect(options.videoResolution == VideoResolution(width: 640, height: 360))
        #expect(options.videoBitrate == BitRate(bitsPerSecond: 1_500_000))
        #expect(options.duration == 12.5)
        #expect(options.ramp == 8)
        #expect(options.seed == 42)
        #expect(options.decodeSample == 3)
        #expect(options.maxLoss == 0.02)
        #expect(options.serverPID == 1234)
        #expect(options.json)
        #expect(options.scenario == "webinar")
        #expect(options.audioOnly == false)
        #expect(try LoadTestOptions.parse(["--audio-only"]).audioOnly == true)
        #expect(try LoadTestOptions.parse([]).audioOnly == nil)
    }

    @Test func badFlagValuesAreRefused() {
        for arguments in [
            ["--video-resolution", "640"], ["--video-resolution", "641x360"], ["--video-resolution", "0x0"],
            ["--video-bitrate", "fast"], ["--video-bitrate", "1k"], ["--rooms", "many"], ["--server-pid", "x"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try LoadTestOptions.parse(arguments) }
        }
    }

    @Test func defaultsThenScenarioThenEnvironmentThenFlags() throws {
        let defaults = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse([]))
        #expect(defaults.url == "http://127.0.0.1:7880")
        #expect(defaults.apiKey == "devkey" && defaults.apiSecret == "devsecret")
        #expect(defaults.rooms == 1 && defaults.publishers == 1 && defaults.subscribers == 2)
        #expect(defaults.decodeSample == 2 && defaults.maxLoss == 0.05 && defaults.serverPID == nil)

        var scenario = Scenario()
        scenario.rooms = 4
        scenario.subscribers = 3
        scenario.duration = 60
        scenario.audioOnly = true
        let resolved = try LoadTestConfiguration.resolve(
            options: LoadTestOptions.parse(["--duration", "5", "--api-key", "flagkey"]), scenario: scenario,
            scenarioName: "small-meeting", environment: ["VROOM_API_KEY": "envkey", "VROOM_API_SECRET": "envsecret"])
        #expect(resolved.scenario == "small-meeting")
        #expect(resolved.rooms == 4)  // scenario
        #expect(resolved.subscribers == 3)  // scenario
        #expect(resolved.audioOnly)  // scenario
        #expect(resolved.duration == 5)  // flag over scenario
        #expect(resolved.apiKey == "flagkey")  // flag over environment
        #expect(resolved.apiSecret == "envsecret")  // environment over default
        #expect(resolved.decodingSubscribersPerRoom == 0)  // audio only: nothing to decode
        let overridden = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--no-audio-only"]), scenario: scenario)
        #expect(!overridden.audioOnly)
        #expect(overridden.decodingSubscribersPerRoom == 2)
    }

    @Test func meaninglessSettingsAreRefused() throws {
        for arguments in [
            ["--url", "ftp://x"], ["--url", "not a url"], ["--rooms", "0"], ["--publishers", "0"], ["--subscribers=-1"],
            ["--duration", "0"], ["--ramp", "0"], ["--max-loss", "1.5"], ["--decode-sample=-1"], ["--server-pid", "0"],
            ["--api-key", ""],
        ] {
            let options = try LoadTestOptions.parse(arguments)
            #expect(throws: LoadTestConfiguration.Invalid.self, "\(arguments)") {
                try LoadTestConfiguration.resolve(options: options)
            }
        }
    }

    /// The report's JSON carries the configuration but never the secret.
    @Test func theSecretStaysOutOfTheJSON() throws {
        let c = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--api-secret", "hunter2"]))
        let json = String(decoding: try JSONEncoder().encode(c), as: UTF8.self)
        #expect(!json.contains("hunter2"))
        #expect(json.contains("\"apiKey\":\"devkey\""))
        #expect(json.contains("\"videoResolution\":\"320x240\""))
    }
}
