import Foundation
internal import GRDB
import Rooms

/// A restart of the node alone (PROTOCOL.md section 6: rooms in progress
/// when the server stopped are `failed` after it). Nothing can be live
/// before the server takes its first participant, so the server ends each
/// room the file still has in progress the way its reconnect windows would
/// have (``interruptedRooms()`` for `RoomService.adopt` and `fail`), with
/// the records and status callbacks a running node writes, numbered on
/// from ``nextCallbackSequenceNumbers()``. ``markInterrupted(now:)`` then
/// sweeps whatever that left, without callbacks.
extension SQLiteHistoryStore {
    /// The rooms in progress, each with its current participants (join
    /// order) and their publications: what `RoomService.adopt` takes. The
    /// file keeps no subscribe rules (a restart ends these rooms), so each
    /// participant has the default one.
    public func interruptedRooms() async throws -> [RoomSnapshot] {
        try await caughtUp()
        return try await writer.read { db in
            let rooms = try Row.fetchAll(
                db, sql: "SELECT * FROM room WHERE status = 'in-progress' ORDER BY date_created, rowid"
            ).map(RoomRecord.init(row:))
            return try rooms.map { room in
                let participants = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM participant WHERE room_sid = ? AND status IN ('connected', 'reconnecting')
                        ORDER BY date_created, rowid
                        """,
                    arguments: [room.sid.rawValue]
                ).map(ParticipantRecord.init(row:))
                return RoomSnapshot(
                    room: room,
                    participants: try participants.map { participant in
                        let tracks = try Row.fetchAll(
                            db,
                            sql: "SELECT * FROM published_track WHERE participant_sid = ? ORDER BY date_created, rowid",
                            arguments: [participant.sid.rawValue]
                        ).map(PublishedTrackRecord.init(row:))
                        return RoomSnapshot.Participant(
                            record: participant, rules: SubscribeRule.includeAll,
                            rulesDateUpdated: participant.dateCreated, tracks: tracks)
                    })
            }
        }
    }

    /// Each room's next status-callback `SequenceNumber` (by room SID), for
    /// rooms that sent callbacks and have not sent `room-ended`: where the
    /// in-memory outbox numbers on after a restart, so a receiver that drops
    /// repeats by number drops none of the callbacks that end the room.
    public func nextCallbackSequenceNumbers() async throws -> [String: Int] {
        try await caughtUp()
        return try await writer.read { db in
            var numbers: [String: Int] = [:]
            let rows = try Row.fetchAll(db, sql: "SELECT room_sid, next_number FROM webhook_sequence")
            for row in rows {
                numbers[row["room_sid"]] = row["next_number"]
            }
            return numbers
        }
    }

    /// What ``markInterrupted(now:)`` changed.
    public struct Interrupted: Sendable, Equatable {
        /// Rooms that were `in-progress` and now read `failed`.
        public var roomSids: [String]
        /// Participants that were `connected`/`reconnecting` and now read `disconnected`.
        public var participantCount: Int
    }

    /// Called once at startup, before the server takes any participant,
    /// after the server ended what ``interruptedRooms()`` gave: nothing can
    /// be live yet, so every room still `in-progress` becomes `failed` and
    /// every `connected` or `reconnecting` participant (in those rooms or
    /// anywhere, since none can still be connected) becomes `disconnected`,
    /// all with `end_time` = `date_updated` = `now` and `duration` up to
    /// `now`; their publications and the rooms' callback numbers are
    /// deleted. Completed and failed rooms are unchanged. No callbacks.
    /// One transaction: a crash halfway leaves the file as it was.
    @discardableResult
    public func markInterrupted(now: Date) async throws -> Interrupted {
        let nowSeconds = StoredDate.seconds(now)
        return try await writer.write { db in
            let roomSids = try String.fetchAll(
                db, sql: "SELECT sid FROM room WHERE status = 'in-progress' ORDER BY date_created, rowid")
            try db.execute(
                sql: "DELETE FROM webhook_sequence WHERE room_sid IN (SELECT sid FROM room WHERE status = 'in-progress')")
            try db.execute(
                sql: """
                    UPDATE room SET status = 'failed', end_time = ?1, date_updated = ?1,
                        duration = MAX(0, ?1 - date_created)
                    WHERE status = 'in-progress'
                    """,
                arguments: [nowSeconds])
            // Their publications ended with them (PublishedTracks lists
            // current publications only); before the UPDATE below, whose
            // change count is the result.
            try db.execute(
                sql: """
                    DELETE FROM published_track WHERE participant_sid IN
                        (SELECT sid FROM participant WHERE status IN ('connected', 'reconnecting'))
                    """)
            try db.execute(
                sql: """
                    UPDATE participant SET status = 'disconnected', end_time = ?1, date_updated = ?1,
                        duration = MAX(0, ?1 - start_time)
                    WHERE status IN ('connected', 'reconnecting')
                    """,
                arguments: [nowSeconds])
            return Interrupted(roomSids: roomSids, participantCount: db.changesCount)
        }
    }
}
