import Foundation
import Logging
@testable import Persistence
import Rooms
import Testing
import VroomTesting

/// What only the PostgreSQL store does: its URL, its start beside other
/// nodes, and a database that goes away and comes back.
@Suite struct PostgresHistoryStoreTests {
    private let start = Date(timeIntervalSince1970: 1_795_257_000)

    @Test(arguments: [
        "mysql://vroom@127.0.0.1/vroom", "postgres:///vroom", "postgres://127.0.0.1:5432/vroom",
        "postgres://vroom@127.0.0.1:5432/", "postgres://vroom@127.0.0.1/vroom?sslmode=sometimes",
    ])
    func badURLsAreRefusedWithAReason(url: String) async throws {
        await #expect {
            _ = try await PostgresDatabase.connect(url: url, logger: Logger(label: "test"))
        } throws: { error in
            guard case .badDatabaseURL(let reason) = error as? HistoryStoreError else { return false }
            return !reason.isEmpty
        }
    }

    @Test func anUnreachableDatabaseIsAnErrorThatSaysWhereWithoutThePassword() async throws {
        let port = try PostgresServer.freeTCPPort()  // nothing listens there
        let url = "postgres://vroom:hunter2@127.0.0.1:\(port)/vroom?sslmode=disable"
        var text = ""
        do {
            _ = try await PostgresDatabase.connect(url: url, logger: Logger(label: "test"), connectTimeout: .seconds(2))
            Issue.record("connected to nothing")
        } catch let error as HistoryStoreError {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
            text = "\(error)"
        }
        #expect(text.contains("127.0.0.1:\(port)/vroom"), "\(text)")
        #expect(!text.contains("hunter2"), "\(text)")
    }

    @Test func nodesStartingAtOnceMigrateOnce() async throws {
        let url = try PostgresServer.shared().createDatabase()
        let databases = try await withThrowingTaskGroup(of: PostgresDatabase.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresDatabase.connect(url: url, logger: Logger(label: "test")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(databases.count == 4)
        // Every one can use the tables, and a fifth start finds nothing to do.
        let again = try await PostgresDatabase.connect(url: url, logger: Logger(label: "test"))
        let store = PostgresHistoryStore(database: again)
        try await store.save(room: RoomRecord(
            sid: RoomSID(unchecked: "RM" + String(repeating: "a", count: 32)), uniqueName: "r", dateCreated: start))
        for database in databases {
            #expect(try await PostgresHistoryStore(database: database).rooms().items.count == 1)
        }
        #expect(try await again.appliedMigrations() == PostgresDatabase.schemaVersions)
    }

    @Test func recordsWrittenWhileTheDatabaseIsAwayLandInOrderAfterIt() async throws {
        // A server of its own: this test stops it.
        let server = try PostgresServer()
        defer { server.stop() }
        let url = try server.createDatabase()
        let store = PostgresHistoryStore(database: try await PostgresDatabase.connect(url: url, logger: Logger(label: "test")))
        var service = RoomService(generator: SystemRandomNumberGenerator())
        let alice = try service.join(roomName: "outage", identity: "alice", now: start)
        #expect(store.record(alice.events))
        try await store.caughtUp()
        #expect(try await store.participants(roomSID: alice.value.room.sid).items.count == 1)

        try server.pause()
        var sids: [ParticipantSID] = []
        for n in 0..<20 {
            let joined = try service.join(roomName: "outage", identity: "p\(n)", now: start.addingTimeInterval(Double(n)))
            sids.append(joined.value.participant.sid)
            #expect(store.record(joined.events + service.leave(participant: joined.value.participant.sid, now: start.addingTimeInterval(Double(n) + 0.5))))
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(store.pendingBatches > 0)
        try server.restart()

        let deadline = ContinuousClock.now + .seconds(30)
        while store.pendingBatches > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(store.pendingBatches == 0)
        let page = try await store.participants(roomSID: alice.value.room.sid, status: .disconnected, pageSize: 100)
        #expect(page.items.map(\.sid) == sids)
        #expect(page.items.allSatisfy { $0.endReason == .left })
    }
    /// Sessions by token (its hash: the token is not in the table), and a
    /// room rebuilt from what the database holds equals the room's own
    /// state: what another node needs to take a room over.
    @Test func sessionsAreFoundByTokenAndARoomCanBeRebuilt() async throws {
        let url = try PostgresServer.shared().createDatabase()
        let store = PostgresHistoryStore(database: try await PostgresDatabase.connect(url: url, logger: Logger(label: "test")))
        var service = RoomService(generator: SystemRandomNumberGenerator())
        let alice = try service.join(roomName: "moving", identity: "alice", now: start)
        let bob = try service.join(
            roomName: "moving", identity: "bob", rules: [SubscribeRule(type: .include, kind: .audio)], now: start)
        let published = try service.publish(
            participant: alice.value.participant.sid,
            tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: start.addingTimeInterval(1))
        let carol = try service.join(roomName: "moving", identity: "carol", now: start.addingTimeInterval(2))
        #expect(store.record(alice.events + bob.events + published.events + carol.events))

        let found = try #require(try await store.session(token: alice.value.sessionToken))
        #expect(found.participantSID == alice.value.participant.sid)
        #expect(found.roomSID == alice.value.room.sid && found.uniqueName == "moving" && found.identity == "alice")
        #expect(try await store.session(token: SessionToken(rawValue: "not-a-token")) == nil)
        let rows = try await store.database.client.query("SELECT count(*) FROM session WHERE token_hash = \(alice.value.sessionToken.rawValue)", logger: store.database.logger)
        for try await count in rows.decode(Int.self) { #expect(count == 0, "the token itself is not stored") }
        // Its SHA-256 is (computed by PostgreSQL here, in the test only).
        let hashed = try await store.database.client.query(
            "SELECT count(*) FROM session WHERE token_hash = encode(sha256(convert_to(\(alice.value.sessionToken.rawValue), 'UTF8')), 'hex')",
            logger: store.database.logger)
        for try await count in hashed.decode(Int.self) { #expect(count == 1, "stored as its SHA-256") }

        // A resume's new token replaces the old; a participant who left has no session.
        _ = service.drop(participant: alice.value.participant.sid, now: start.addingTimeInterval(3))
        let resumed = try service.resume(sessionToken: alice.value.sessionToken, identity: "alice", now: start.addingTimeInterval(4))
        let left = service.leave(participant: carol.value.participant.sid, now: start.addingTimeInterval(5))
        #expect(store.record(resumed.events + left))
        #expect(try await store.session(token: alice.value.sessionToken) == nil)
        #expect(try await store.session(token: resumed.value.sessionToken)?.participantSID == alice.value.participant.sid)
        #expect(try await store.session(token: carol.value.sessionToken) == nil)

        let snapshot = try #require(try await store.snapshot(room: alice.value.room.sid))
        #expect(snapshot.room.uniqueName == "moving" && snapshot.room.status == .inProgress)
        #expect(snapshot.participants.map(\.record.sid) == [alice.value.participant.sid, bob.value.participant.sid])
        #expect(snapshot.participants.map(\.rules) == [SubscribeRule.includeAll, [SubscribeRule(type: .include, kind: .audio)]])
        #expect(snapshot.participants[0].tracks.map(\.sid) == published.value.map(\.sid))
        #expect(snapshot.participants[1].tracks.isEmpty)

        // Adopted by another service: the same room, carried on.
        var other = RoomService(generator: SystemRandomNumberGenerator())
        _ = try other.adopt(snapshot, now: start.addingTimeInterval(10))
        let back = try other.resume(adopted: bob.value.participant.sid, identity: "bob", now: start.addingTimeInterval(11))
        #expect(back.value.room.sid == alice.value.room.sid)
        #expect(back.value.participants.map(\.sid) == [alice.value.participant.sid])
        #expect(other.subscribedTracks(of: bob.value.participant.sid).isEmpty, "bob takes audio only; alice has video")

        // The room ends: no session to resume, no snapshot.
        let ended = try service.completeRoom(alice.value.room.sid.rawValue, now: start.addingTimeInterval(20))
        #expect(store.record(ended.events))
        #expect(try await store.session(token: resumed.value.sessionToken) == nil)
        #expect(try await store.snapshot(room: alice.value.room.sid) == nil)
    }
}
