import Foundation
import Logging
import Node
import Persistence
import Rooms
import Synchronization
import Testing
import VroomTesting

/// A room placed on a node that does not host it (a drain moved it there,
/// or a dead node's room was placed there) is adopted at the node's
/// heartbeat, so its windows and timers run and a room nobody comes back to
/// ends (issue 14; a review finding: it stayed in progress for ever).
@Suite struct ClusterNodeAdoptionTests {
    @Test func aRoomPlacedHereIsAdoptedAtTheHeartbeatAndAHostedOneIsNot() async throws {
        let database = try await PostgresDatabase.connect(
            url: try PostgresServer.shared().createDatabase(), logger: Logger(label: "test"))
        let history = PostgresHistoryStore(database: database)
        // The old node's room, as the database has it.
        var old = RoomService(generator: SystemRandomNumberGenerator())
        let alice = try old.join(roomName: "moved", identity: "alice", now: Date())
        #expect(history.record(alice.events))
        try await history.caughtUp()

        let adopted = Mutex<[RoomSnapshot]>([])
        let hosted = Mutex<Set<RoomSID>>([])
        let node = ClusterNode(
            url: "http://127.0.0.1:9", database: database, history: history, reconnectWindowSeconds: 30,
            logger: Logger(label: "test"), load: { (0, 0) },
            hosts: { room in hosted.withLock { $0.contains(room) } },
            adopt: { snapshot in adopted.withLock { $0.append(snapshot) } })
        try await node.heartbeat()
        try await node.adoptPlacedRooms()
        #expect(adopted.withLock { $0.isEmpty }, "nothing placed here yet")

        // Placed here, as a drain's move does.
        #expect(try await node.nodes.claim(uniqueName: "moved", nodeID: node.id)?.id == node.id)
        try await node.adoptPlacedRooms()
        let snapshot = try #require(adopted.withLock { $0.first })
        #expect(snapshot.room.sid == alice.value.room.sid)
        #expect(snapshot.participants.map(\.record.sid) == [alice.value.participant.sid])

        // Once hosted here, it is left alone.
        hosted.withLock { _ = $0.insert(alice.value.room.sid) }
        adopted.withLock { $0.removeAll() }
        try await node.adoptPlacedRooms()
        #expect(adopted.withLock { $0.isEmpty })
        await history.close()
    }

    /// A placement no room came of (a join refused after placing it, a
    /// redirected client that never came) is forgotten once it is a minute
    /// old; one whose room is in progress is kept, even before the room's
    /// SID reached the placement.
    @Test func aPlacementWithNoRoomBehindItIsForgottenAfterAMinute() async throws {
        let name = "t\(UUID().uuidString.prefix(8).lowercased())"
        let postgres = try PostgresServer.shared()
        let database = try await PostgresDatabase.connect(url: try postgres.createDatabase(name), logger: Logger(label: "test"))
        let history = PostgresHistoryStore(database: database)
        var service = RoomService(generator: SystemRandomNumberGenerator())
        let alice = try service.join(roomName: "live", identity: "alice", now: Date())
        #expect(history.record(alice.events))
        try await history.caughtUp()
        let node = ClusterNode(
            url: "http://127.0.0.1:9", database: database, history: history, reconnectWindowSeconds: 30,
            logger: Logger(label: "test"), load: { (0, 0) }, hosts: { $0 == alice.value.room.sid }, adopt: { _ in })
        try await node.heartbeat()
        for room in ["ghost", "live"] { #expect(try await node.nodes.claim(uniqueName: room, nodeID: node.id)?.id == node.id) }
        func placed() async throws -> [String] { try await node.nodes.placements(on: node.id).map(\.uniqueName).sorted() }

        try await node.adoptPlacedRooms()
        #expect(try await placed() == ["ghost", "live"], "under a minute old: both kept")
        let age = "UPDATE room_placement SET placed_at = now() - interval '61 seconds'"
        _ = try postgres.query(age, database: name)
        // Claimed again by its owner (a create here, as a join's placement
        // does): its minute starts again, so a room made from it keeps it.
        #expect(try await node.nodes.claim(uniqueName: "ghost", nodeID: node.id)?.id == node.id)
        try await node.adoptPlacedRooms()
        #expect(try await placed() == ["ghost", "live"], "the placement claimed again is kept")
        _ = try postgres.query(age, database: name)
        try await node.adoptPlacedRooms()
        #expect(try await placed() == ["live"], "the room in progress keeps its placement")
        await history.close()
    }
}
