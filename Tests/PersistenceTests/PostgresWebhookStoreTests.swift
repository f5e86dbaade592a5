import Foundation
@testable import Persistence
import PostgresNIO
import Rooms
import Testing

/// A numbered entry whose request carries its `SequenceNumber` in the body.
private func entry(_ room: String, url: String = "http://receiver.invalid/hook", ends: Bool = false) -> PostgresWebhookStore.OutboxEntry {
    .init(roomSID: room, queueURL: url, numbered: true, endsNumbering: ends) { number in
        SignedWebhookRequest(method: "POST", url: url, headers: [.init(name: "X-Test", value: "yes")], body: "SequenceNumber=\(number ?? -1)")
    }
}

/// What the concurrent leasers saw: which rows of a room are held now.
private actor Holdings {
    var held: [String: Int] = [:]
    var overlaps: [String] = []
    var order: [String: [Int]] = [:]

    func take(_ room: String, _ number: Int) {
        if let other = held[room] { overlaps.append("\(room): \(number) leased while \(other) held") }
        held[room] = number
        order[room, default: []].append(number)
    }

    func give(_ room: String) { held[room] = nil }
}

/// The cluster's webhook outbox table (PROTOCOL.md section 8) on a real
/// PostgreSQL, without HTTP: numbering shared by nodes, and leases that
/// hand out only the head of a queue, never one row to two nodes.
@Suite struct PostgresWebhookStoreTests {
    @Test func numbersContinueAcrossNodesAndOnlyTheHeadOfAQueueIsLeased() async throws {
        let database = try await StoreKind.newDatabase()
        let a = PostgresWebhookStore(database: database, nodeID: "NOa")
        let b = PostgresWebhookStore(database: database, nodeID: "NOb")
        for _ in 0..<3 { #expect(a.enqueue(entry("RMr"))) }
        await a.caughtUp(within: .seconds(10))
        for _ in 0..<2 { #expect(b.enqueue(entry("RMr"))) }
        #expect(b.enqueue(entry("RMr", ends: true)))
        await b.caughtUp(within: .seconds(10))

        let first = try await a.lease(limit: 10, length: .seconds(30))
        #expect(first.map(\.sequenceNumber) == [0])
        #expect(first.first?.request.body == "SequenceNumber=0")
        #expect(first.first?.request.headers == [.init(name: "X-Test", value: "yes")])
        #expect(try await b.lease(limit: 10, length: .seconds(30)).isEmpty, "the head is leased: nothing behind it goes")
        try await a.delivered(id: try #require(first.first?.id))
        var numbers: [Int?] = [0]
        while let row = try await b.lease(limit: 10, length: .seconds(30)).first {
            numbers.append(row.sequenceNumber)
            try await b.delivered(id: row.id)
        }
        #expect(numbers == [0, 1, 2, 3, 4, 5])
        // room-ended took the counter with it.
        let counters = try await database.client.query("SELECT count(*)::BIGINT FROM webhook_sequence").collect()
        #expect(try counters.first?.decode(Int.self) == 0)
    }

    /// The write queue tries an entry again when the database's answer to
    /// its commit was lost (the connection broke): the second write of the
    /// same entry must queue nothing, and take no number.
    @Test func anEntryWrittenTwiceIsQueuedOnceUnderOneNumber() async throws {
        let database = try await StoreKind.newDatabase()
        let store = PostgresWebhookStore(database: database, nodeID: "NOa")
        let first = entry("RMr")
        for _ in 0..<2 {
            try await PostgresWebhookStore.write(first, nodeID: "NOa", database: database, logger: database.logger)
        }
        try await PostgresWebhookStore.write(entry("RMr"), nodeID: "NOa", database: database, logger: database.logger)
        var numbers: [Int?] = []
        while let row = try await store.lease(limit: 10, length: .seconds(30)).first {
            numbers.append(row.sequenceNumber)
            try await store.delivered(id: row.id)
        }
        #expect(numbers == [0, 1])
        // An old key is forgotten by a later write.
        try await database.client.query("UPDATE webhook_written SET written_at = now() - interval '2 days'")
        try await PostgresWebhookStore.write(entry("RMs"), nodeID: "NOa", database: database, logger: database.logger)
        let keys = try await database.client.query("SELECT count(*)::BIGINT FROM webhook_written").collect()
        #expect(try keys.first?.decode(Int.self) == 1)
    }

    /// A history batch with its status callbacks (one transaction) that the
    /// server fails once with a serialization failure (SQLSTATE 40001: try
    /// again) lands whole on the next attempt: the record, one callback row,
    /// and the `SequenceNumber` the failed attempt took given back. A
    /// server error inside a transaction used to read as not transient
    /// only when bare, so the queue retried even a refusal forever; it is
    /// judged by its SQLSTATE now.
    @Test func aJointBatchTheServerAsksToRetryLandsWholeOnce() async throws {
        let database = try await StoreKind.newDatabase()
        let history = PostgresHistoryStore(database: database)
        let store = PostgresWebhookStore(database: database, nodeID: "NOa")
        try await database.client.query("CREATE SEQUENCE attempts")
        try await database.client.query(
            """
            CREATE FUNCTION fail_first() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('attempts') = 1 THEN RAISE EXCEPTION 'try again' USING ERRCODE = 'serialization_failure'; END IF;
                RETURN NEW;
            END $$
            """)
        try await database.client.query(
            "CREATE TRIGGER fail_first BEFORE INSERT ON webhook_outbox FOR EACH ROW EXECUTE FUNCTION fail_first()")
        let room = RoomRecord(sid: RoomSID(unchecked: "RMr"), uniqueName: "retried", dateCreated: Date(timeIntervalSince1970: 1_795_257_000))
        let error: (any Error)? = await withCheckedContinuation { written in
            #expect(history.record([.roomRecord(room)], callbacks: [entry("RMr")], for: store) { written.resume(returning: $0) })
        }
        #expect(error == nil, "\(String(describing: error))")
        #expect(try await history.room(sid: "RMr") != nil)
        let rows = try await store.lease(limit: 10, length: .seconds(30))
        #expect(rows.map(\.sequenceNumber) == [0])
        let attempts = try await database.client.query("SELECT last_value FROM attempts").collect()
        #expect(try attempts.first?.decode(Int.self) == 2, "written on the second attempt")
    }

    @Test func nodesLeasingTogetherNeverHoldTwoRowsOfAQueue() async throws {
        let database = try await StoreKind.newDatabase()
        let writer = PostgresWebhookStore(database: database, nodeID: "NOw")
        let rooms = (0..<8).map { "RM\($0)" }
        for _ in 0..<6 { for room in rooms { #expect(writer.enqueue(entry(room))) } }
        await writer.caughtUp(within: .seconds(10))

        let holdings = Holdings()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<4 {
                let node = PostgresWebhookStore(database: database, nodeID: "NO\(n)")
                group.addTask {
                    var idle = 0
                    while idle < 5 {
                        let rows = try await node.lease(limit: 3, length: .seconds(30))
                        idle = rows.isEmpty ? idle + 1 : 0
                        for row in rows { await holdings.take(row.roomSID, row.sequenceNumber ?? -1) }
                        try await Task.sleep(for: .milliseconds(5))
                        for row in rows {
                            await holdings.give(row.roomSID)
                            try await node.delivered(id: row.id)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let overlaps = await holdings.overlaps
        #expect(overlaps.isEmpty, "\(overlaps)")
        let order = await holdings.order
        for room in rooms { #expect(order[room] == Array(0..<6), "\(room): \(order[room] ?? [])") }
    }
}
