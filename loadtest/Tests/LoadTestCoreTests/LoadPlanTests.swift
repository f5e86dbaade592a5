import Testing

@testable import LoadTestCore

@Suite struct LoadPlanTests {
    static func configuration(_ arguments: [String]) throws -> LoadTestConfiguration {
        try LoadTestConfiguration.resolve(options: LoadTestOptions.parse(arguments))
    }

    @Test func roomsFitTheirParticipants() throws {
        let plan = LoadPlan(configuration: try Self.configuration(["--rooms", "3", "--publishers", "2", "--subscribers", "5"]), runID: "abc")
        #expect(plan.rooms.map(\.name) == ["loadtest-abc-0", "loadtest-abc-1", "loadtest-abc-2"])
        #expect(plan.rooms.allSatisfy { $0.maxParticipants == 7 })
        #expect(plan.joins.count == 21)
        #expect(Set(plan.joins.map(\.identity)).count == 21)
        for room in plan.rooms {
            let members = plan.joins.filter { $0.roomName == room.name }
            #expect(members.count(where: { $0.role == .publisher }) == 2)
            #expect(members.count(where: { $0.role == .subscriber }) == 5)
            // --decode-sample 2 (default): two subscribers per room decode.
            #expect(members.count(where: { $0.decodesVideo }) == 2)
            #expect(members.allSatisfy { $0.role == .subscriber || !$0.decodesVideo })
        }
    }

    @Test func publishersJoinFirstAndTheSeedOrdersTheRest() throws {
        let c = try Self.configuration(["--rooms", "4", "--subscribers", "6", "--seed", "9"])
        let plan = LoadPlan(configuration: c, runID: "r")
        #expect(plan.joins.prefix(4).allSatisfy { $0.role == .publisher })
        #expect(plan.joins.dropFirst(4).allSatisfy { $0.role == .subscriber })
        #expect(LoadPlan(configuration: c, runID: "r") == plan)
        var other = c
        other.seed = 10
        let reordered = LoadPlan(configuration: other, runID: "r")
        #expect(reordered.joins.map(\.identity) != plan.joins.map(\.identity))
        #expect(Set(reordered.joins.map(\.identity)) == Set(plan.joins.map(\.identity)))
        #expect(plan.joins.prefix(4).allSatisfy { (300...2000).contains($0.toneFrequency) })
    }

    @Test func audioOnlyAndSmallSamples() throws {
        let audio = LoadPlan(configuration: try Self.configuration(["--audio-only", "--subscribers", "5"]), runID: "r")
        #expect(audio.joins.allSatisfy { !$0.decodesVideo && !$0.publishesVideo })
        let few = LoadPlan(configuration: try Self.configuration(["--subscribers", "1", "--decode-sample", "4"]), runID: "r")
        #expect(few.joins.count(where: { $0.decodesVideo }) == 1)
        #expect(LoadPlan.joinOffset(index: 10, ramp: 5) == 2)
    }
}
