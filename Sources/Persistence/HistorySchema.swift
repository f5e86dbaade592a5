internal import GRDB

/// The history's tables, created and upgraded by GRDB's `DatabaseMigrator`:
/// each migration runs once per database file (GRDB records applied ones in
/// `grdb_migrations`), so opening a file again is a no-op. New columns go in
/// NEW migrations; never edit a shipped one.
///
/// No foreign keys: the server may write a participant before its room's
/// row lands (events are saved in order, but a failed write must not make
/// later ones fail too), and history is never deleted row by row.
enum HistorySchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rooms, participants, published tracks") { db in
            try db.execute(sql: """
                CREATE TABLE room (
                    sid TEXT PRIMARY KEY NOT NULL,
                    unique_name TEXT NOT NULL,
                    status TEXT NOT NULL,
                    type TEXT NOT NULL,
                    max_participants INTEGER NOT NULL,
                    empty_room_timeout INTEGER NOT NULL,
                    unused_room_timeout INTEGER NOT NULL,
                    status_callback TEXT,
                    status_callback_method TEXT NOT NULL,
                    date_created INTEGER NOT NULL,
                    date_updated INTEGER NOT NULL,
                    end_time INTEGER,
                    duration INTEGER
                );
                CREATE INDEX room_by_unique_name ON room(unique_name, date_created);
                CREATE INDEX room_by_status ON room(status, date_created);
                CREATE INDEX room_by_date_created ON room(date_created);

                CREATE TABLE participant (
                    sid TEXT PRIMARY KEY NOT NULL,
                    room_sid TEXT NOT NULL,
                    identity TEXT NOT NULL,
                    status TEXT NOT NULL,
                    date_created INTEGER NOT NULL,
                    date_updated INTEGER NOT NULL,
                    start_time INTEGER NOT NULL,
                    end_time INTEGER,
                    duration INTEGER
                );
                CREATE INDEX participant_by_room ON participant(room_sid, date_created);
                CREATE INDEX participant_by_identity ON participant(room_sid, identity);
                CREATE INDEX participant_by_status ON participant(status);

                CREATE TABLE published_track (
                    sid TEXT PRIMARY KEY NOT NULL,
                    participant_sid TEXT NOT NULL,
                    room_sid TEXT NOT NULL,
                    name TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    enabled INTEGER NOT NULL,
                    date_created INTEGER NOT NULL,
                    date_updated INTEGER NOT NULL
                );
                CREATE INDEX published_track_by_participant ON published_track(participant_sid, date_created);
                """)
        }
        // Persistence stores Rooms' record types as they are (issue 11): the
        // fields the v1 rows lacked. Rows written before read a nil name and
        // end reason, and `publisher_enabled` NULL reads as `enabled`.
        migrator.registerMigration("v2: every field of Rooms' records") { db in
            try db.execute(sql: """
                ALTER TABLE participant ADD COLUMN name TEXT;
                ALTER TABLE participant ADD COLUMN end_reason TEXT;
                ALTER TABLE published_track ADD COLUMN publisher_enabled INTEGER;
                ALTER TABLE published_track ADD COLUMN mid TEXT NOT NULL DEFAULT '';
                """)
        }
        // Each room's next status-callback `SequenceNumber`, written with
        // the records of the batch that numbered it: a restart ends the
        // rooms it interrupted with callbacks numbered on from there
        // (PROTOCOL.md section 6). The row goes with the room's `room-ended`.
        migrator.registerMigration("v3: webhook sequence numbers") { db in
            try db.execute(sql: """
                CREATE TABLE webhook_sequence (
                    room_sid TEXT PRIMARY KEY NOT NULL,
                    next_number INTEGER NOT NULL
                );
                """)
        }
        return migrator
    }
}
