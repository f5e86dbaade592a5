import Logging
import PostgresNIO

/// The cluster database's tables, created and upgraded at start by
/// ``migrate(_:)``. Each migration runs once per database: applied ones are
/// recorded in `vroom_migrations`, and a node starting beside another waits
/// on a transaction-scoped advisory lock instead of running them twice. New
/// columns go in NEW migrations; never edit a shipped one.
///
/// The history tables mirror the SQLite ones (``HistorySchema``) with a
/// `seq` column standing for SQLite's `rowid` (insertion order breaks ties
/// in lists). No foreign keys, for the same reason as there: a participant
/// may be written before its room.
enum PostgresSchema {
    /// pg_advisory_xact_lock's key for migrations: any constant of ours.
    static let migrationLock: Int64 = 0x5652_4F4F_4D00_0001
    /// Taken by each new placement, so each counts the placements committed
    /// before it (PostgresNodeTable.place).
    static let placementLock: Int64 = 0x5652_4F4F_4D00_0002

    static let migrations: [(version: Int, name: String, statements: [String])] = [
        (1, "rooms, participants, published tracks", [
            """
            CREATE TABLE room (
                seq BIGSERIAL NOT NULL,
                sid TEXT PRIMARY KEY,
                unique_name TEXT NOT NULL,
                status TEXT NOT NULL,
                type TEXT NOT NULL,
                max_participants BIGINT NOT NULL,
                empty_room_timeout BIGINT NOT NULL,
                unused_room_timeout BIGINT NOT NULL,
                status_callback TEXT,
                status_callback_method TEXT NOT NULL,
                date_created BIGINT NOT NULL,
                date_updated BIGINT NOT NULL,
                end_time BIGINT,
                duration BIGINT
            )
            """,
            "CREATE INDEX room_by_unique_name ON room(unique_name, date_created)",
            "CREATE INDEX room_by_status ON room(status, date_created)",
            "CREATE INDEX room_by_date_created ON room(date_created, seq)",
            """
            CREATE TABLE participant (
                seq BIGSERIAL NOT NULL,
                sid TEXT PRIMARY KEY,
                room_sid TEXT NOT NULL,
                identity TEXT NOT NULL,
                name TEXT,
                status TEXT NOT NULL,
                date_created BIGINT NOT NULL,
                date_updated BIGINT NOT NULL,
                start_time BIGINT NOT NULL,
                end_time BIGINT,
                duration BIGINT,
                end_reason TEXT
            )
            """,
            "CREATE INDEX participant_by_room ON participant(room_sid, date_created, seq)",
            "CREATE INDEX participant_by_identity ON participant(room_sid, identity)",
            "CREATE INDEX participant_by_status ON participant(status)",
            """
            CREATE TABLE published_track (
                seq BIGSERIAL NOT NULL,
                sid TEXT PRIMARY KEY,
                participant_sid TEXT NOT NULL,
                room_sid TEXT NOT NULL,
                name TEXT NOT NULL,
                kind TEXT NOT NULL,
                enabled BOOLEAN NOT NULL,
                publisher_enabled BOOLEAN NOT NULL,
                mid TEXT NOT NULL,
                date_created BIGINT NOT NULL,
                date_updated BIGINT NOT NULL
            )
            """,
            "CREATE INDEX published_track_by_participant ON published_track(participant_sid, date_created, seq)",
        ]),
        (2, "nodes and room placement", [
            // One row per node process (a restarted node is a new row): how
            // to reach it, its state and load, and when it last said so, in
            // the database's clock so that nodes' clocks need not agree.
            """
            CREATE TABLE node (
                id TEXT PRIMARY KEY,
                url TEXT NOT NULL,
                state TEXT NOT NULL,
                participants BIGINT NOT NULL,
                rooms BIGINT NOT NULL,
                cpu DOUBLE PRECISION NOT NULL,
                started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            // Which node owns a room, by unique name: the primary key makes
            // placement atomic (two nodes never both own one name).
            // `room_sid` is set once the owner has created the room.
            """
            CREATE TABLE room_placement (
                unique_name TEXT PRIMARY KEY,
                node_id TEXT NOT NULL,
                room_sid TEXT,
                placed_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX room_placement_by_node ON room_placement(node_id)",
            "CREATE INDEX room_placement_by_room ON room_placement(room_sid)",
        ]),
        (3, "durable webhook outbox, message subscriptions", [
            // Status and message callbacks waiting for delivery, each a
            // signed request. A queue is (room_sid, queue_url): its rows go
            // out one at a time in `id` order (PostgresWebhookStore.lease).
            // `sequence_number` is the status callback's SequenceNumber
            // (NULL for a message callback); `created_at` is when it was
            // enqueued, giveUpAge counts from there. A lease (`leased_by`,
            // `leased_until`) marks a row one node is delivering now.
            """
            CREATE TABLE webhook_outbox (
                id BIGSERIAL PRIMARY KEY,
                room_sid TEXT NOT NULL,
                queue_url TEXT NOT NULL,
                sequence_number BIGINT,
                method TEXT NOT NULL,
                request_url TEXT NOT NULL,
                header_names TEXT[] NOT NULL,
                header_values TEXT[] NOT NULL,
                body TEXT NOT NULL,
                enqueued_by TEXT NOT NULL,
                created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                attempts BIGINT NOT NULL DEFAULT 0,
                next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                leased_by TEXT,
                leased_until TIMESTAMPTZ
            )
            """,
            "CREATE INDEX webhook_outbox_by_queue ON webhook_outbox(room_sid, queue_url, id)",
            "CREATE INDEX webhook_outbox_by_enqueuer ON webhook_outbox(enqueued_by)",
            // A room's next SequenceNumber, whichever node enqueues (a room
            // may move); the row goes with the room's `room-ended`.
            """
            CREATE TABLE webhook_sequence (
                room_sid TEXT PRIMARY KEY,
                next_number BIGINT NOT NULL
            )
            """,
            // `POST …/MessageSubscriptions`, seen by every node; `position`
            // keeps subscription order.
            """
            CREATE TABLE message_subscription (
                participant_sid TEXT NOT NULL,
                callback TEXT NOT NULL,
                position BIGSERIAL NOT NULL,
                PRIMARY KEY (participant_sid, callback)
            )
            """,
        ]),
        (4, "sessions", [
            // A participant's current session: the SHA-256 of its token (the
            // token itself is never stored), and its subscribe rules (JSON),
            // so another node can resume it. One row per participant,
            // deleted when the participant's session ends.
            """
            CREATE TABLE session (
                participant_sid TEXT PRIMARY KEY,
                token_hash TEXT NOT NULL UNIQUE,
                room_sid TEXT NOT NULL,
                identity TEXT NOT NULL,
                rules TEXT NOT NULL,
                rules_date_updated BIGINT NOT NULL
            )
            """,
            "CREATE INDEX session_by_room ON session(room_sid)",
        ]),
        (5, "webhook idempotency", [
            // The key of every outbox entry written in the last day: a write
            // tried again after a commit whose answer was lost finds its key
            // and writes nothing (PostgresWebhookStore.write), so no
            // callback is queued twice under two SequenceNumbers.
            """
            CREATE TABLE webhook_written (
                entry_key UUID PRIMARY KEY,
                written_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX webhook_written_by_age ON webhook_written(written_at)",
        ]),
    ]

    /// Brings the schema up to date, in one transaction (PostgreSQL's DDL is
    /// transactional: a failure leaves the database as it was).
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS vroom_migrations (
                    version BIGINT PRIMARY KEY, name TEXT NOT NULL,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query(
                "SELECT version FROM vroom_migrations", logger: logger
            ).decode(Int.self) {
                applied.insert(version)
            }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO vroom_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                logger.info("database: applied migration \(migration.version) (\(migration.name))")
            }
        }
    }
}
