import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// The cluster's shared PostgreSQL database (PROTOCOL.md section 8,
/// `--db postgres://user:password@host:port/dbname`): one postgres-nio
/// connection pool, run for as long as this object lives, with the schema
/// brought up to date at ``connect(url:logger:)``.
///
/// `Sendable`: it holds a `PostgresClient` (itself `Sendable`, a pool) and
/// the task that runs it.
public final class PostgresDatabase: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// The URL without its password, for logs and errors.
    public let displayURL: String
    private let running: Task<Void, Never>
    /// Where the database is, for connections outside the pool (LISTEN).
    let target: Target
    let connectTimeout: Duration

    /// Connects, then runs the schema's migrations (``PostgresSchema``):
    /// nodes starting at once take turns on an advisory lock, so each
    /// migration runs once. Throws ``HistoryStoreError/badDatabaseURL(_:)``
    /// for a URL it cannot read and ``HistoryStoreError/unreachable(url:reason:)``
    /// when the database cannot be reached within `connectTimeout`.
    public static func connect(
        url: String, logger: Logger, connectTimeout: Duration = .seconds(5)
    ) async throws -> PostgresDatabase {
        let target = try Target(url: url)
        let displayURL = Self.masked(url)
        // One direct connection first: it fails at once, with the reason
        // (refused, unknown database, bad password), where the pool would
        // retry for a minute; the migrations run on it.
        do {
            let direct = try target.directConfiguration(connectTimeout: connectTimeout)
            let connection = try await PostgresConnection.connect(configuration: direct, id: 0, logger: logger)
            do {
                try await PostgresSchema.migrate(connection, logger: logger)
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            throw HistoryStoreError.unreachable(url: displayURL, reason: Self.describe(error))
        }
        var configuration = PostgresClient.Configuration(
            host: target.host, port: target.port, username: target.user, password: target.password,
            database: target.database, tls: target.poolTLS)
        configuration.options.connectTimeout = connectTimeout
        return PostgresDatabase(
            configuration: configuration, target: target, connectTimeout: connectTimeout, displayURL: displayURL,
            logger: logger)
    }

    private init(
        configuration: PostgresClient.Configuration, target: Target, connectTimeout: Duration, displayURL: String,
        logger: Logger
    ) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.target = target
        self.connectTimeout = connectTimeout
        self.logger = logger
        self.displayURL = displayURL
        running = Task { await client.run() }
    }

    /// Stops the pool; queries after this fail.
    public func close() {
        running.cancel()
    }

    deinit {
        running.cancel()
    }

    /// The schema versions this build knows, oldest first.
    public static var schemaVersions: [Int] { PostgresSchema.migrations.map(\.version) }

    /// The schema versions applied to the database, oldest first.
    public func appliedMigrations() async throws -> [Int] {
        var versions: [Int] = []
        for try await version in try await client.query(
            "SELECT version FROM vroom_migrations ORDER BY version", logger: logger
        ).decode(Int.self) {
            versions.append(version)
        }
        return versions
    }

    /// A `postgres://` (or `postgresql://`) URL, read.
    /// `?sslmode=disable|prefer|require` picks TLS (default `prefer`, as libpq).
    struct Target: Sendable {
        var host: String
        var port: Int
        var user: String
        var password: String?
        var database: String
        var sslmode: String

        init(url: String) throws {
            guard let parts = URLComponents(string: url), let scheme = parts.scheme,
                  ["postgres", "postgresql"].contains(scheme.lowercased())
            else {
                throw HistoryStoreError.badDatabaseURL("'\(masked(url))' is not a postgres:// URL")
            }
            guard let host = parts.host, !host.isEmpty else {
                throw HistoryStoreError.badDatabaseURL("'\(masked(url))' names no host")
            }
            guard let user = parts.user, !user.isEmpty else {
                throw HistoryStoreError.badDatabaseURL("'\(masked(url))' names no user")
            }
            let name = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
            guard !name.isEmpty, !name.contains("/") else {
                throw HistoryStoreError.badDatabaseURL("'\(masked(url))' names no database (…/dbname)")
            }
            sslmode = parts.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
            guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslmode) else {
                throw HistoryStoreError.badDatabaseURL("sslmode '\(sslmode)' is not disable, prefer or require")
            }
            self.host = host
            port = parts.port ?? 5432
            self.user = user.removingPercentEncoding ?? user
            password = parts.password?.removingPercentEncoding
            database = name.removingPercentEncoding ?? name
        }

        var poolTLS: PostgresClient.Configuration.TLS {
            switch sslmode {
            case "disable": .disable
            case "require", "verify-ca", "verify-full": .require(.makeClientConfiguration())
            default: .prefer(.makeClientConfiguration())
            }
        }

        var directTLS: PostgresConnection.Configuration.TLS {
            get throws {
                switch sslmode {
                case "disable": .disable
                case "require", "verify-ca", "verify-full": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            }
        }

        /// One connection of its own (not the pool's): migrations, LISTEN.
        func directConfiguration(connectTimeout: Duration) throws -> PostgresConnection.Configuration {
            var options = PostgresConnection.Configuration.Options()
            options.connectTimeout = .nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000)
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: try directTLS)
            configuration.options = options
            return configuration
        }
    }

    /// A database URL with its password masked (a path is returned as it is).
    public static func masked(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "****"
        return parts.string ?? url
    }

    /// One line for a connection failure: the server's message when there is one.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// Whether a failed statement may work when tried again: the connection
    /// failed, not the statement, or the server asked for a retry (a
    /// serialization failure or deadlock, SQLSTATE class 40; resources, 53;
    /// a server shutting down, 57P01-57P03; a connection error, 08). A
    /// transaction's error is judged by the step that failed: its body,
    /// else its commit, else its `BEGIN` (a failed rollback changes
    /// nothing, the server rolls back a broken connection's transaction).
    public static func isTransient(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            guard let failed = transaction.closureError ?? transaction.commitError ?? transaction.beginError else { return true }
            return isTransient(failed)
        }
        guard let error = error as? PSQLError else { return true }
        guard error.code == .server else { return true }
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("40") || state.hasPrefix("53") || state.hasPrefix("08")
            || ["57P01", "57P02", "57P03"].contains(state)
    }
}
