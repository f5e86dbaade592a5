import Foundation
import Logging
import Node
import Persistence
import Rooms

/// The rooms a node alone had in progress when it last stopped (a crash or
/// a kill), read from its SQLite file at start. Nobody can resume them
/// (their sessions lived in memory), so they end `failed` before the node
/// takes anyone, as a dead cluster node's rooms do (PROTOCOL.md sections 6
/// and 8): for each participant `track-removed` for its publications, then
/// `participant-disconnected`; then `room-ended`, numbered on after the
/// callbacks sent before the stop. A node that stops gracefully ends them itself
/// (``end(inProgressOn:logger:)``).
struct InterruptedRooms {
    private let store: SQLiteHistoryStore
    private let rooms: [RoomSnapshot]
    /// Each room's next `SequenceNumber`, for the outbox's `init`.
    let callbackSequenceNumbers: [String: Int]

    init(store: SQLiteHistoryStore) async throws {
        self.store = store
        rooms = try await store.interruptedRooms()
        callbackSequenceNumbers = try await store.nextCallbackSequenceNumbers()
    }

    /// Ends every room through the room service (records and callbacks as
    /// a running node writes them), then marks whatever is left `failed`
    /// in the file (a room the service would not take), without callbacks.
    func end(on host: RoomHost, logger: Logger) async throws {
        for snapshot in rooms {
            do throws(RoomError) {
                try await host.perform { (service: inout RoomService, now) throws(RoomError) in
                    try service.fail(snapshot, now: now)
                }
            } catch {
                logger.warning("cannot end room \(snapshot.room.uniqueName) of the last run: \(error)")
            }
        }
        // The host handed the records to the store, whose queue writes
        // them before this.
        let left = try await store.markInterrupted(now: Date())
        if !rooms.isEmpty || !left.roomSids.isEmpty {
            logger.notice(
                "\(rooms.count) room(s) in progress at the last stop ended failed, \(left.roomSids.count) more marked failed without callbacks")
        }
    }

    /// A node alone that stops with rooms in progress (its drain timed out,
    /// or a second signal ended it) ends them the same way, at its stop.
    static func end(inProgressOn host: RoomHost, logger: Logger) async {
        let ended = await host.perform { (service: inout RoomService, now) -> RoomOutcome<Int> in
            let rooms = service.allRooms().filter { $0.status == .inProgress }
            var events: [RoomEvent] = []
            for room in rooms { events += service.fail(room: room.sid, now: now) }
            return RoomOutcome(value: rooms.count, events: events)
        }
        if ended > 0 { logger.notice("stopping: \(ended) room(s) in progress ended failed") }
    }
}
