import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// PublishedTracks served from history: two `vroom-server` processes share
/// one SQLite file; a participant publishes on node A, and node B (which
/// does not hold the room in memory) answers REST from the history, which
/// must follow the CURRENT publications (Twilio's PublishedTracks).
extension ServerProcessTests {
@Suite struct HistoryTracksEndToEndTests {
    static func start(db: URL) throws -> (DevServerTests.RunningServer, Int) {
        let running = try DevServerTests.RunningServer(
            arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1", "--db", db.path])
        return (running, Int(try running.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#))!)
    }

    /// The `published_tracks` list node `port` serves, polled until
    /// `accept` holds (history is written asynchronously) or 20 s passed.
    static func tracks(port: Int, _ path: String, until accept: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(20)
        var last: [[String: Any]] = []
        while Date() < deadline {
            let (status, body) = try await WebhookEndToEndTests.rest(port: port, "GET", path)
            #expect(status == 200)
            last = body["published_tracks"] as? [[String: Any]] ?? []
            if accept(last) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        return last
    }

    @Test func anotherNodeSeesTheCurrentPublicationsThroughHistory() async throws {
        let (directory, db) = try AdminRESTEndToEndTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        // B first: each node marks rooms in progress `failed` when it starts.
        let (nodeB, portB) = try Self.start(db: db)
        defer { nodeB.stop() }
        let (nodeA, portA) = try Self.start(db: db)
        defer { nodeA.stop() }

        let alice = SignalingClient(port: portA, token: try AdminRESTEndToEndTests.token("alice"))
        alice.send(["type": "join", "id": "j", "room": "shared"])
        _ = try await alice.next("joined")
        alice.send([
            "type": "publish", "id": "p", "sdp": SignalingEndToEndTests.offer,
            "tracks": [["mid": "0", "name": "mic", "kind": "audio"], ["mid": "1", "name": "camera", "kind": "video"]],
        ])
        let answer = try await alice.next("publishAnswer")
        let published = try #require(answer["tracks"] as? [[String: Any]])
        let mic = try #require(published.first?["sid"] as? String)
        let camera = try #require(published.last?["sid"] as? String)

        let path = "/v1/Rooms/shared/Participants/alice/PublishedTracks"
        let both = try await Self.tracks(port: portB, path) { $0.count == 2 }
        #expect(both.map { $0["sid"] as? String } == [mic, camera])
        #expect(both.map { $0["name"] as? String } == ["mic", "camera"])
        #expect(both.map { $0["kind"] as? String } == ["audio", "video"])
        #expect(both.map { $0["enabled"] as? Bool } == [true, true])

        alice.send(["type": "setTrackEnabled", "id": "d", "trackSid": camera, "enabled": false])
        try await alice.next("ok", where: { $0["id"] as? String == "d" })
        let disabled = try await Self.tracks(port: portB, path) { $0.last?["enabled"] as? Bool == false }
        #expect(disabled.map { $0["enabled"] as? Bool } == [true, false])
        let (status, one) = try await WebhookEndToEndTests.rest(port: portB, "GET", "\(path)/\(camera)")
        #expect(status == 200)
        #expect(one["sid"] as? String == camera)
        #expect(one["enabled"] as? Bool == false)

        alice.send(["type": "unpublish", "id": "u", "trackSid": mic])
        try await alice.next("ok", where: { $0["id"] as? String == "u" })
        let left = try await Self.tracks(port: portB, path) { $0.count == 1 }
        #expect(left.map { $0["sid"] as? String } == [camera])
        let (gone, _) = try await WebhookEndToEndTests.rest(port: portB, "GET", "\(path)/\(mic)")
        #expect(gone == 404)

        // The participant leaves: its publications go with it.
        alice.send(["type": "leave"])
        try await alice.waitClosed()
        #expect(try await Self.tracks(port: portB, path) { $0.isEmpty }.isEmpty)
    }
}
}
