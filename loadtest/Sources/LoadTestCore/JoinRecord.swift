/// How one planned participant's join went, and whether it stayed.
public struct JoinRecord: Sendable, Equatable, Codable {
    public var identity: String
    public var roomName: String
    public var role: LoadPlan.Role
    /// Connect call to the `connected` event; nil when it never connected.
    public var joinMilliseconds: Double?
    /// Why the join failed: a protocol error code ("53105"), "timeout", or
    /// "room" when its room could not be created.
    public var failure: String?
    /// Set when a joined participant was disconnected before the run ended:
    /// the code it got ("53002"), or "none" for a disconnect without error.
    public var disconnect: String?

    public init(identity: String, roomName: String, role: LoadPlan.Role, joinMilliseconds: Double? = nil, failure: String? = nil, disconnect: String? = nil) {
        self.identity = identity
        self.roomName = roomName
        self.role = role
        self.joinMilliseconds = joinMilliseconds
        self.failure = failure
        self.disconnect = disconnect
    }
}
