import Foundation
internal import GRDB
import Rooms
import Synchronization

/// Room, participant and publication history in SQLite, the store of one
/// node alone (PROTOCOL.md section 6): completed rooms stay readable through REST after they end
/// and after a restart, and rooms that were in progress when the server
/// stopped end `failed` after it, with their status callbacks
/// (``interruptedRooms()``, ``markInterrupted(now:)``).
///
/// Concurrency: `Sendable` because it holds only a GRDB `DatabaseQueue`
/// (in memory) or `DatabasePool` (a file), which are `Sendable` and
/// serialize writes themselves. Every read and write is `async`: GRDB runs
/// it on its own serial dispatch queue and the caller suspends, so no
/// cooperative thread, NIO event loop or media thread ever waits on the
/// disk. The server calls it from actors (room and REST control paths),
/// never from a media worker thread; a media worker reports events to the
/// control path, which writes them here.
///
/// A file database uses WAL (GRDB's `DatabasePool`): REST reads run beside
/// a write instead of waiting for it.
///
/// It stores Rooms' own record types as they are (DESIGN.md: one type per
/// concept). The room owner hands it its record events with
/// ``record(_:completion:)``, which only enqueues; every read first waits
/// for the writes enqueued before it, so a REST read right after a room
/// operation sees that operation's records (the room service keeps only
/// what is live, and REST reads everything else here).
public final class SQLiteHistoryStore: HistoryStore {
    let writer: any DatabaseWriter
    /// Batches given to ``record(_:completion:)`` not yet written.
    private let pendingBatches = Atomic<Int>(0)

    /// At most this many batches wait for the disk: 100k batches are minutes
    /// of a busy node's events (a join is one batch of a few records); past
    /// that a stalled disk must not grow memory without bound, and new
    /// batches are refused.
    public static let maxPendingBatches = 100_000

    /// The path given to ``init(path:)`` (`:memory:` for a private
    /// in-memory database, used by tests).
    public let path: String

    /// Opens (creating if needed) the database at `path` and brings its
    /// schema up to date. Opening the same file again, or twice in a row, is
    /// fine: migrations already applied are skipped. `:memory:` gives a
    /// fresh database that lives as long as this object.
    public init(path: String) throws {
        self.path = path
        if path == ":memory:" {
            writer = try DatabaseQueue()
        } else {
            writer = try DatabasePool(path: path)
        }
        try HistorySchema.migrator.migrate(writer)
    }

    // MARK: - Room events

    /// Enqueues the history records among `events` (`roomRecord`,
    /// `participantRecord`, `publishedTrackRecord`, `publishedTrackRemoved`)
    /// and the count of their status callbacks (each room's next
    /// `SequenceNumber`, for a restart; the rest is not history), and
    /// returns at once: it never waits for the
    /// disk, so the room owner may call it on its own actor. They are
    /// written in order, one transaction per call; `completion` gets nil or
    /// the error that rolled the batch back. Returns false, writing nothing,
    /// when ``maxPendingBatches`` are already waiting.
    @discardableResult
    public func record(_ events: [RoomEvent], completion: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
        let writes = events.filter { $0.isHistory || $0.isStatusCallback }
        guard !writes.isEmpty else {
            completion(nil)
            return true
        }
        guard pendingBatches.add(1, ordering: .relaxed).newValue <= Self.maxPendingBatches else {
            pendingBatches.subtract(1, ordering: .relaxed)
            return false
        }
        writer.asyncWriteWithoutTransaction { [self] db in
            defer { pendingBatches.subtract(1, ordering: .relaxed) }
            do {
                try db.inTransaction {
                    for event in writes { try Self.apply(event, db) }
                    return .commit
                }
                completion(nil)
            } catch {
                completion(error)
            }
        }
        return true
    }

    /// Waits until every batch enqueued before this call is written (and
    /// its completion called). Reads call it first (GRDB's writer runs its
    /// work in the order it was enqueued, so an empty write queued now runs
    /// after them); so does a stopping server, whose callbacks go to the
    /// outbox in those completions.
    public func caughtUp() async throws {
        try await writer.writeWithoutTransaction { _ in }
    }

    private static func apply(_ event: RoomEvent, _ db: Database) throws {
        switch event {
        case .roomRecord(let room): try save(room: room, db)
        case .participantRecord(let participant): try save(participant: participant, db)
        case .publishedTrackRecord(let track): try save(track: track, db)
        case .publishedTrackRemoved(_, _, let track): try removeTrack(sid: track, db)
        case .statusCallback(let callback): try count(callback, db)
        default: break
        }
    }

    /// Keeps the room's next `SequenceNumber` as the in-memory outbox
    /// numbers its callbacks: one each, from 0. `room-ended`, the room's
    /// last, drops the row.
    private static func count(_ callback: StatusCallback, _ db: Database) throws {
        if callback.event == .roomEnded {
            try db.execute(sql: "DELETE FROM webhook_sequence WHERE room_sid = ?", arguments: [callback.roomSID.rawValue])
        } else {
            try db.execute(
                sql: """
                    INSERT INTO webhook_sequence (room_sid, next_number) VALUES (?, 1)
                    ON CONFLICT(room_sid) DO UPDATE SET next_number = next_number + 1
                    """,
                arguments: [callback.roomSID.rawValue])
        }
    }

    // MARK: - Writes (upserts by SID)

    /// Inserts the room, or replaces every field of the stored one with the
    /// same SID.
    public func save(room: RoomRecord) async throws {
        try await writer.write { db in try Self.save(room: room, db) }
    }

    private static func save(room: RoomRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO room (sid, unique_name, status, type, max_participants,
                    empty_room_timeout, unused_room_timeout, status_callback,
                    status_callback_method, date_created, date_updated, end_time, duration)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(sid) DO UPDATE SET
                    unique_name = excluded.unique_name, status = excluded.status,
                    type = excluded.type, max_participants = excluded.max_participants,
                    empty_room_timeout = excluded.empty_room_timeout,
                    unused_room_timeout = excluded.unused_room_timeout,
                    status_callback = excluded.status_callback,
                    status_callback_method = excluded.status_callback_method,
                    date_created = excluded.date_created, date_updated = excluded.date_updated,
                    end_time = excluded.end_time, duration = excluded.duration
                """,
            arguments: [
                // `type` is always `group` (Twilio's only current room type).
                room.sid.rawValue, room.uniqueName, room.status.rawValue, "group", room.maxParticipants,
                room.emptyRoomTimeout, room.unusedRoomTimeout, room.statusCallback,
                room.statusCallbackMethod.rawValue, StoredDate.seconds(room.dateCreated),
                StoredDate.seconds(room.dateUpdated), room.endTime.map(StoredDate.seconds),
                room.duration,
            ])
    }

    /// Inserts the participant, or replaces every field of the stored one
    /// with the same SID.
    public func save(participant: ParticipantRecord) async throws {
        try await writer.write { db in try Self.save(participant: participant, db) }
    }

    private static func save(participant: ParticipantRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO participant (sid, room_sid, identity, name, status, date_created,
                    date_updated, start_time, end_time, duration, end_reason)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(sid) DO UPDATE SET
                    room_sid = excluded.room_sid, identity = excluded.identity, name = excluded.name,
                    status = excluded.status, date_created = excluded.date_created,
                    date_updated = excluded.date_updated, start_time = excluded.start_time,
                    end_time = excluded.end_time, duration = excluded.duration,
                    end_reason = excluded.end_reason
                """,
            arguments: [
                participant.sid.rawValue, participant.roomSID.rawValue, participant.identity, participant.name,
                participant.status.rawValue, StoredDate.seconds(participant.dateCreated),
                StoredDate.seconds(participant.dateUpdated), StoredDate.seconds(participant.startTime),
                participant.endTime.map(StoredDate.seconds), participant.duration,
                participant.endReason?.rawValue,
            ])
    }

    /// Inserts the publication, or replaces every field of the stored one
    /// with the same SID (e.g. `enabled` after a track-disabled).
    public func save(track: PublishedTrackRecord) async throws {
        try await writer.write { db in try Self.save(track: track, db) }
    }

    private static func save(track: PublishedTrackRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO published_track (sid, participant_sid, room_sid, name, kind,
                    enabled, publisher_enabled, mid, date_created, date_updated)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(sid) DO UPDATE SET
                    participant_sid = excluded.participant_sid, room_sid = excluded.room_sid,
                    name = excluded.name, kind = excluded.kind, enabled = excluded.enabled,
                    publisher_enabled = excluded.publisher_enabled, mid = excluded.mid,
                    date_created = excluded.date_created, date_updated = excluded.date_updated
                """,
            arguments: [
                track.sid.rawValue, track.participantSID.rawValue, track.roomSID.rawValue, track.name,
                track.kind.rawValue, track.enabled, track.publisherEnabled, track.mid,
                StoredDate.seconds(track.dateCreated), StoredDate.seconds(track.dateUpdated),
            ])
    }

    /// Forgets an unpublished track: Twilio's PublishedTracks list shows
    /// current publications only. Returns whether a row was removed.
    @discardableResult
    public func removeTrack(sid: TrackSID) async throws -> Bool {
        try await writer.write { db in try Self.removeTrack(sid: sid, db) }
    }

    @discardableResult
    private static func removeTrack(sid: TrackSID, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM published_track WHERE sid = ?", arguments: [sid.rawValue])
        return db.changesCount > 0
    }

    // MARK: - Rooms

    /// The room with this SID, in any status.
    public func room(sid: String) async throws -> RoomRecord? {
        try await caughtUp()
        return try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM room WHERE sid = ?", arguments: [sid])
                .map(RoomRecord.init(row:))
        }
    }

    /// The room a unique name addresses (PROTOCOL.md section 6): the
    /// in-progress one, else the most recently created ended one. Ended
    /// means `completed` or `failed`: a room cut short by a restart is still
    /// history its name should find (a decision; PROTOCOL.md says
    /// "completed" without mentioning `failed`). Rooms of one name never
    /// overlap in time, so the most recently created is also the most
    /// recently ended.
    public func latestRoom(uniqueName: String) async throws -> RoomRecord? {
        try await caughtUp()
        return try await writer.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM room WHERE unique_name = ?
                    ORDER BY (status = 'in-progress') DESC, date_created DESC, rowid DESC
                    LIMIT 1
                    """,
                arguments: [uniqueName]
            ).map(RoomRecord.init(row:))
        }
    }

    /// Rooms newest first (by `date_created`, then by insertion), as
    /// Twilio lists them. `createdAfter` is inclusive and `createdBefore`
    /// exclusive, as Twilio's `DateCreatedAfter` ("on or after") and
    /// `DateCreatedBefore` ("before"). `page` counts from 0; `pageSize` is
    /// clamped to 1...1000. A page past the end is empty.
    public func roomPage(
        status: RoomStatus?, uniqueName: String?, createdAfter: Date?, createdBefore: Date?, page: Int, pageSize: Int
    ) async throws -> Page<RoomRecord> {
        var query = FilteredQuery()
        query.add("status = ?", status?.rawValue)
        query.add("unique_name = ?", uniqueName)
        query.add("date_created >= ?", createdAfter.map(StoredDate.seconds))
        query.add("date_created < ?", createdBefore.map(StoredDate.seconds))
        let (page, pageSize) = Self.clamp(page: page, pageSize: pageSize)
        let sql = "SELECT * FROM room \(query.whereClause) ORDER BY date_created DESC, rowid DESC"
        let arguments = query.arguments
        try await caughtUp()
        return try await writer.read { db in
            try Self.fetchPage(db, sql: sql, arguments: arguments, page: page, pageSize: pageSize,
                               decode: RoomRecord.init(row:))
        }
    }

    // MARK: - Participants

    /// A room's participants in the order they joined (oldest first, a
    /// decision: Twilio does not document its order). Dates and paging as
    /// in ``roomPage(status:uniqueName:createdAfter:createdBefore:page:pageSize:)``.
    /// The REST layer applies Twilio's default `Status=connected` for an
    /// in-progress room; this method applies only the filters given.
    public func participantPage(
        roomSID: RoomSID, status: ParticipantStatus?, identity: String?, createdAfter: Date?, createdBefore: Date?,
        page: Int, pageSize: Int
    ) async throws -> Page<ParticipantRecord> {
        var query = FilteredQuery()
        query.add("room_sid = ?", roomSID.rawValue)
        query.add("status = ?", status?.rawValue)
        query.add("identity = ?", identity)
        query.add("date_created >= ?", createdAfter.map(StoredDate.seconds))
        query.add("date_created < ?", createdBefore.map(StoredDate.seconds))
        let (page, pageSize) = Self.clamp(page: page, pageSize: pageSize)
        let sql = "SELECT * FROM participant \(query.whereClause) ORDER BY date_created ASC, rowid ASC"
        let arguments = query.arguments
        try await caughtUp()
        return try await writer.read { db in
            try Self.fetchPage(db, sql: sql, arguments: arguments, page: page, pageSize: pageSize,
                               decode: ParticipantRecord.init(row:))
        }
    }

    /// The participant `{ParticipantSid}` addresses in a room: the one with
    /// this SID, else by identity its current session (connected or
    /// reconnecting), else its most recent one.
    public func participant(roomSID: RoomSID, sidOrIdentity: String) async throws -> ParticipantRecord? {
        try await caughtUp()
        let roomSid = roomSID.rawValue
        return try await writer.read { db in
            if let row = try Row.fetchOne(
                db, sql: "SELECT * FROM participant WHERE room_sid = ? AND sid = ?",
                arguments: [roomSid, sidOrIdentity])
            {
                return try ParticipantRecord(row: row)
            }
            return try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM participant WHERE room_sid = ? AND identity = ?
                    ORDER BY (status != 'disconnected') DESC, date_created DESC, rowid DESC
                    LIMIT 1
                    """,
                arguments: [roomSid, sidOrIdentity]
            ).map(ParticipantRecord.init(row:))
        }
    }

    // MARK: - Published tracks

    /// A participant's publications in the order they were published.
    public func tracks(participantSID: ParticipantSID) async throws -> [PublishedTrackRecord] {
        try await caughtUp()
        return try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM published_track WHERE participant_sid = ? ORDER BY date_created, rowid",
                arguments: [participantSID.rawValue]
            ).map(PublishedTrackRecord.init(row:))
        }
    }

    /// One publication by SID.
    public func track(sid: TrackSID) async throws -> PublishedTrackRecord? {
        try await caughtUp()
        return try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM published_track WHERE sid = ?", arguments: [sid.rawValue])
                .map(PublishedTrackRecord.init(row:))
        }
    }

    // MARK: - Helpers

    /// Fetches one page plus one row: the extra row tells whether a next
    /// page exists without a second COUNT query.
    private static func fetchPage<Element>(
        _ db: Database, sql: String, arguments: StatementArguments, page: Int, pageSize: Int,
        decode: (Row) throws -> Element
    ) throws -> Page<Element> {
        // Page * size cannot overflow: page is an Int from a query string,
        // but past 2^53 rows there is nothing to return anyway.
        let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
        if overflow {
            return Page(items: [], page: page, pageSize: pageSize, hasNextPage: false)
        }
        var rows = try Row.fetchAll(
            db, sql: sql + " LIMIT ? OFFSET ?", arguments: arguments + [pageSize + 1, offset])
        let hasNext = rows.count > pageSize
        if hasNext { rows.removeLast() }
        return Page(items: try rows.map(decode), page: page, pageSize: pageSize, hasNextPage: hasNext)
    }
}

/// A WHERE clause built from the filters that are present.
private struct FilteredQuery {
    private var conditions: [String] = []
    private(set) var arguments = StatementArguments()

    mutating func add(_ condition: String, _ value: (some DatabaseValueConvertible)?) {
        guard let value else { return }
        conditions.append(condition)
        arguments += [value]
    }

    var whereClause: String {
        conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }
}

// MARK: - Row decoding

extension RoomRecord {
    init(row: Row) throws {
        let sid: String = try row.decode(forColumn: "sid")
        self.init(
            sid: RoomSID(unchecked: sid),
            uniqueName: try row.decode(forColumn: "unique_name"),
            status: try decodeEnum(row, "status", table: "room", sid: sid),
            maxParticipants: try row.decode(forColumn: "max_participants"),
            emptyRoomTimeout: try row.decode(forColumn: "empty_room_timeout"),
            unusedRoomTimeout: try row.decode(forColumn: "unused_room_timeout"),
            statusCallback: try row.decode(forColumn: "status_callback"),
            statusCallbackMethod: try decodeEnum(row, "status_callback_method", table: "room", sid: sid),
            dateCreated: StoredDate.date(try row.decode(forColumn: "date_created")),
            dateUpdated: StoredDate.date(try row.decode(forColumn: "date_updated")),
            endTime: (try row.decode(Int?.self, forColumn: "end_time")).map(StoredDate.date),
            duration: try row.decode(forColumn: "duration"))
    }
}

extension ParticipantRecord {
    init(row: Row) throws {
        let sid: String = try row.decode(forColumn: "sid")
        let endReason: String? = try row.decode(forColumn: "end_reason")
        self.init(
            sid: ParticipantSID(unchecked: sid),
            roomSID: RoomSID(unchecked: try row.decode(forColumn: "room_sid")),
            identity: try row.decode(forColumn: "identity"),
            name: try row.decode(forColumn: "name"),
            status: try decodeEnum(row, "status", table: "participant", sid: sid),
            dateCreated: StoredDate.date(try row.decode(forColumn: "date_created")),
            dateUpdated: StoredDate.date(try row.decode(forColumn: "date_updated")),
            startTime: StoredDate.date(try row.decode(forColumn: "start_time")),
            endTime: (try row.decode(Int?.self, forColumn: "end_time")).map(StoredDate.date),
            duration: try row.decode(forColumn: "duration"),
            endReason: endReason == nil ? nil : try decodeEnum(row, "end_reason", table: "participant", sid: sid))
    }
}

extension PublishedTrackRecord {
    init(row: Row) throws {
        let sid: String = try row.decode(forColumn: "sid")
        let enabled: Bool = try row.decode(forColumn: "enabled")
        self.init(
            sid: TrackSID(unchecked: sid),
            participantSID: ParticipantSID(unchecked: try row.decode(forColumn: "participant_sid")),
            roomSID: RoomSID(unchecked: try row.decode(forColumn: "room_sid")),
            name: try row.decode(forColumn: "name"),
            kind: try decodeEnum(row, "kind", table: "published_track", sid: sid),
            enabled: enabled,
            publisherEnabled: try row.decode(Bool?.self, forColumn: "publisher_enabled") ?? enabled,
            mid: try row.decode(forColumn: "mid"),
            dateCreated: StoredDate.date(try row.decode(forColumn: "date_created")),
            dateUpdated: StoredDate.date(try row.decode(forColumn: "date_updated")))
    }
}

extension RoomEvent {
    /// A record for the history (the other events are for sessions,
    /// webhooks and the media layer).
    var isHistory: Bool {
        switch self {
        case .roomRecord, .participantRecord, .publishedTrackRecord, .publishedTrackRemoved: true
        default: false
        }
    }

    var isStatusCallback: Bool {
        if case .statusCallback = self { true } else { false }
    }
}

private func decodeEnum<E: RawRepresentable<String>>(
    _ row: Row, _ column: String, table: String, sid: String
) throws -> E {
    let raw: String = try row.decode(forColumn: column)
    guard let value = E(rawValue: raw) else {
        throw HistoryStoreError.unreadableRow(table: table, sid: sid, column: column, value: raw)
    }
    return value
}
