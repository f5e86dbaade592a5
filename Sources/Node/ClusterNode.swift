import Foundation
import Logging
import Persistence
import Rooms
import Synchronization

/// This node as a member of a cluster sharing one PostgreSQL database
/// (PROTOCOL.md section 8): it heartbeats its state and load every
/// ``heartbeatInterval``, places rooms (``locate(room:)``: the least-loaded
/// live node that is not draining, atomically in the database) and keeps
/// the placement table in step with its rooms' lives (``handle(_:)``).
///
/// `Sendable`: its mutable state is behind a `Mutex`; the rest is set once.
public final class ClusterNode: RoomPlacement {
    /// This process's ID in the node table: new at each start, so a node
    /// that restarts is a new member and its old rooms are a dead node's.
    public let id: String
    /// How clients and other nodes reach this node's HTTP port (`--node-url`).
    public let url: String
    public let nodes: PostgresNodeTable
    private let history: any HistoryStore
    let logger: Logger
    /// REST actions this node has relayed and waits on (`ClusterNode+Relay`).
    let relayState = RelayState()
    private let load: @Sendable () async -> (participants: Int, rooms: Int)
    /// Whether this node's room host has the room in progress.
    private let hosts: @Sendable (RoomSID) async -> Bool
    /// Takes a room over into this node's room host.
    private let adopt: @Sendable (RoomSnapshot) async -> Void
    /// Takes a dead node's room over into this node's room host only to
    /// end it `failed` there (`RoomService.fail(room:now:)`).
    private let fail: @Sendable (RoomSnapshot) async -> Void
    /// A dead node's rooms end `failed` once it has been silent this long.
    private let failRoomsAfterSeconds: Int
    private let draining = Atomic<Bool>(false)
    /// Rooms whose placement row already names their SID (one write per room).
    private let recorded = Mutex<Set<RoomSID>>([])
    /// Placement changes, written in order (a room's end never overtakes
    /// its creation) and tried again while the database is away.
    private let placementWrites: OrderedWriteQueue<PlacementChange>

    /// PROTOCOL.md section 8: every 2 s.
    public static let heartbeatInterval = Duration.seconds(2)

    /// How long a join waits for the database to place its room before it
    /// gets 53006.
    public static let placementTimeout = Duration.seconds(3)

    private enum PlacementChange {
        case created(uniqueName: String, room: RoomSID)
        case ended(uniqueName: String)
    }

    /// - Parameters:
    ///   - reconnectWindowSeconds: how long a dead node's participants may
    ///     resume elsewhere; its rooms end `failed` when nobody did, that
    ///     long after the node is dead.
    ///   - load: the node's current participants and rooms in progress.
    ///   - hosts: whether the node's room host has a room in progress.
    ///   - adopt: takes a room over into the node's room host (see
    ///     ``adoptPlacedRooms()``).
    ///   - fail: takes a dead node's room over and ends it `failed`.
    public init(
        url: String, database: PostgresDatabase, history: any HistoryStore, reconnectWindowSeconds: Double,
        logger: Logger, load: @escaping @Sendable () async -> (participants: Int, rooms: Int),
        hosts: @escaping @Sendable (RoomSID) async -> Bool = { _ in false },
        adopt: @escaping @Sendable (RoomSnapshot) async -> Void = { _ in },
        fail: @escaping @Sendable (RoomSnapshot) async -> Void = { _ in }
    ) {
        failRoomsAfterSeconds = PostgresNodeTable.deadAfterSeconds + Int(reconnectWindowSeconds.rounded(.up))
        id = "NO" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        self.url = url
        nodes = PostgresNodeTable(database: database)
        self.history = history
        self.logger = logger
        self.load = load
        self.hosts = hosts
        self.adopt = adopt
        self.fail = fail
        let nodes = nodes, id = id
        // 10k: far more rooms than a node starts or ends while its database is away.
        placementWrites = OrderedWriteQueue(
            maxPending: 10_000,
            write: { change in
                switch change {
                case .created(let name, let room):
                    try await nodes.roomCreated(uniqueName: name, roomSID: room.rawValue, nodeID: id)
                case .ended(let name):
                    try await nodes.roomEnded(uniqueName: name, nodeID: id)
                }
            },
            isTransient: PostgresDatabase.isTransient,
            finished: { change, error in
                if let error { logger.warning("cluster: placement update \(change) given up: \(error)") }
            })
    }

    /// Whether the node is draining (`/readyz`, and no new room is placed here).
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Marks the node draining and says so in its next heartbeat, sent now.
    public func startDraining() async {
        draining.store(true, ordering: .relaxed)
        try? await heartbeat()
    }

    /// One heartbeat: state, participants, rooms and CPU.
    public func heartbeat() async throws {
        let (participants, rooms) = await load()
        try await nodes.heartbeat(
            id: id, url: url, state: isDraining ? "draining" : "active", participants: participants, rooms: rooms,
            cpu: cpu.sample())
    }

    private let cpu = ProcessCPU()

    /// Heartbeats until cancelled, and ends the rooms of nodes dead past the
    /// reconnect window; a failed round is logged and the next tried on time.
    public func run() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await heartbeat()
                try await adoptPlacedRooms()
                try await failRoomsOfDeadNodes()
                if failing { logger.notice("cluster: heartbeats reach the database again") }
                failing = false
            } catch {
                if !failing { logger.warning("cluster: heartbeat failed: \(error)") }
                failing = true
            }
            try? await Task.sleep(for: Self.heartbeatInterval)
        }
    }

    /// Ends the rooms of nodes dead past the reconnect window `failed`:
    /// takes their placements, then each room through this node's room
    /// service (`fail`), so the room's callbacks (`participant-disconnected`,
    /// `track-removed`, `room-ended`) and records are those its node would
    /// have sent, and its sessions and message subscriptions go. A room
    /// whose snapshot cannot be read stays placed here: the next heartbeat
    /// adopts it, and it ends `failed` when its participants' windows end.
    func failRoomsOfDeadNodes() async throws {
        let taken = try await nodes.takeRoomsOfDeadNodes(graceSeconds: failRoomsAfterSeconds, for: id)
        guard !taken.isEmpty, let history = history as? PostgresHistoryStore else { return }
        var ended: [String] = []
        for placement in taken {
            let sid = placement.roomSID.map(RoomSID.init(unchecked:))
            if let sid, await hosts(sid) { continue }
            guard let sid, let snapshot = try await history.snapshot(room: sid) else {
                // Placed, but its room never started or already ended.
                enqueuePlacement(.ended(uniqueName: placement.uniqueName))
                continue
            }
            await fail(snapshot)
            ended.append(placement.uniqueName)
        }
        if !ended.isEmpty {
            logger.notice("cluster: \(ended.count) room(s) of dead nodes ended failed: \(ended.joined(separator: ", "))")
        }
    }

    // MARK: - Placement

    /// Rooms placed on this node that it does not host while the database
    /// has them in progress (a drain moved them here, or a dead node's room
    /// was placed here by a join or resume that then went elsewhere) are
    /// adopted now, at the heartbeat: their participants' reconnect windows
    /// and the empty-room timer then run here, so a room nobody comes back
    /// to ends instead of staying in progress in the database.
    ///
    /// A placement with no room in progress behind it, placed over
    /// `unusedPlacementSeconds` ago, is forgotten: a join refused after it
    /// placed the room here (53106 with ad-hoc rooms off, a grant for
    /// another room), a redirected client that never came, a room whose
    /// end was not recorded. It would count as load here for ever.
    public func adoptPlacedRooms() async throws {
        for placement in try await nodes.placements(on: id) {
            // A room hosted here is the common case: no query for it.
            if let sid = placement.roomSID, await hosts(RoomSID(unchecked: sid)) { continue }
            if let snapshot = await takeOver(room: placement.uniqueName) {
                await adopt(snapshot)
                continue
            }
            guard let history = history as? PostgresHistoryStore else { continue }
            let record = if let sid = placement.roomSID {
                try await history.room(sid: sid)
            } else {
                try await history.latestRoom(uniqueName: placement.uniqueName)
            }
            guard record?.status != .inProgress else { continue }
            try await nodes.forgetPlacement(
                uniqueName: placement.uniqueName, roomSID: placement.roomSID, nodeID: id,
                olderThanSeconds: Self.unusedPlacementSeconds)
        }
    }

    /// How long a placement may wait for its room (`adoptPlacedRooms`):
    /// well past a join's placement, take-over and admission (3 s each at
    /// most) and a redirected client's second join.
    static let unusedPlacementSeconds = 60

    public func locate(room: String) async -> RoomLocation {
        var uniqueName = room
        if RoomSID(validating: room) != nil {
            // A SID names a room that exists: its unique name is its placement key.
            let history = history
            let found: RoomRecord?
            do {
                found = try await withTimeout(Self.placementTimeout) { try await history.room(sid: room) }
            } catch {
                logger.warning("cluster: cannot look up room \(room): \(error)")
                return .unavailable
            }
            guard let record = found else { return .here }  // the join gets 53106 here
            guard record.status == .inProgress else { return .here }  // the join gets 53106 here
            uniqueName = record.uniqueName
        }
        return await place(uniqueName: uniqueName)
    }

    /// The room's owner, placing it first when nobody owns it
    /// (`placeOnLiveNode`), as a location. A draining node that owns the
    /// name with no room created from it yet hands the placement to a live
    /// active node: no new room is placed on a draining node.
    private func place(uniqueName: String) async -> RoomLocation {
        do {
            // Bounded: with the database away the pool waits for a
            // connection far longer than a client waits for `joined`.
            let placed = try await withTimeout(Self.placementTimeout) { [self] in
                let owner = try await placeOnLiveNode(uniqueName: uniqueName)
                guard isDraining, owner?.id == id else { return owner }
                return try await nodes.move(uniqueName: uniqueName, from: id, unused: true) ?? owner
            }
            guard let owner = placed else {
                // No live active node: this one takes it unless it is draining.
                return isDraining ? .unavailable : .here
            }
            return owner.id == id ? .here : .elsewhere(signalingURL: Self.signalingURL(nodeURL: owner.url))
        } catch {
            logger.warning("cluster: cannot place room '\(uniqueName)': \(error)")
            return .unavailable
        }
    }

    /// `place`, and when the owner it names is another node where nothing
    /// listens any more (`NodeProbe`: its process is gone, though its last
    /// heartbeat is under 10 s old), that node is marked dead and the room
    /// placed again: its clients, back at once on another node, need not
    /// wait out the heartbeat rule.
    private func placeOnLiveNode(uniqueName: String) async throws -> PostgresNodeTable.NodeRow? {
        guard let owner = try await nodes.place(uniqueName: uniqueName, preferring: id) else { return nil }
        guard owner.id != id, try await markedDeadIfGone(owner) else { return owner }
        return try await nodes.place(uniqueName: uniqueName, preferring: id)
    }

    /// Marks `node` dead when nothing listens at its URL (`NodeProbe`);
    /// true when it did.
    private func markedDeadIfGone(_ node: PostgresNodeTable.NodeRow) async throws -> Bool {
        guard await NodeProbe.refusesConnections(nodeURL: node.url) else { return false }
        logger.notice("cluster: node \(node.id) at \(node.url) refuses connections: marked dead")
        try await nodes.markDead(id: node.id)
        return true
    }

    public func claim(uniqueName: String) async -> RoomLocation {
        // A draining node takes no new room (PROTOCOL.md section 8): the
        // name is placed as a join's would be, and its owner creates it.
        if isDraining { return await place(uniqueName: uniqueName) }
        let nodes = nodes, id = id
        do {
            let owner = try await withTimeout(Self.placementTimeout) { [self] in
                let owner = try await nodes.claim(uniqueName: uniqueName, nodeID: id)
                // As in `placeOnLiveNode`: an owner where nothing listens is gone.
                guard let owner, owner.id != id, try await markedDeadIfGone(owner) else { return owner }
                return try await nodes.claim(uniqueName: uniqueName, nodeID: id)
            }
            guard let owner, owner.id != id else { return .here }
            return .elsewhere(signalingURL: Self.signalingURL(nodeURL: owner.url))
        } catch {
            logger.warning("cluster: cannot claim room '\(uniqueName)': \(error)")
            return .unavailable
        }
    }

    /// A session this node's rooms do not know: its room, by the token's
    /// hash in the database, is placed as any room is (`place`: its owner
    /// while that one is live, else the least-loaded live node). Placed
    /// here and not hosted here (its node died), the room is read back to
    /// be adopted; placed elsewhere, the client is sent there.
    public func locate(session token: SessionToken) async -> SessionLocation {
        guard let history = history as? PostgresHistoryStore else { return .unknown }
        let id = id
        do {
            return try await withTimeout(Self.placementTimeout) { [self, hosts] in
                guard let session = try await history.session(token: token) else { return .unknown }
                guard let owner = try await placeOnLiveNode(uniqueName: session.uniqueName) else {
                    return .unavailable
                }
                guard owner.id == id else { return .elsewhere(signalingURL: Self.signalingURL(nodeURL: owner.url)) }
                if await hosts(session.roomSID) { return .here(participant: session.participantSID, snapshot: nil) }
                guard let snapshot = try await history.snapshot(room: session.roomSID) else { return .unknown }
                return .here(participant: session.participantSID, snapshot: snapshot)
            }
        } catch {
            logger.warning("cluster: cannot locate a session: \(error)")
            return .unavailable
        }
    }

    public func takeOver(room: String) async -> RoomSnapshot? {
        guard let history = history as? PostgresHistoryStore else { return nil }
        do {
            return try await withTimeout(Self.placementTimeout) { [hosts] () async throws -> RoomSnapshot? in
                let record = if let sid = RoomSID(validating: room) {
                    try await history.room(sid: sid.rawValue)
                } else {
                    try await history.latestRoom(uniqueName: room)
                }
                guard let record, record.status == .inProgress, !(await hosts(record.sid)) else { return nil }
                return try await history.snapshot(room: record.sid)
            }
        } catch {
            // The join then starts a room of that name here; the old one
            // ends failed with its node.
            logger.warning("cluster: cannot read room '\(room)' to take it over: \(error)")
            return nil
        }
    }

    /// Whether another live `active` node exists to move rooms to.
    public func anotherNodeCanTakeRooms() async -> Bool {
        let nodes = nodes, id = id
        let all = try? await withTimeout(Self.placementTimeout) { try await nodes.nodes() }
        return all?.contains { $0.id != id && $0.live && $0.state == "active" } ?? false
    }

    /// Moves this node's room `uniqueName` to another live node (a drain),
    /// once the database holds the room's latest records and sessions.
    /// Returns the signaling URL its participants resume at; nil when no
    /// other node can take it.
    public func move(uniqueName: String) async -> String? {
        let nodes = nodes, id = id, history = history
        do {
            return try await withTimeout(Self.placementTimeout) {
                try await history.caughtUp()
                return try await nodes.move(uniqueName: uniqueName, from: id).map { Self.signalingURL(nodeURL: $0.url) }
            }
        } catch {
            logger.warning("cluster: cannot move room '\(uniqueName)': \(error)")
            return nil
        }
    }

    /// `ws://host:port/v1/signal` for `http://host:port` (wss for https).
    public static func signalingURL(nodeURL: String) -> String {
        var base = nodeURL
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasPrefix("https://") { base = "wss://" + base.dropFirst("https://".count) }
        else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst("http://".count) }
        return base + "/v1/signal"
    }

    private func enqueuePlacement(_ change: PlacementChange) {
        if !placementWrites.enqueue(change) { logger.warning("cluster: placement update \(change) dropped: queue full") }
    }

    /// Keeps the placement table in step with this node's rooms: a room
    /// record in progress claims its name here, an ended one frees it.
    /// Only enqueues (called on the room host's actor).
    public func handle(_ events: [RoomEvent]) {
        for event in events {
            guard case .roomRecord(let room) = event else { continue }
            if room.status == .inProgress {
                if recorded.withLock({ $0.insert(room.sid).inserted }) {
                    enqueuePlacement(.created(uniqueName: room.uniqueName, room: room.sid))
                }
            } else {
                recorded.withLock { _ = $0.remove(room.sid) }
                enqueuePlacement(.ended(uniqueName: room.uniqueName))
            }
        }
    }
}
