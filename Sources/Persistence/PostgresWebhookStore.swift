import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The cluster's durable webhook outbox and message subscriptions in
/// PostgreSQL (PROTOCOL.md sections 6 and 8): every node writes the
/// callbacks it queues into `webhook_outbox` and every node delivers any
/// room's, one row of a queue at a time, so a dead node's callbacks are
/// delivered by another.
///
/// - ``enqueue(_:)`` never waits: rows go through an ``OrderedWriteQueue``
///   (in order, tried again while the database is away). A status callback
///   takes its room's `SequenceNumber` from `webhook_sequence` in the same
///   transaction that inserts it, and only then is it signed (the number is
///   a signed parameter), by the entry's `build` closure.
/// - ``lease(limit:length:)`` takes the head (oldest row) of queues
///   whose head is due and not leased, with `FOR UPDATE SKIP LOCKED`, so two
///   nodes never take one row and never a row behind another of its queue.
///   A lease expires: a dead node's rows are taken over afterwards.
///
/// `Sendable`: it holds the `Sendable` database and write queue and
/// immutable values.
public final class PostgresWebhookStore: Sendable {
    public let database: PostgresDatabase
    /// The node writing and leasing (`enqueued_by`, `leased_by`).
    public let nodeID: String
    private let queue: OrderedWriteQueue<OutboxEntry>

    /// Entries waiting to be written: as the in-memory outbox's inbox.
    public static let maxPendingEntries = 10_000

    /// A callback to queue: its queue, whether it takes a `SequenceNumber`,
    /// and how to sign it once it has one.
    public struct OutboxEntry: Sendable {
        /// Its identity across writes: a write tried again after an
        /// ambiguous commit is recognised by it (`webhook_written`).
        public var key = UUID()
        public var roomSID: String
        /// The callback URL as configured: with the room, the queue's key.
        public var queueURL: String
        /// A status callback (numbered); false for a message callback.
        public var numbered: Bool
        /// The room's last status callback (`room-ended`): its counter goes.
        public var endsNumbering: Bool
        public var enqueuedAt: ContinuousClock.Instant
        /// The signed request, given the `SequenceNumber` (nil when not numbered).
        public var build: @Sendable (Int?) -> SignedWebhookRequest

        public init(
            roomSID: String, queueURL: String, numbered: Bool, endsNumbering: Bool,
            enqueuedAt: ContinuousClock.Instant = .now, build: @escaping @Sendable (Int?) -> SignedWebhookRequest
        ) {
            self.roomSID = roomSID
            self.queueURL = queueURL
            self.numbered = numbered
            self.endsNumbering = endsNumbering
            self.enqueuedAt = enqueuedAt
            self.build = build
        }
    }

    /// A row this node leased for one attempt.
    public struct LeasedRow: Sendable {
        public var id: Int64
        public var roomSID: String
        public var queueURL: String
        public var sequenceNumber: Int?
        public var request: SignedWebhookRequest
        /// Failed attempts so far.
        public var attempts: Int
        /// Time since it was enqueued (the database's clock).
        public var age: Duration
    }

    /// - Parameter written: called after each entry's write (nil) or with
    ///   the error it was given up for; the delivery loop wakes on it.
    public init(database: PostgresDatabase, nodeID: String, written: @escaping @Sendable ((any Error)?) -> Void = { _ in }) {
        self.database = database
        self.nodeID = nodeID
        let logger = database.logger
        queue = OrderedWriteQueue(
            maxPending: Self.maxPendingEntries,
            write: { entry in try await Self.write(entry, nodeID: nodeID, database: database, logger: logger) },
            isTransient: PostgresDatabase.isTransient,
            finished: { _, error in written(error) })
    }

    /// Queues an entry for writing; false (nothing queued) when
    /// ``maxPendingEntries`` already wait.
    public func enqueue(_ entry: OutboxEntry) -> Bool {
        queue.enqueue(entry)
    }

    /// Entries not yet written.
    public var unwritten: Int { queue.pending }

    /// Waits until every entry enqueued so far is written (or `limit` passed).
    public func caughtUp(within limit: Duration) async {
        await queue.caughtUp(within: limit)
    }

    /// Stops taking entries and waits for the enqueued ones to be written.
    public func finish() async {
        await queue.finish()
    }

    /// How long an entry's key is kept: far longer than a write is tried
    /// again after its commit's answer was lost.
    static let keyLifetimeSeconds = 86_400

    /// Writes one entry, in one transaction of its own (see
    /// ``write(_:nodeID:on:logger:)``).
    static func write(_ entry: OutboxEntry, nodeID: String, database: PostgresDatabase, logger: Logger) async throws {
        try await database.client.withTransaction(logger: logger) { connection in
            try await write(entry, nodeID: nodeID, on: connection, logger: logger)
        }
    }

    /// Writes one entry inside the caller's transaction, unless its key
    /// says it was written already (a retry after an ambiguous commit).
    /// Each write also forgets keys older than ``keyLifetimeSeconds``, a few
    /// at a time. ``PostgresHistoryStore`` calls it too, so that a status
    /// callback commits with the records it reports.
    static func write(_ entry: OutboxEntry, nodeID: String, on connection: PostgresConnection, logger: Logger) async throws {
        let fresh = try await connection.query(
            "INSERT INTO webhook_written (entry_key) VALUES (\(entry.key)) ON CONFLICT DO NOTHING RETURNING 1",
            logger: logger
        ).collect()
        guard !fresh.isEmpty else { return }
        try await insert(entry, nodeID: nodeID, connection, logger)
        try await connection.query(
            """
            DELETE FROM webhook_written WHERE entry_key IN (
                SELECT entry_key FROM webhook_written
                WHERE written_at < now() - make_interval(secs => \(keyLifetimeSeconds))
                ORDER BY written_at LIMIT 10 FOR UPDATE SKIP LOCKED)
            """, logger: logger)
    }

    private static func insert(_ entry: OutboxEntry, nodeID: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        var number: Int?
        if entry.numbered {
            let rows = try await connection.query(
                """
                INSERT INTO webhook_sequence (room_sid, next_number) VALUES (\(entry.roomSID), 1)
                ON CONFLICT (room_sid) DO UPDATE SET next_number = webhook_sequence.next_number + 1
                RETURNING next_number - 1
                """, logger: logger)
            for try await value in rows.decode(Int.self) { number = value }
            if entry.endsNumbering {
                try await connection.query("DELETE FROM webhook_sequence WHERE room_sid = \(entry.roomSID)", logger: logger)
            }
        }
        let request = entry.build(number)
        // Age counts from the enqueue, also when the database was away meanwhile.
        let waited = seconds(ContinuousClock.now - entry.enqueuedAt)
        try await connection.query(
            """
            INSERT INTO webhook_outbox (room_sid, queue_url, sequence_number, method, request_url,
                header_names, header_values, body, enqueued_by, created_at, next_attempt_at)
            VALUES (\(entry.roomSID), \(entry.queueURL), \(number), \(request.method), \(request.url),
                \(request.headers.map(\.name)), \(request.headers.map(\.value)), \(request.body), \(nodeID),
                now() - make_interval(secs => \(waited)), now())
            """, logger: logger)
    }

    // MARK: - Delivery

    /// Leases up to `limit` rows, each the oldest of its queue, due, and not
    /// leased by anyone (or its lease expired), for `length`.
    public func lease(limit: Int, length: Duration) async throws -> [LeasedRow] {
        let leaseSeconds = Self.seconds(length)
        let rows = try await database.client.query(
            """
            UPDATE webhook_outbox SET leased_by = \(nodeID), leased_until = now() + make_interval(secs => \(leaseSeconds))
            WHERE id IN (
                SELECT o.id FROM webhook_outbox o
                WHERE o.id IN (
                        SELECT DISTINCT ON (room_sid, queue_url) id FROM webhook_outbox
                        ORDER BY room_sid, queue_url, id)
                    AND o.next_attempt_at <= now()
                    AND (o.leased_until IS NULL OR o.leased_until <= now())
                ORDER BY o.next_attempt_at, o.id
                LIMIT \(limit)
                FOR UPDATE OF o SKIP LOCKED)
            RETURNING id, room_sid, queue_url, sequence_number, method, request_url, header_names,
                header_values, body, attempts, extract(epoch FROM now() - created_at)::DOUBLE PRECISION
            """, logger: database.logger)
        var leased: [LeasedRow] = []
        for try await (id, room, queueURL, number, method, url, names, values, body, attempts, age) in rows.decode(
            (Int64, String, String, Int?, String, String, [String], [String], String, Int, Double).self
        ) {
            let headers = zip(names, values).map { SignedWebhookRequest.Header(name: $0, value: $1) }
            leased.append(LeasedRow(
                id: id, roomSID: room, queueURL: queueURL, sequenceNumber: number,
                request: SignedWebhookRequest(method: method, url: url, headers: headers, body: body),
                attempts: attempts, age: .milliseconds(Int64(age * 1000))))
        }
        return leased.sorted { $0.id < $1.id }
    }

    /// A row was delivered (2xx): it goes, whoever holds its lease now.
    public func delivered(id: Int64) async throws {
        try await database.client.query("DELETE FROM webhook_outbox WHERE id = \(id)", logger: database.logger)
    }

    /// An attempt at a row this node leased failed. When the row is
    /// `giveUpAge` old it is deleted and true returned (given up); otherwise
    /// its next attempt is `retryAfter` from now, but not after it is
    /// `giveUpAge` old (so the last attempt is at that age), and the lease
    /// is released.
    public func failed(id: Int64, retryAfter: Duration, giveUpAge: Duration) async throws -> Bool {
        let giveUp = Self.seconds(giveUpAge), retry = Self.seconds(retryAfter)
        return try await database.client.withTransaction(logger: database.logger) { connection in
            let gone = try await connection.query(
                """
                DELETE FROM webhook_outbox
                WHERE id = \(id) AND leased_by = \(nodeID) AND created_at <= now() - make_interval(secs => \(giveUp))
                RETURNING id
                """, logger: database.logger
            ).collect()
            if !gone.isEmpty { return true }
            try await connection.query(
                """
                UPDATE webhook_outbox SET attempts = attempts + 1, leased_by = NULL, leased_until = NULL,
                    next_attempt_at = LEAST(now() + make_interval(secs => \(retry)),
                        created_at + make_interval(secs => \(giveUp)))
                WHERE id = \(id) AND leased_by = \(nodeID)
                """, logger: database.logger)
            return false
        }
    }

    /// Gives back the leases this node holds (at shutdown), so another
    /// node takes the rows at once rather than when the leases expire.
    public func releaseLeases() async throws {
        try await database.client.query(
            "UPDATE webhook_outbox SET leased_by = NULL, leased_until = NULL WHERE leased_by = \(nodeID)",
            logger: database.logger)
    }

    /// Rows this node enqueued that are not delivered or given up yet.
    public func pendingRows() async throws -> Int {
        let rows = try await database.client.query(
            "SELECT count(*)::BIGINT FROM webhook_outbox WHERE enqueued_by = \(nodeID)", logger: database.logger)
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// One signed HTTP request of a status or message callback (PROTOCOL.md
/// section 6), as sent and as the cluster's outbox stores it.
public struct SignedWebhookRequest: Sendable, Equatable {
    public var method: String
    /// The URL requested (a GET's carries the parameters).
    public var url: String
    public var headers: [Header]
    public var body: String

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(method: String, url: String, headers: [Header], body: String) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

