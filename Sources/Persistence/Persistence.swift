// Persistence: room and participant history (SQLite by default, PostgreSQL
// for a cluster). Filled by the control-plane issue.
