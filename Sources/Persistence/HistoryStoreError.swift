/// Why the history could not be read or written. SQLite's own errors
/// (disk full, locked, corrupt file) are passed through as GRDB throws them.
public enum HistoryStoreError: Error, Sendable, Equatable {
    /// A stored row holds a value the record type does not know (a status or
    /// kind written by a newer Vroom, or a hand-edited file).
    case unreadableRow(table: String, sid: String, column: String, value: String)
}
