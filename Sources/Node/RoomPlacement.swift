import Rooms

/// Where a room lives (PROTOCOL.md section 8): a room is on one node at a
/// time, and a `join` that reaches another node is redirected there. One
/// node places every room on itself; a cluster's placement reads and writes
/// the shared database's room table.
public protocol RoomPlacement: Sendable {
    /// The node that hosts (or will host) `room`, a unique name or a room SID.
    func locate(room: String) async -> RoomLocation

    /// Before a REST create of `uniqueName` here: `.here` when this node now
    /// owns the name, `.elsewhere` when another live node does (the room
    /// may exist there; that node carries the create out), `.unavailable`
    /// when the owner cannot be known. A draining node claims nothing: it
    /// places the name on a live active node as a join would.
    func claim(uniqueName: String) async -> RoomLocation

    /// A resume whose session token this node's rooms do not know: where
    /// the session lives in the cluster (section 8: any node can resume
    /// any session), taking its room over when its node is dead.
    func locate(session token: SessionToken) async -> SessionLocation

    /// After `locate(room:)` said `.here`: the room in progress that this
    /// node must take over before the join (its node died, or drained it
    /// here), when the cluster has one by that name or SID and this node's
    /// rooms do not; nil otherwise.
    func takeOver(room: String) async -> RoomSnapshot?
}

extension RoomPlacement {
    /// One node alone: a token it does not know is no session at all.
    public func locate(session token: SessionToken) async -> SessionLocation { .unknown }

    /// One node alone: every room it has is its own.
    public func takeOver(room: String) async -> RoomSnapshot? { nil }
}

/// The answer of `RoomPlacement.locate(session:)`.
public enum SessionLocation: Sendable {
    /// No current session has this token (the resume gets 53001).
    case unknown
    /// The session's room is this node's: resume the participant here
    /// (`RoomService.resume(adopted:)`), first adopting `snapshot` when
    /// the room was just taken over from a dead node.
    case here(participant: ParticipantSID, snapshot: RoomSnapshot?)
    /// The room lives on another node: redirect there.
    case elsewhere(signalingURL: String)
    /// The cluster's database cannot say now (the resume gets 53006).
    case unavailable
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
