import Logging
import Persistence
import Testing
import VroomTesting

/// The two history stores the shared test suite runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A new, empty store: SQLite in memory, or a fresh database of the test
    /// process's private PostgreSQL server.
    func makeStore() async throws -> any HistoryStore {
        switch self {
        case .sqlite: try SQLiteHistoryStore(path: ":memory:")
        case .postgres: PostgresHistoryStore(database: try await Self.newDatabase())
        }
    }

    static func newDatabase() async throws -> PostgresDatabase {
        let url = try PostgresServer.shared().createDatabase()
        return try await PostgresDatabase.connect(url: url, logger: Logger(label: "test.postgres"))
    }
}
