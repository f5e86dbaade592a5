import Foundation
import PostgresNIO
import Rooms

/// The cluster's nodes and which one owns each room (PROTOCOL.md section 8),
/// in the shared PostgreSQL database: each node's row carries its URL,
/// state and load, refreshed by its heartbeat; a room's placement row names
/// its owner. Time is the database's (`now()`), so nodes' clocks need not agree.
///
/// `Sendable`: it holds only the `Sendable` database.
public struct PostgresNodeTable: Sendable {
    public let database: PostgresDatabase

    /// A node silent this long is dead (PROTOCOL.md section 8: 10 s).
    public static let deadAfterSeconds = 10

    /// Whether nodes get ``deadAfterSeconds`` after the database (re)starts
    /// before any is judged dead (always, but in tests that fake silences
    /// on a database they just started).
    let graceAfterDatabaseStart: Bool

    public init(database: PostgresDatabase, graceAfterDatabaseStart: Bool = true) {
        self.database = database
        self.graceAfterDatabaseStart = graceAfterDatabaseStart
    }

    /// A node as the table knows it.
    public struct NodeRow: Sendable, Equatable {
        public var id: String
        public var url: String
        public var state: String
        public var participants: Int
        public var rooms: Int
        public var cpu: Double
        /// Heard from within ``PostgresNodeTable/deadAfterSeconds``.
        public var live: Bool
    }

    /// A node's heartbeat: inserts its row the first time, then updates it.
    public func heartbeat(id: String, url: String, state: String, participants: Int, rooms: Int, cpu: Double) async throws {
        try await database.client.query(
            """
            INSERT INTO node (id, url, state, participants, rooms, cpu)
            VALUES (\(id), \(url), \(state), \(participants), \(rooms), \(cpu))
            ON CONFLICT (id) DO UPDATE SET url = excluded.url, state = excluded.state,
                participants = excluded.participants, rooms = excluded.rooms, cpu = excluded.cpu,
                heartbeat_at = now()
            """, logger: database.logger)
    }

    /// Another node found `id` gone (nothing listens at its URL): it is
    /// dead from now, as if its last heartbeat were ``deadAfterSeconds``
    /// old, without the grace after a database start. Its rooms then move
    /// with the next resume or join; their reconnect window counts from
    /// now. A node that was only restarting its listener heartbeats again
    /// and is live once more.
    public func markDead(id: String) async throws {
        try await database.client.query(
            """
            UPDATE node SET state = 'dead',
                heartbeat_at = LEAST(heartbeat_at, now() - make_interval(secs => \(Self.deadAfterSeconds)))
            WHERE id = \(id)
            """, logger: database.logger)
    }

    /// Every node the table holds, live or not, by ID.
    public func nodes() async throws -> [NodeRow] {
        try await database.client.query(
            """
            SELECT id, url, state, participants, rooms, cpu,
                \(unescaped: live("")) AS live
            FROM node ORDER BY id
            """, logger: database.logger
        ).collect().map(Self.node)
    }

    /// The node that owns the room of this unique name, placing it first when
    /// nobody does, or when its owner is dead: on the least-loaded live
    /// `active` node (load: participants plus placed rooms, then CPU; ties
    /// go to `preferring`, then by ID). One transaction, and the unique name
    /// is the placement table's key, so two nodes never both own a room.
    /// Nil when no live active node exists.
    public func place(uniqueName: String, preferring: String) async throws -> NodeRow? {
        try await database.client.withTransaction(logger: database.logger) { connection in
            let current = try await connection.query(
                """
                SELECT n.id, n.url, n.state, n.participants, n.rooms, n.cpu,
                    \(unescaped: live("n.")) AS live
                FROM room_placement p JOIN node n ON n.id = p.node_id
                WHERE p.unique_name = \(uniqueName) FOR UPDATE OF p
                """, logger: database.logger
            ).collect().map(Self.node).first
            if let current, current.live {
                // The owner places it again for a join of its own: a
                // placement still waiting for its room starts its minute
                // again (`forgetPlacement`).
                if current.id == preferring {
                    try await connection.query(
                        """
                        UPDATE room_placement SET placed_at = now()
                        WHERE unique_name = \(uniqueName) AND node_id = \(preferring) AND room_sid IS NULL
                        """, logger: database.logger)
                }
                return current
            }
            // New placements one at a time: two at once would each count the
            // other's node as it was and could both pick the least loaded.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.placementLock))", logger: database.logger)
            guard let target = try await connection.query(
                """
                SELECT n.id, n.url, n.state, n.participants, n.rooms, n.cpu, TRUE AS live
                FROM node n
                WHERE n.state = 'active' AND \(unescaped: live("n."))
                ORDER BY n.participants + (SELECT count(*) FROM room_placement p WHERE p.node_id = n.id),
                    n.cpu, (n.id = \(preferring)) DESC, n.id
                LIMIT 1
                """, logger: database.logger
            ).collect().map(Self.node).first else { return nil }
            let inserted = try await connection.query(
                """
                INSERT INTO room_placement (unique_name, node_id) VALUES (\(uniqueName), \(target.id))
                ON CONFLICT (unique_name) DO UPDATE SET node_id = excluded.node_id, room_sid = NULL, placed_at = now()
                    WHERE room_placement.node_id NOT IN (
                        SELECT id FROM node WHERE \(unescaped: live("")))
                RETURNING node_id
                """, logger: database.logger
            ).collect()
            if !inserted.isEmpty { return target }
            // Placed by another node since the first read: theirs stands.
            return try await connection.query(
                """
                SELECT n.id, n.url, n.state, n.participants, n.rooms, n.cpu, TRUE AS live
                FROM room_placement p JOIN node n ON n.id = p.node_id WHERE p.unique_name = \(uniqueName)
                """, logger: database.logger
            ).collect().map(Self.node).first
        }
    }

    /// Places the room of this unique name on `nodeID` itself (a REST create
    /// there), unless a live node already owns it. Returns the owner: that
    /// node, or the live one that has it. A placement `nodeID` already
    /// holds with no room yet starts its minute again (`forgetPlacement`).
    public func claim(uniqueName: String, nodeID: String) async throws -> NodeRow? {
        try await database.client.withTransaction(logger: database.logger) { connection in
            try await connection.query(
                """
                INSERT INTO room_placement (unique_name, node_id) VALUES (\(uniqueName), \(nodeID))
                ON CONFLICT (unique_name) DO UPDATE SET node_id = excluded.node_id, placed_at = now(),
                    room_sid = CASE WHEN room_placement.node_id = excluded.node_id THEN room_placement.room_sid END
                    WHERE room_placement.node_id NOT IN (SELECT id FROM node WHERE \(unescaped: live("")))
                        OR (room_placement.node_id = excluded.node_id AND room_placement.room_sid IS NULL)
                """, logger: database.logger)
            return try await connection.query(
                """
                SELECT n.id, n.url, n.state, n.participants, n.rooms, n.cpu, \(unescaped: live("n.")) AS live
                FROM room_placement p JOIN node n ON n.id = p.node_id WHERE p.unique_name = \(uniqueName)
                """, logger: database.logger
            ).collect().map(Self.node).first
        }
    }

    /// Moves the placement of a room `nodeID` owns to the least-loaded other
    /// live `active` node (a drain), in one transaction. Returns that node;
    /// nil when there is none (or `nodeID` does not own the room).
    /// `unused`: only a placement no room was created from yet.
    public func move(uniqueName: String, from nodeID: String, unused: Bool = false) async throws -> NodeRow? {
        try await database.client.withTransaction(logger: database.logger) { connection in
            guard let target = try await connection.query(
                """
                SELECT n.id, n.url, n.state, n.participants, n.rooms, n.cpu, TRUE AS live
                FROM node n
                WHERE n.state = 'active' AND n.id != \(nodeID) AND \(unescaped: live("n."))
                ORDER BY n.participants + (SELECT count(*) FROM room_placement p WHERE p.node_id = n.id), n.cpu, n.id
                LIMIT 1
                """, logger: database.logger
            ).collect().map(Self.node).first else { return nil }
            let moved = try await connection.query(
                """
                UPDATE room_placement SET node_id = \(target.id), placed_at = now()
                WHERE unique_name = \(uniqueName) AND node_id = \(nodeID) AND (\(!unused) OR room_sid IS NULL)
                RETURNING node_id
                """, logger: database.logger
            ).collect()
            return moved.isEmpty ? nil : target
        }
    }

    /// The rooms placed on `nodeID`: unique name, and the SID once the
    /// owner created the room.
    public func placements(on nodeID: String) async throws -> [(uniqueName: String, roomSID: String?)] {
        let rows = try await database.client.query(
            "SELECT unique_name, room_sid FROM room_placement WHERE node_id = \(nodeID) ORDER BY placed_at",
            logger: database.logger)
        var placements: [(uniqueName: String, roomSID: String?)] = []
        for try await (name, sid) in rows.decode((String, String?).self) { placements.append((name, sid)) }
        return placements
    }

    /// Records the SID of the room a placement became (its owner created it).
    public func roomCreated(uniqueName: String, roomSID: String, nodeID: String) async throws {
        try await database.client.query(
            """
            INSERT INTO room_placement (unique_name, node_id, room_sid) VALUES (\(uniqueName), \(nodeID), \(roomSID))
            ON CONFLICT (unique_name) DO UPDATE SET room_sid = excluded.room_sid
                WHERE room_placement.node_id = excluded.node_id
            """, logger: database.logger)
    }

    /// Forgets a placement of `nodeID` placed over `olderThanSeconds` ago
    /// that still names `roomSID` (nil: no room was ever created from it),
    /// when its owner found no room in progress behind it. A room created
    /// meanwhile has changed `room_sid` (or written the row again), so its
    /// placement stays.
    public func forgetPlacement(uniqueName: String, roomSID: String?, nodeID: String, olderThanSeconds: Int) async throws {
        try await database.client.query(
            """
            DELETE FROM room_placement
            WHERE unique_name = \(uniqueName) AND node_id = \(nodeID) AND room_sid IS NOT DISTINCT FROM \(roomSID)
                AND placed_at < now() - make_interval(secs => \(olderThanSeconds))
            """, logger: database.logger)
    }

    /// Forgets the placement of a room that ended on its owner.
    public func roomEnded(uniqueName: String, nodeID: String) async throws {
        try await database.client.query(
            "DELETE FROM room_placement WHERE unique_name = \(uniqueName) AND node_id = \(nodeID)",
            logger: database.logger)
    }

    /// Takes the placements of nodes silent for `graceSeconds` (dead, and
    /// the reconnect window passed without anyone moving the room) for
    /// `nodeID`, which then ends those rooms `failed` through its room
    /// service, so they get the callbacks and records their own node would
    /// have written (`ClusterNode`). A placement stays taken until that
    /// node ends the room: if it dies meanwhile, the next node takes it.
    /// Any node may run it, and two at once take each placement once
    /// (`SKIP LOCKED`). Returns the placements taken.
    public func takeRoomsOfDeadNodes(graceSeconds: Int, for nodeID: String) async throws
        -> [(uniqueName: String, roomSID: String?)]
    {
        let rows = try await database.client.query(
            """
            UPDATE room_placement SET node_id = \(nodeID), placed_at = now() WHERE unique_name IN (
                SELECT p.unique_name FROM room_placement p LEFT JOIN node n ON n.id = p.node_id
                WHERE p.node_id != \(nodeID)
                    AND (n.id IS NULL OR n.heartbeat_at < now() - make_interval(secs => \(graceSeconds)))
                    AND (\(!graceAfterDatabaseStart) OR pg_postmaster_start_time() < now() - make_interval(secs => \(graceSeconds)))
                FOR UPDATE OF p SKIP LOCKED)
            RETURNING unique_name, room_sid
            """, logger: database.logger)
        var taken: [(uniqueName: String, roomSID: String?)] = []
        for try await (name, sid) in rows.decode((String, String?).self) { taken.append((name, sid)) }
        return taken
    }

    /// SQL: the node (columns prefixed by `alias`) is live. Heard from
    /// within ``deadAfterSeconds``, or the database itself started less than
    /// that ago: after a database outage no node could heartbeat, and until
    /// each has had the time to, none is judged dead (a join would move a
    /// live node's room), unless another node found it gone (`markDead`).
    func live(_ alias: String) -> String {
        let heard = "\(alias)heartbeat_at > now() - interval '\(Self.deadAfterSeconds) seconds'"
        guard graceAfterDatabaseStart else { return "(\(heard))" }
        return "(\(heard) OR (pg_postmaster_start_time() > now() - interval '\(Self.deadAfterSeconds) seconds'"
            + " AND \(alias)state != 'dead'))"
    }

    static func node(_ row: PostgresRow) throws -> NodeRow {
        let (id, url, state, participants, rooms, cpu, live) = try row.decode(
            (String, String, String, Int, Int, Double, Bool).self)
        return NodeRow(id: id, url: url, state: state, participants: participants, rooms: rooms, cpu: cpu, live: live)
    }
}

extension PostgresNodeTable {
    /// The node that owns the room of this unique name (live or not), or
    /// nil when no node does. Places nothing.
    public func owner(uniqueName: String) async throws -> NodeRow? {
        try await database.client.query(
            """
            SELECT n.id, n.url, n.state, n.participants, n.rooms, n.cpu, \(unescaped: live("n.")) AS live
            FROM room_placement p JOIN node n ON n.id = p.node_id WHERE p.unique_name = \(uniqueName)
            """, logger: database.logger
        ).collect().map(Self.node).first
    }
}
