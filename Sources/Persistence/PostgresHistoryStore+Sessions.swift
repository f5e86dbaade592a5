import Crypto
import Foundation
import PostgresNIO
import Rooms

/// Sessions in the cluster's database (PROTOCOL.md section 8): any node can
/// find a session by its token and rebuild its room to take it over.
extension PostgresHistoryStore {
    /// Where a session token belongs, while its participant is current.
    public struct StoredSession: Sendable, Equatable {
        public var participantSID: ParticipantSID
        public var roomSID: RoomSID
        public var uniqueName: String
        public var identity: String
    }

    /// The current session whose token is `token` (looked up by its hash),
    /// in a room in progress; nil when there is none.
    public func session(token: SessionToken) async throws -> StoredSession? {
        try await caughtUp()
        let rows = try await database.client.query(
            """
            SELECT s.participant_sid, s.room_sid, r.unique_name, s.identity FROM session s
            JOIN room r ON r.sid = s.room_sid AND r.status = 'in-progress'
            WHERE s.token_hash = \(Self.hash(token))
            """, logger: database.logger)
        for try await (participant, room, name, identity) in rows.decode((String, String, String, String).self) {
            return StoredSession(
                participantSID: ParticipantSID(unchecked: participant), roomSID: RoomSID(unchecked: room),
                uniqueName: name, identity: identity)
        }
        return nil
    }

    /// A room in progress as the database holds it, with its current
    /// participants (join order), their rules and publications: what
    /// `RoomService.adopt` needs. Nil when the room is not in progress.
    public func snapshot(room sid: RoomSID) async throws -> RoomSnapshot? {
        try await caughtUp()
        guard let room = try await fetch(
            "SELECT \(unescaped: Self.roomColumns) FROM room WHERE sid = \(sid.rawValue) AND status = 'in-progress'",
            RoomRecord.init(postgres:)
        ).first else { return nil }
        let participants = try await fetch(
            """
            SELECT \(unescaped: Self.participantColumns) FROM participant
            WHERE room_sid = \(sid.rawValue) AND status != 'disconnected' ORDER BY date_created, seq
            """, ParticipantRecord.init(postgres:))
        let tracks = try await fetch(
            """
            SELECT \(unescaped: Self.trackColumns) FROM published_track
            WHERE room_sid = \(sid.rawValue) ORDER BY date_created, seq
            """, PublishedTrackRecord.init(postgres:))
        var rules: [String: (rules: [SubscribeRule], updated: Date)] = [:]
        let rows = try await database.client.query(
            "SELECT participant_sid, rules, rules_date_updated FROM session WHERE room_sid = \(sid.rawValue)",
            logger: database.logger)
        for try await (participant, json, updated) in rows.decode((String, String, Int).self) {
            let decoded = try JSONDecoder().decode([SubscribeRule].self, from: Data(json.utf8))
            rules[participant] = (decoded, StoredDate.date(updated))
        }
        return RoomSnapshot(
            room: room,
            participants: participants.map { record in
                let session = rules[record.sid.rawValue]
                return RoomSnapshot.Participant(
                    record: record, rules: session?.rules ?? SubscribeRule.includeAll,
                    rulesDateUpdated: session?.updated ?? record.dateCreated,
                    tracks: tracks.filter { $0.participantSID == record.sid })
            })
    }

    /// The hex SHA-256 of a token, computed here: the token itself never
    /// reaches the database, not even as a query parameter (which its logs
    /// and `pg_stat_activity` may show).
    static func hash(_ token: SessionToken) -> String {
        SHA256.hash(data: Data(token.rawValue.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func upsert(_ session: SessionRecord) throws -> PostgresQuery {
        let rules = String(decoding: try JSONEncoder().encode(session.rules), as: UTF8.self)
        return """
            INSERT INTO session (participant_sid, token_hash, room_sid, identity, rules, rules_date_updated)
            VALUES (\(session.participantSID.rawValue),
                \(hash(session.token)),
                \(session.roomSID.rawValue), \(session.identity), \(rules),
                \(StoredDate.seconds(session.rulesDateUpdated)))
            ON CONFLICT (participant_sid) DO UPDATE SET token_hash = EXCLUDED.token_hash,
                rules = EXCLUDED.rules, rules_date_updated = EXCLUDED.rules_date_updated
            """
    }
}

extension RoomEvent {
    /// A session for a cluster's store (the embedded store has no use for it).
    var isSession: Bool {
        if case .session = self { true } else { false }
    }
}
