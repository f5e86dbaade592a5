import Foundation
import Logging
import PostgresNIO
import Rooms
import Synchronization

/// Room, participant and publication history in the cluster's PostgreSQL
/// database (PROTOCOL.md section 8): every node writes its rooms' records
/// here and reads every room's, so REST answers the same on any node.
///
/// Writes given to ``record(_:completion:)`` go through one
/// ``OrderedWriteQueue``: in order, one transaction per batch, and tried
/// again while the database is away, so the store catches up after an
/// outage instead of losing records. Reads wait for the writes enqueued
/// before them while those make progress, for at most ``catchUpLimit``.
/// A batch may carry the status callbacks that report its records
/// (``record(_:callbacks:for:completion:)``): both commit together.
///
/// `Sendable`: it holds the `Sendable` database and write queue.
public final class PostgresHistoryStore: HistoryStore {
    public let database: PostgresDatabase
    private let queue: OrderedWriteQueue<Batch>
    private let completions: CompletionTable

    /// As ``SQLiteHistoryStore/maxPendingBatches``: minutes of a busy node's
    /// events, then new batches are refused rather than growing memory.
    public static let maxPendingBatches = 100_000

    /// How long a read waits for earlier writes that are making progress
    /// before it reads what is there (it does not wait at all while writes
    /// fail).
    public static let catchUpLimit = Duration.seconds(30)

    public init(database: PostgresDatabase) {
        self.database = database
        let completions = CompletionTable()
        self.completions = completions
        queue = OrderedWriteQueue(
            maxPending: Self.maxPendingBatches,
            write: { batch in
                try await database.client.withTransaction(logger: database.logger) { connection in
                    for event in batch.events { try await Self.apply(event, connection, database.logger) }
                    for entry in batch.callbacks {
                        try await PostgresWebhookStore.write(entry, nodeID: batch.nodeID, on: connection, logger: database.logger)
                    }
                }
            },
            isTransient: PostgresDatabase.isTransient,
            finished: { _, error in completions.finish(error) })
    }

    /// Batches enqueued and not yet written (waiting for the database).
    public var pendingBatches: Int { queue.pending }

    // MARK: - Room events

    /// One call's writes: the history records among its events, and the
    /// status callbacks that report them, for the outbox of node `nodeID`.
    private struct Batch: Sendable {
        var events: [RoomEvent]
        var callbacks: [PostgresWebhookStore.OutboxEntry] = []
        var nodeID = ""
    }

    @discardableResult
    public func record(_ events: [RoomEvent], completion: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
        enqueue(Batch(events: events), completion: completion)
    }

    /// Enqueues the history records among `events` and `callbacks`, rows of
    /// `outbox`, as one batch: one transaction writes both. A node that
    /// dies leaves a track's record and its `track-added` both written or
    /// neither, so the node that ends its room never reports the end of a
    /// track whose start no receiver was told about. Returns false, writing
    /// nothing, when too many batches already wait.
    @discardableResult
    public func record(
        _ events: [RoomEvent], callbacks: [PostgresWebhookStore.OutboxEntry], for outbox: PostgresWebhookStore,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) -> Bool {
        enqueue(Batch(events: events, callbacks: callbacks, nodeID: outbox.nodeID), completion: completion)
    }

    private func enqueue(_ batch: Batch, completion: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
        var batch = batch
        batch.events.removeAll { !$0.isHistory && !$0.isSession }
        guard !batch.events.isEmpty || !batch.callbacks.isEmpty else {
            completion(nil)
            return true
        }
        return completions.enqueue(completion) { queue.enqueue(batch) }
    }

    public func caughtUp() async throws {
        await queue.caughtUp(within: Self.catchUpLimit)
    }

    /// Waits until every batch enqueued so far is written, or `limit` passed.
    public func caughtUp(within limit: Duration) async {
        await queue.caughtUp(within: limit)
    }

    /// Waits for every enqueued batch, then stops the pool.
    public func close() async {
        await queue.finish()
        database.close()
    }

    private static func apply(_ event: RoomEvent, _ connection: PostgresConnection, _ logger: Logger) async throws {
        switch event {
        case .roomRecord(let room): try await connection.query(upsert(room), logger: logger)
        case .participantRecord(let participant):
            try await connection.query(upsert(participant), logger: logger)
            if participant.status == .disconnected {
                try await connection.query(
                    "DELETE FROM session WHERE participant_sid = \(participant.sid.rawValue)", logger: logger)
            }
        case .session(let session): try await connection.query(try upsert(session), logger: logger)
        case .publishedTrackRecord(let track): try await connection.query(upsert(track), logger: logger)
        case .publishedTrackRemoved(_, _, let track):
            try await connection.query("DELETE FROM published_track WHERE sid = \(track.rawValue)", logger: logger)
        default: break
        }
    }

    // MARK: - Writes (upserts by SID)

    public func save(room: RoomRecord) async throws {
        try await database.client.query(Self.upsert(room), logger: database.logger)
    }

    public func save(participant: ParticipantRecord) async throws {
        try await database.client.query(Self.upsert(participant), logger: database.logger)
    }

    public func save(track: PublishedTrackRecord) async throws {
        try await database.client.query(Self.upsert(track), logger: database.logger)
    }

    @discardableResult
    public func removeTrack(sid: TrackSID) async throws -> Bool {
        let rows = try await database.client.query(
            "DELETE FROM published_track WHERE sid = \(sid.rawValue) RETURNING sid", logger: database.logger)
        return try await rows.collect().count > 0
    }

    private static func upsert(_ room: RoomRecord) -> PostgresQuery {
        // `type` is always `group` (Twilio's only current room type).
        """
        INSERT INTO room (sid, unique_name, status, type, max_participants, empty_room_timeout,
            unused_room_timeout, status_callback, status_callback_method, date_created, date_updated,
            end_time, duration)
        VALUES (\(room.sid.rawValue), \(room.uniqueName), \(room.status.rawValue), 'group', \(room.maxParticipants),
            \(room.emptyRoomTimeout), \(room.unusedRoomTimeout), \(room.statusCallback),
            \(room.statusCallbackMethod.rawValue), \(StoredDate.seconds(room.dateCreated)),
            \(StoredDate.seconds(room.dateUpdated)), \(room.endTime.map(StoredDate.seconds)), \(room.duration))
        ON CONFLICT (sid) DO UPDATE SET
            unique_name = excluded.unique_name, status = excluded.status, type = excluded.type,
            max_participants = excluded.max_participants, empty_room_timeout = excluded.empty_room_timeout,
            unused_room_timeout = excluded.unused_room_timeout, status_callback = excluded.status_callback,
            status_callback_method = excluded.status_callback_method, date_created = excluded.date_created,
            date_updated = excluded.date_updated, end_time = excluded.end_time, duration = excluded.duration
        """
    }

    private static func upsert(_ participant: ParticipantRecord) -> PostgresQuery {
        """
        INSERT INTO participant (sid, room_sid, identity, name, status, date_created, date_updated,
            start_time, end_time, duration, end_reason)
        VALUES (\(participant.sid.rawValue), \(participant.roomSID.rawValue), \(participant.identity),
            \(participant.name), \(participant.status.rawValue), \(StoredDate.seconds(participant.dateCreated)),
            \(StoredDate.seconds(participant.dateUpdated)), \(StoredDate.seconds(participant.startTime)),
            \(participant.endTime.map(StoredDate.seconds)), \(participant.duration), \(participant.endReason?.rawValue))
        ON CONFLICT (sid) DO UPDATE SET
            room_sid = excluded.room_sid, identity = excluded.identity, name = excluded.name,
            status = excluded.status, date_created = excluded.date_created, date_updated = excluded.date_updated,
            start_time = excluded.start_time, end_time = excluded.end_time, duration = excluded.duration,
            end_reason = excluded.end_reason
        """
    }

    private static func upsert(_ track: PublishedTrackRecord) -> PostgresQuery {
        """
        INSERT INTO published_track (sid, participant_sid, room_sid, name, kind, enabled, publisher_enabled,
            mid, date_created, date_updated)
        VALUES (\(track.sid.rawValue), \(track.participantSID.rawValue), \(track.roomSID.rawValue), \(track.name),
            \(track.kind.rawValue), \(track.enabled), \(track.publisherEnabled), \(track.mid),
            \(StoredDate.seconds(track.dateCreated)), \(StoredDate.seconds(track.dateUpdated)))
        ON CONFLICT (sid) DO UPDATE SET
            participant_sid = excluded.participant_sid, room_sid = excluded.room_sid, name = excluded.name,
            kind = excluded.kind, enabled = excluded.enabled, publisher_enabled = excluded.publisher_enabled,
            mid = excluded.mid, date_created = excluded.date_created, date_updated = excluded.date_updated
        """
    }

    // MARK: - Reads

    public func room(sid: String) async throws -> RoomRecord? {
        try await caughtUp()
        return try await fetch("SELECT \(unescaped: Self.roomColumns) FROM room WHERE sid = \(sid)", RoomRecord.init(postgres:)).first
    }

    public func latestRoom(uniqueName: String) async throws -> RoomRecord? {
        try await caughtUp()
        return try await fetch(
            """
            SELECT \(unescaped: Self.roomColumns) FROM room WHERE unique_name = \(uniqueName)
            ORDER BY (status = 'in-progress') DESC, date_created DESC, seq DESC LIMIT 1
            """, RoomRecord.init(postgres:)
        ).first
    }

    public func roomPage(
        status: RoomStatus?, uniqueName: String?, createdAfter: Date?, createdBefore: Date?, page: Int, pageSize: Int
    ) async throws -> Page<RoomRecord> {
        var filter = Filter()
        filter.add("status", "=", status?.rawValue)
        filter.add("unique_name", "=", uniqueName)
        filter.add("date_created", ">=", createdAfter.map(StoredDate.seconds))
        filter.add("date_created", "<", createdBefore.map(StoredDate.seconds))
        try await caughtUp()
        return try await fetchPage(
            "SELECT \(Self.roomColumns) FROM room \(filter.whereClause) ORDER BY date_created DESC, seq DESC",
            filter.binds, page: page, pageSize: pageSize, decode: RoomRecord.init(postgres:))
    }

    public func participantPage(
        roomSID: RoomSID, status: ParticipantStatus?, identity: String?, createdAfter: Date?, createdBefore: Date?,
        page: Int, pageSize: Int
    ) async throws -> Page<ParticipantRecord> {
        var filter = Filter()
        filter.add("room_sid", "=", roomSID.rawValue)
        filter.add("status", "=", status?.rawValue)
        filter.add("identity", "=", identity)
        filter.add("date_created", ">=", createdAfter.map(StoredDate.seconds))
        filter.add("date_created", "<", createdBefore.map(StoredDate.seconds))
        try await caughtUp()
        return try await fetchPage(
            "SELECT \(Self.participantColumns) FROM participant \(filter.whereClause) ORDER BY date_created ASC, seq ASC",
            filter.binds, page: page, pageSize: pageSize, decode: ParticipantRecord.init(postgres:))
    }

    public func participant(roomSID: RoomSID, sidOrIdentity: String) async throws -> ParticipantRecord? {
        try await caughtUp()
        if let bySID = try await fetch(
            """
            SELECT \(unescaped: Self.participantColumns) FROM participant
            WHERE room_sid = \(roomSID.rawValue) AND sid = \(sidOrIdentity)
            """, ParticipantRecord.init(postgres:)
        ).first {
            return bySID
        }
        return try await fetch(
            """
            SELECT \(unescaped: Self.participantColumns) FROM participant
            WHERE room_sid = \(roomSID.rawValue) AND identity = \(sidOrIdentity)
            ORDER BY (status != 'disconnected') DESC, date_created DESC, seq DESC LIMIT 1
            """, ParticipantRecord.init(postgres:)
        ).first
    }

    public func tracks(participantSID: ParticipantSID) async throws -> [PublishedTrackRecord] {
        try await caughtUp()
        return try await fetch(
            """
            SELECT \(unescaped: Self.trackColumns) FROM published_track
            WHERE participant_sid = \(participantSID.rawValue) ORDER BY date_created, seq
            """, PublishedTrackRecord.init(postgres:))
    }

    public func track(sid: TrackSID) async throws -> PublishedTrackRecord? {
        try await caughtUp()
        return try await fetch(
            "SELECT \(unescaped: Self.trackColumns) FROM published_track WHERE sid = \(sid.rawValue)",
            PublishedTrackRecord.init
        ).first
    }

    // MARK: - Helpers

    static let roomColumns = """
        sid, unique_name, status, max_participants, empty_room_timeout, unused_room_timeout, status_callback,
        status_callback_method, date_created, date_updated, end_time, duration
        """
    static let participantColumns = """
        sid, room_sid, identity, name, status, date_created, date_updated, start_time, end_time, duration, end_reason
        """
    static let trackColumns = """
        sid, participant_sid, room_sid, name, kind, enabled, publisher_enabled, mid, date_created, date_updated
        """

    func fetch<Element>(
        _ query: PostgresQuery, _ decode: (PostgresRandomAccessRow) throws -> Element
    ) async throws -> [Element] {
        try await database.client.query(query, logger: database.logger).collect()
            .map { try decode($0.makeRandomAccess()) }
    }

    /// One page plus one row: the extra row tells whether a next page exists.
    private func fetchPage<Element>(
        _ sql: String, _ binds: PostgresBindings, page: Int, pageSize: Int,
        decode: (PostgresRandomAccessRow) throws -> Element
    ) async throws -> Page<Element> {
        let (page, pageSize) = Self.clamp(page: page, pageSize: pageSize)
        let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
        if overflow { return Page(items: [], page: page, pageSize: pageSize, hasNextPage: false) }
        var binds = binds
        binds.append(pageSize + 1)
        binds.append(offset)
        let query = PostgresQuery(unsafeSQL: sql + " LIMIT $\(binds.count - 1) OFFSET $\(binds.count)", binds: binds)
        var items = try await fetch(query, decode)
        let hasNext = items.count > pageSize
        if hasNext { items.removeLast() }
        return Page(items: items, page: page, pageSize: pageSize, hasNextPage: hasNext)
    }

    /// A WHERE clause of the filters that are present, with numbered parameters.
    private struct Filter {
        private var conditions: [String] = []
        private(set) var binds = PostgresBindings()

        mutating func add(_ column: String, _ comparison: String, _ value: String?) {
            guard let value else { return }
            binds.append(value)
            conditions.append("\(column) \(comparison) $\(binds.count)")
        }

        mutating func add(_ column: String, _ comparison: String, _ value: Int?) {
            guard let value else { return }
            binds.append(value)
            conditions.append("\(column) \(comparison) $\(binds.count)")
        }

        var whereClause: String {
            conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        }
    }
}

/// The completions of ``PostgresHistoryStore/record(_:completion:)``, in
/// the order of their batches (the write queue finishes them in that order).
private final class CompletionTable: Sendable {
    private let waiting = Mutex<[@Sendable ((any Error)?) -> Void]>([])

    /// Enqueues `completion` and the batch together, so their orders match.
    func enqueue(_ completion: @escaping @Sendable ((any Error)?) -> Void, _ batch: () -> Bool) -> Bool {
        waiting.withLock { waiting in
            guard batch() else { return false }
            waiting.append(completion)
            return true
        }
    }

    func finish(_ error: (any Error)?) {
        let completion = waiting.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        completion?(error)
    }
}

// MARK: - Row decoding

extension RoomRecord {
    init(postgres row: PostgresRandomAccessRow) throws {
        let sid = try row["sid"].decode(String.self)
        self.init(
            sid: RoomSID(unchecked: sid),
            uniqueName: try row["unique_name"].decode(String.self),
            status: try decodeStored(row, "status", table: "room", sid: sid),
            maxParticipants: try row["max_participants"].decode(Int.self),
            emptyRoomTimeout: try row["empty_room_timeout"].decode(Int.self),
            unusedRoomTimeout: try row["unused_room_timeout"].decode(Int.self),
            statusCallback: try row["status_callback"].decode(String?.self),
            statusCallbackMethod: try decodeStored(row, "status_callback_method", table: "room", sid: sid),
            dateCreated: StoredDate.date(try row["date_created"].decode(Int.self)),
            dateUpdated: StoredDate.date(try row["date_updated"].decode(Int.self)),
            endTime: try row["end_time"].decode(Int?.self).map(StoredDate.date),
            duration: try row["duration"].decode(Int?.self))
    }
}

extension ParticipantRecord {
    init(postgres row: PostgresRandomAccessRow) throws {
        let sid = try row["sid"].decode(String.self)
        let endReason = try row["end_reason"].decode(String?.self)
        self.init(
            sid: ParticipantSID(unchecked: sid),
            roomSID: RoomSID(unchecked: try row["room_sid"].decode(String.self)),
            identity: try row["identity"].decode(String.self),
            name: try row["name"].decode(String?.self),
            status: try decodeStored(row, "status", table: "participant", sid: sid),
            dateCreated: StoredDate.date(try row["date_created"].decode(Int.self)),
            dateUpdated: StoredDate.date(try row["date_updated"].decode(Int.self)),
            startTime: StoredDate.date(try row["start_time"].decode(Int.self)),
            endTime: try row["end_time"].decode(Int?.self).map(StoredDate.date),
            duration: try row["duration"].decode(Int?.self),
            endReason: endReason == nil ? nil : try decodeStored(row, "end_reason", table: "participant", sid: sid))
    }
}

extension PublishedTrackRecord {
    init(postgres row: PostgresRandomAccessRow) throws {
        let sid = try row["sid"].decode(String.self)
        self.init(
            sid: TrackSID(unchecked: sid),
            participantSID: ParticipantSID(unchecked: try row["participant_sid"].decode(String.self)),
            roomSID: RoomSID(unchecked: try row["room_sid"].decode(String.self)),
            name: try row["name"].decode(String.self),
            kind: try decodeStored(row, "kind", table: "published_track", sid: sid),
            enabled: try row["enabled"].decode(Bool.self),
            publisherEnabled: try row["publisher_enabled"].decode(Bool.self),
            mid: try row["mid"].decode(String.self),
            dateCreated: StoredDate.date(try row["date_created"].decode(Int.self)),
            dateUpdated: StoredDate.date(try row["date_updated"].decode(Int.self)))
    }
}

private func decodeStored<E: RawRepresentable<String>>(
    _ row: PostgresRandomAccessRow, _ column: String, table: String, sid: String
) throws -> E {
    let raw = try row[column].decode(String.self)
    guard let value = E(rawValue: raw) else {
        throw HistoryStoreError.unreadableRow(table: table, sid: sid, column: column, value: raw)
    }
    return value
}
