import Foundation
import Logging
import Persistence
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
}
