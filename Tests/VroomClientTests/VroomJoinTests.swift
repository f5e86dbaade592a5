import Foundation
import Testing
import VroomTesting

extension ClientProcessTests {
/// `vroom-join`, one SDK participant from a shell (the SDK client of the
/// interop scenario meet): two of them in one room see and hear each other,
/// and a refused join exits 1 with the protocol's code.
@Suite struct VroomJoinTests {
    struct Line: Decodable {
        struct Received: Decodable {
            var identity: String
            var track: String
            var kind: String
            var packetsReceived: Int
            var framesDecoded: Int
            var audioFrequency: Double?
        }
        var seconds: Double
        var state: String
        var participants: [String]
        var received: [Received]
    }

    static func lines(_ out: Data) throws -> [Line] {
        try String(decoding: out, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
    }

    @Test func twoParticipantsSeeAndHearEachOther() async throws {
        let (server, port) = try ServerProcess.dev()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(port)"
        let runs = try await withThrowingTaskGroup(of: (String, Data, String, Int32).self) { group in
            for (identity, tone) in [("alice", 440.0), ("bob", 880.0)] {
                let token = try ServerProcess.devToken(identity: identity, room: "join")
                group.addTask {
                    let (out, err, status) = try await ClientHarness.offPool {
                        try LoadTestSmokeTests.tool("vroom-join", [
                            "--url", url, "--token", token, "--duration", "6", "--tone", String(tone),
                        ])
                    }
                    return (identity, out, err, status)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = ($1.1, $1.2, $1.3) }
        }
        for (identity, other, tone) in [("alice", "bob", 880.0), ("bob", "alice", 440.0)] {
            let (out, err, status) = try #require(runs[identity])
            #expect(status == 0, "\(identity): \(err)")
            // The last line with the other still there (one of them leaves first).
            let last = try #require(try Self.lines(out).last { $0.participants == [other] }, "\(identity) never saw \(other): \(err)")
            #expect(last.state == "connected")
            let video = try #require(last.received.first { $0.identity == other && $0.kind == "video" }, "\(last.received)")
            let audio = try #require(last.received.first { $0.identity == other && $0.kind == "audio" }, "\(last.received)")
            #expect(video.framesDecoded >= 60, "\(identity) decoded \(video.framesDecoded) of \(other)'s frames")
            #expect(abs((audio.audioFrequency ?? 0) - tone) < 10, "\(identity) heard \(String(describing: audio.audioFrequency)) Hz")
        }
    }

    @Test func aRefusedJoinExitsOneWithTheCode() throws {
        let (server, port) = try ServerProcess.dev()
        defer { server.stop() }
        let (_, err, status) = try LoadTestSmokeTests.tool("vroom-join", [
            "--url", "http://127.0.0.1:\(port)", "--token", "not-a-token", "--room", "join", "--duration", "10",
        ])
        #expect(status == 1)
        #expect(err.contains("vroom-join: 20101"), "\(err)")
    }
}
}
