/// Where a room lives (PROTOCOL.md section 8): a room is on one node at a
/// time, and a `join` that reaches another node is redirected there. One
/// node places every room on itself; a cluster's placement reads and writes
/// the shared database's room table.
public protocol RoomPlacement: Sendable {
    /// The node that hosts (or will host) `room`, a unique name or a room SID.
    func locate(room: String) async -> RoomLocation

    /// Before a REST create of `uniqueName` here: `.here` when this node now
    /// owns the name, `.elsewhere` when another live node does (the room
    /// exists there, 53113), `.unavailable` when the owner cannot be known.
    func claim(uniqueName: String) async -> RoomLocation
}

/// The answer of a `RoomPlacement`.
public enum RoomLocation: Sendable, Equatable {
    /// This node: admit the participant here.
    case here
    /// Another node: the client joins again at this signaling URL
    /// (`{"type":"redirect","url":…}`).
    case elsewhere(signalingURL: String)
    /// Nowhere now (the cluster's database is away, or every node is
    /// draining): the join is refused with 53006 and the client may retry.
    case unavailable
}

/// The placement of a node that is alone: every room is here.
public struct SingleNodePlacement: RoomPlacement {
    public init() {}

    public func locate(room: String) async -> RoomLocation { .here }

    public func claim(uniqueName: String) async -> RoomLocation { .here }
}
