import Foundation
import Testing

@testable import LoadTestCore

/// Issue 16 item 5: the load tester's own health, and a verdict that never
/// counts its starvation as the server's failure.
@Suite struct LoadTesterHealthTests {
    static func sample(lags: [Double], cpuSeconds: Double? = 5, seconds: Double = 10, cores: Int = 4) -> LoadTesterHealth.Sample {
        LoadTesterHealth.Sample(eventLoopThreads: 2, cores: cores, cpuSeconds: cpuSeconds, seconds: seconds, lagMilliseconds: lags)
    }

    static func health(lags: [Double], cpuSeconds: Double? = 5, seconds: Double = 10, cores: Int = 4) -> LoadTesterHealth {
        LoadTesterHealth(sample(lags: lags, cpuSeconds: cpuSeconds, seconds: seconds, cores: cores))
    }

    @Test func aHealthyRunIsNotSaturated() {
        let health = Self.health(lags: Array(repeating: 1.5, count: 200) + [40])
        #expect(!health.saturated)
        #expect(health.reasons.isEmpty)
        #expect(health.cpuCores == 0.5)
        #expect(health.eventLoopLagMilliseconds.count == 201)
    }

    @Test func lateProbesMeanSaturation() {
        // 3% of the probes 150 ms late: p99 passes 100 ms.
        let late = Self.health(lags: Array(repeating: 1, count: 97) + Array(repeating: 150, count: 3))
        #expect(late.saturated)
        #expect(late.reasons.count == 1 && late.reasons[0].contains("at p99"), "\(late.reasons)")
        // One probe 1.2 s late in a thousand.
        let stalled = Self.health(lags: Array(repeating: 1, count: 999) + [1200])
        #expect(stalled.saturated)
        #expect(stalled.reasons == ["its event loops were once 1.2 s late"])
    }

    @Test func everyCoreBusyMeansSaturation() {
        let busy = Self.health(lags: [1, 1, 1], cpuSeconds: 37, seconds: 10, cores: 4)
        #expect(busy.saturated)
        #expect(busy.reasons == ["it used 3.70 of the machine's 4 cores"])
        #expect(!Self.health(lags: [1], cpuSeconds: 35, seconds: 10, cores: 4).saturated)
        // No CPU reading: judged on the lag alone.
        #expect(!Self.health(lags: [1], cpuSeconds: nil).saturated)
    }

    @Test func failuresOfASaturatedTesterAreInconclusive() throws {
        let joins = [
            JoinRecord(identity: "p0-r0", roomName: "lt-0", role: .publisher, joinMilliseconds: 100),
            JoinRecord(identity: "s0-r0", roomName: "lt-0", role: .subscriber, failure: "53000"),
            JoinRecord(identity: "s1-r0", roomName: "lt-0", role: .subscriber, joinMilliseconds: 300),
        ]
        var starved = try LoadTestReportTests.observations(joins: joins)
        starved.tester = Self.sample(lags: [2000])
        let report = LoadTestReport(observations: starved)
        #expect(!report.verdict.passed)
        #expect(report.verdict.inconclusive)
        #expect(report.verdict.reasons.first?.hasPrefix("inconclusive: the load tester itself was saturated") == true)
        #expect(report.loadTester?.saturated == true)
        #expect(ReportTable.render(report).contains("INCONCLUSIVE"))

        // The same failure from a healthy tester is the server's.
        var healthy = try LoadTestReportTests.observations(joins: joins)
        healthy.tester = Self.sample(lags: [2])
        let failed = LoadTestReport(observations: healthy)
        #expect(!failed.verdict.passed && !failed.verdict.inconclusive)

        // A saturated tester with no failure passes, and says its figures are a floor.
        var passing = try LoadTestReportTests.observations()
        passing.tester = Self.sample(lags: [2000])
        let passed = LoadTestReport(observations: passing)
        #expect(passed.verdict.passed && !passed.verdict.inconclusive)
        #expect(ReportTable.render(passed).contains("SATURATED"))
        let decoded = try JSONDecoder().decode(LoadTestReport.self, from: JSONEncoder().encode(passed))
        #expect(decoded.loadTester == passed.loadTester)
    }

    @Test func processesOnOneMachineShareItsCores() throws {
        func sample(_ host: String, cores: Int) -> LoadTesterHealth.Sample {
            LoadTesterHealth.Sample(host: host, eventLoopThreads: 2, cores: cores, cpuSeconds: 3, seconds: 10, lagMilliseconds: [1])
        }
        let together = try #require(LoadTesterHealth.Sample.combined([sample("a", cores: 8), sample("a", cores: 8), sample("b", cores: 4)]))
        #expect(together.cores == 12)
        #expect(together.eventLoopThreads == 6)
        #expect(together.cpuSeconds == 9)
        #expect(together.lagMilliseconds.count == 3)
        #expect(LoadTesterHealth.Sample.combined([]) == nil)
    }

    @Test func threadsDefaultToHalfTheCoresAndCanBeSet() throws {
        #expect(LoadTestConfiguration.defaultThreads(cores: 2) == 2)
        #expect(LoadTestConfiguration.defaultThreads(cores: 16) == 8)
        let set = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--threads", "12"]))
        #expect(set.threads == 12)
        #expect(throws: LoadTestConfiguration.Invalid.self) {
            try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--threads", "0"]))
        }
    }
}

/// Issue 16 item 5: one report of a run spread over processes or machines.
@Suite struct MergedRunTests {
    /// The one-room run of `LoadTestReportTests`, its room and identities
    /// renumbered to room `index` and its track SIDs made its own.
    static func share(room index: Int, startedAt: Date, window: Double, lags: [Double]) throws -> RunObservations {
        var o = try LoadTestReportTests.observations()
        let rename = { (text: String) in text.replacingOccurrences(of: "-r0", with: "-r\(index)").replacingOccurrences(of: "lt-0", with: "lt-\(index)") }
        o.rooms = [LoadPlan.Room(index: index, name: "lt-\(index)", maxParticipants: 3)]
        o.joins = o.joins.map { var j = $0; j.identity = rename(j.identity); j.roomName = rename(j.roomName); return j }
        for keyPath in [\RunObservations.windowStart, \RunObservations.windowEnd] {
            o[keyPath: keyPath] = o[keyPath: keyPath].map { snapshot in
                var s = snapshot
                s.identity = rename(s.identity)
                s.roomName = rename(s.roomName)
                s.sent = s.sent.map { var t = $0; t.trackSid = t.trackSid.map { "\($0)\(index)" }; return t }
                s.received = s.received.map { var t = $0; t.trackSid = "\(t.trackSid)\(index)"; return t }
                return s
            }
        }
        o.startedAt = startedAt
        o.windowSeconds = window
        o.tester = LoadTesterHealth.Sample(eventLoopThreads: 2, cores: 8, cpuSeconds: 4, seconds: 10, lagMilliseconds: lags)
        return o
    }

    @Test func twoProcessesMakeOneRunAndSurviveJSON() throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let a = try Self.share(room: 0, startedAt: t0, window: 10, lags: [1, 2])
        let b = try Self.share(room: 1, startedAt: t0.addingTimeInterval(1), window: 9.5, lags: [3])
        let decoded = try [a, b].map {
            try RunObservations.decoder().decode(RunObservations.self, from: RunObservations.encoder().encode($0))
        }
        // Everything survives but the API secret, which is never written.
        #expect(decoded.map(\.configuration.apiSecret) == ["", ""])
        #expect(decoded == [a, b].map { var o = $0; o.configuration.apiSecret = ""; return o })

        var configuration = try LoadTestReportTests.configuration()
        configuration.rooms = 2
        let merged = try RunObservations.merged(decoded, configuration: configuration)
        #expect(merged.rooms.map(\.name) == ["lt-0", "lt-1"])
        #expect(merged.joins.count == 6)
        #expect(merged.windowSeconds == 9.5)
        #expect(merged.startedAt == t0)
        #expect(merged.tester?.eventLoopThreads == 4)
        #expect(merged.tester?.cpuSeconds == 8)
        #expect(merged.tester?.lagMilliseconds == [1, 2, 3])

        let one = LoadTestReport(observations: try LoadTestReportTests.observations())
        let report = LoadTestReport(observations: merged)
        #expect(report.participants.joined == 6)
        #expect(report.tracks.count == 2 * one.tracks.count)
        #expect(report.verdict.passed, "\(report.verdict)")
        // Both rooms' latencies in one distribution.
        #expect(report.latencyMilliseconds.count == 2 * one.latencyMilliseconds.count)
        #expect(report.loadTester?.cpuCores == 0.8)
    }

    @Test func theSameParticipantTwiceIsRefused() throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let a = try Self.share(room: 0, startedAt: t0, window: 10, lags: [])
        #expect(throws: RunObservations.Overlap(identity: "p0-r0")) {
            try RunObservations.merged([a, a], configuration: try LoadTestReportTests.configuration())
        }
    }

    @Test func processesTakeWholeRooms() throws {
        #expect(throws: LoadTestConfiguration.Invalid.self) {
            try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--rooms", "2", "--processes", "3"]))
        }
        let spread = try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--rooms", "5", "--processes", "2"]))
        #expect(spread.processes == 2)
        let plan = LoadPlan(
            configuration: try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(["--rooms", "2", "--room-offset", "3"])),
            runID: "x")
        #expect(plan.rooms.map(\.name) == ["loadtest-x-3", "loadtest-x-4"])
        #expect(plan.joins.first?.identity == "p0-r3")
    }
}
