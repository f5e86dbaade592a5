/// Carries a REST action on a room to the node that owns the room
/// (PROTOCOL.md section 8: "an action on a room is carried out by the node
/// that owns it"). The request and the answer are opaque text to the relay:
/// the REST layer writes and reads them.
public protocol RoomActionRelay: Sendable {
    /// Sends `request` to the owner of the room of this unique name and
    /// waits for its answer, or says why there is none.
    func relay(room uniqueName: String, request: String) async -> RelayOutcome
}

/// What became of a relayed action.
public enum RelayOutcome: Sendable, Equatable {
    /// This node owns the room, or no node does: act here.
    case local
    /// The owner's answer.
    case answered(String)
    /// The owner cannot be asked or did not answer: it is not live, the
    /// database is away, or no answer came within the relay's timeout.
    case unavailable(reason: String)
}
