import Foundation
import Logging
import PostgresNIO

extension PostgresDatabase {
    /// PostgreSQL's limit on a `NOTIFY` payload, in bytes.
    public static let maxNotificationBytes = 7999

    /// `NOTIFY channel, payload` (through `pg_notify`, so both are bound
    /// parameters). Delivered to the sessions listening on the channel when
    /// this statement's transaction commits (at once: it is alone).
    public func notify(channel: String, payload: String) async throws {
        try await client.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    /// Listens on `channel` until the task is cancelled, on a connection of
    /// its own (a pooled one goes back to the pool), calling `received` with
    /// each payload in order. When the connection drops (the database
    /// restarts, the network fails) it connects and listens again, every
    /// `retry` until it can; `listening(true)` is called each time it
    /// listens, `listening(false)` each time it lost the connection.
    /// Notifications sent while it is not listening are lost.
    public func listen(
        channel: String, retry: Duration = .milliseconds(500),
        listening: @escaping @Sendable (Bool) -> Void,
        received: @escaping @Sendable (String) async -> Void
    ) async {
        var failing = false
        while !Task.isCancelled {
            do {
                let configuration = try target.directConfiguration(connectTimeout: connectTimeout)
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                do {
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: channel) { notifications in
                            listening(true)
                            if failing { logger.notice("cluster: listening on \(channel) again") }
                            failing = false
                            for try await notification in notifications {
                                await received(notification.payload)
                            }
                        }
                    } onCancel: {
                        connection.close().whenComplete { _ in }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
                listening(false)
            } catch {
                listening(false)
                if !failing, !Task.isCancelled { logger.warning("cluster: cannot listen on \(channel): \(Self.describe(error))") }
                failing = true
            }
            try? await Task.sleep(for: retry)
        }
    }
}
