import Foundation
@testable import Persistence
import PostgresNIO
import Rooms
import Testing

/// The cluster's node table and room placement (PROTOCOL.md section 8) on a
/// real PostgreSQL: least-loaded placement, atomic under concurrency, no
/// room on a draining node, and a dead node's rooms re-placed, then ended.
@Suite struct PostgresNodeTableTests {
    private func table() async throws -> PostgresNodeTable {
        // No grace after the database's start: the tests fake silences on a server just started.
        PostgresNodeTable(database: try await StoreKind.newDatabase(), graceAfterDatabaseStart: false)
    }

    private func beat(_ table: PostgresNodeTable, _ id: String, state: String = "active", participants: Int = 0) async throws {
        try await table.heartbeat(
            id: id, url: "http://\(id).invalid:7880", state: state, participants: participants, rooms: 0, cpu: 0)
    }

    /// Makes a node look silent for `seconds` (its heartbeat moved back).
    private func silence(_ table: PostgresNodeTable, _ id: String, seconds: Int) async throws {
        try await table.database.client.query(
            "UPDATE node SET heartbeat_at = now() - make_interval(secs => \(seconds)) WHERE id = \(id)")
    }

    @Test func newRoomsGoToTheLeastLoadedNodeCountingPlacedRooms() async throws {
        let nodes = try await table()
        try await beat(nodes, "NOa", participants: 5)
        try await beat(nodes, "NOb")
        try await beat(nodes, "NOc")
        // Ties go to the node asking, then by ID; each placed room counts as load.
        #expect(try await nodes.place(uniqueName: "one", preferring: "NOc")?.id == "NOc")
        #expect(try await nodes.place(uniqueName: "two", preferring: "NOc")?.id == "NOb")
        let owners = [
            try await nodes.place(uniqueName: "one", preferring: "NOa")?.id,
            try await nodes.place(uniqueName: "two", preferring: "NOa")?.id,
        ]
        #expect(owners == ["NOc", "NOb"], "a placed room keeps its owner")
        // NOa (5 participants) is the most loaded: it gets nothing until the others pass it.
        #expect(try await nodes.place(uniqueName: "four", preferring: "NOa")?.id != "NOa")
    }

    @Test func concurrentPlacementsOfOneNameAgree() async throws {
        let nodes = try await table()
        for id in ["NOa", "NOb", "NOc"] { try await beat(nodes, id) }
        for round in 0..<5 {
            let owners = try await withThrowingTaskGroup(of: String?.self) { group in
                for n in 0..<12 {
                    let asking = ["NOa", "NOb", "NOc"][n % 3]
                    group.addTask { try await nodes.place(uniqueName: "contended-\(round)", preferring: asking)?.id }
                }
                return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
            }
            #expect(owners.count == 1 && owners.first! != nil, "round \(round): \(owners)")
        }
    }

    /// New rooms placed at the same moment spread as if one after another:
    /// each placement counts those committed before it.
    @Test func concurrentPlacementsOfNewRoomsSpreadEvenly() async throws {
        let nodes = try await table()
        for id in ["NOa", "NOb", "NOc"] { try await beat(nodes, id) }
        let owners = try await withThrowingTaskGroup(of: String?.self) { group in
            for n in 0..<12 {
                group.addTask { try await nodes.place(uniqueName: "room-\(n)", preferring: "NOa")?.id }
            }
            return try await group.reduce(into: [String: Int]()) { $0[$1 ?? "none", default: 0] += 1 }
        }
        #expect(owners == ["NOa": 4, "NOb": 4, "NOc": 4], "\(owners)")
    }

    @Test func aDrainingNodeGetsNoNewRoomButKeepsItsOwn() async throws {
        let nodes = try await table()
        try await beat(nodes, "NOa")
        #expect(try await nodes.place(uniqueName: "mine", preferring: "NOa")?.id == "NOa")
        try await beat(nodes, "NOa", state: "draining")
        #expect(try await nodes.place(uniqueName: "mine", preferring: "NOa")?.id == "NOa")
        #expect(try await nodes.place(uniqueName: "new", preferring: "NOa") == nil)
        try await beat(nodes, "NOb")
        #expect(try await nodes.place(uniqueName: "new", preferring: "NOa")?.id == "NOb")
        #expect(try await nodes.nodes().map(\.state) == ["draining", "active"])
    }

    @Test func aDeadNodesRoomsMoveOnTheNextJoinAndAreTakenToEndAfterTheWindow() async throws {
        let database = try await StoreKind.newDatabase()
        let nodes = PostgresNodeTable(database: database, graceAfterDatabaseStart: false)
        let history = PostgresHistoryStore(database: database)
        try await beat(nodes, "NOa")
        let start = Date(timeIntervalSince1970: 1_795_257_000)
        var service = RoomService(generator: SystemRandomNumberGenerator())
        var rooms: [RoomSID] = []
        for name in ["kept", "moved"] {
            #expect(try await nodes.place(uniqueName: name, preferring: "NOa")?.id == "NOa")
            let joined = try service.join(roomName: name, identity: "alice", now: start)
            let published = try service.publish(
                participant: joined.value.participant.sid, tracks: [TrackRequest(mid: "0", name: "mic", kind: "audio")],
                now: start)
            #expect(history.record(joined.events + published.events))
            try await nodes.roomCreated(uniqueName: name, roomSID: joined.value.room.sid.rawValue, nodeID: "NOa")
            rooms.append(joined.value.room.sid)
        }
        try await history.caughtUp()

        // NOa goes silent; NOb is live. Within the window nothing ends.
        try await beat(nodes, "NOb")
        try await silence(nodes, "NOa", seconds: 20)
        #expect(try await nodes.nodes().map(\.live) == [false, true])
        #expect(try await nodes.takeRoomsOfDeadNodes(graceSeconds: 40, for: "NOb").isEmpty)
        // A join for "moved" places it again, on the live node.
        #expect(try await nodes.place(uniqueName: "moved", preferring: "NOa")?.id == "NOb")

        // Past the window: "kept" (still on the dead node) is taken by NOb, once,
        // to end it (ClusterNode); its record is left to that.
        try await silence(nodes, "NOa", seconds: 60)
        let taken = try await nodes.takeRoomsOfDeadNodes(graceSeconds: 40, for: "NOb")
        #expect(taken.map(\.uniqueName) == ["kept"] && taken.map(\.roomSID) == [rooms[0].rawValue])
        #expect(try await nodes.takeRoomsOfDeadNodes(graceSeconds: 40, for: "NOb").isEmpty)
        #expect(try await nodes.takeRoomsOfDeadNodes(graceSeconds: 40, for: "NOc").isEmpty, "NOb is live")
        #expect(try await nodes.owner(uniqueName: "kept")?.id == "NOb")
        #expect(try await history.room(sid: rooms[0].rawValue)?.status == .inProgress)
        #expect(try await nodes.place(uniqueName: "kept", preferring: "NOb")?.id == "NOb")
    }
    /// A node another found gone (`markDead`) is dead at once, though it
    /// heartbeated a moment ago; its rooms move with the next placement,
    /// and a heartbeat of its own makes it live again. (The grace after a
    /// database start leaves a node marked dead out too, by its state; a
    /// test of that would depend on the server starting within seconds.)
    @Test func aNodeMarkedDeadIsDeadAtOnceUntilItHeartbeatsAgain() async throws {
        let nodes = try await table()
        try await beat(nodes, "NOa")
        try await beat(nodes, "NOb")
        #expect(try await nodes.place(uniqueName: "room", preferring: "NOa")?.id == "NOa")
        #expect(try await nodes.place(uniqueName: "room", preferring: "NOb")?.id == "NOa", "a live owner keeps its room")
        try await nodes.markDead(id: "NOa")
        #expect(try await nodes.nodes().first { $0.id == "NOa" }?.live == false)
        #expect(try await nodes.place(uniqueName: "room", preferring: "NOb")?.id == "NOb")
        try await beat(nodes, "NOa")
        #expect(try await nodes.nodes().first { $0.id == "NOa" }?.live == true)
    }
}
