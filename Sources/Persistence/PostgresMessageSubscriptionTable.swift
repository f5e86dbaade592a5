import PostgresNIO

/// `POST …/MessageSubscriptions` (PROTOCOL.md section 6) in the cluster's
/// database, so the node that owns a participant's room finds the
/// subscriptions made through any node's REST API.
///
/// `Sendable`: it holds only the `Sendable` database.
public struct PostgresMessageSubscriptionTable: Sendable {
    public let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// Adds `callback` for the participant unless it is there already;
    /// false when the participant already has `limit` subscriptions.
    public func subscribe(participant: String, callback: String, limit: Int) async throws -> Bool {
        try await database.client.withTransaction(logger: database.logger) { connection in
            // One subscriber at a time per participant, so the limit holds.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext(\(participant)))", logger: database.logger)
            let rows = try await connection.query(
                """
                SELECT count(*)::BIGINT, count(*) FILTER (WHERE callback = \(callback))::BIGINT
                FROM message_subscription WHERE participant_sid = \(participant)
                """, logger: database.logger)
            var (count, existing) = (0, 0)
            for try await (all, same) in rows.decode((Int, Int).self) { (count, existing) = (all, same) }
            if existing > 0 { return true }
            guard count < limit else { return false }
            try await connection.query(
                "INSERT INTO message_subscription (participant_sid, callback) VALUES (\(participant), \(callback))",
                logger: database.logger)
            return true
        }
    }

    /// The participant's callbacks, in subscription order.
    public func callbacks(participant: String) async throws -> [String] {
        let rows = try await database.client.query(
            "SELECT callback FROM message_subscription WHERE participant_sid = \(participant) ORDER BY position",
            logger: database.logger)
        var callbacks: [String] = []
        for try await callback in rows.decode(String.self) { callbacks.append(callback) }
        return callbacks
    }

    /// The participant's session is over: its subscriptions go.
    public func remove(participant: String) async throws {
        try await database.client.query(
            "DELETE FROM message_subscription WHERE participant_sid = \(participant)", logger: database.logger)
    }
}
