/// Why the history could not be read or written. The databases' own errors
/// (SQLite: disk full, locked, corrupt file; PostgreSQL: the server's
/// messages) are passed through as GRDB and postgres-nio throw them.
public enum HistoryStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stored row holds a value the record type does not know (a status or
    /// kind written by a newer Vroom, or a hand-edited file).
    case unreadableRow(table: String, sid: String, column: String, value: String)
    /// `--db` is neither a file path nor a `postgres://` URL Vroom can read.
    case badDatabaseURL(String)
    /// The PostgreSQL database could not be reached or refused us at start.
    case unreachable(url: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableRow(let table, let sid, let column, let value):
            "\(table) \(sid): column \(column) holds '\(value)', which this version does not know"
        case .badDatabaseURL(let reason): "bad database URL: \(reason)"
        case .unreachable(let url, let reason): "cannot use the database at \(url): \(reason)"
        }
    }
}
