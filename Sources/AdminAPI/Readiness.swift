/// What `GET /readyz` reports (PROTOCOL.md section 6): whether the node takes
/// new participants. `{"status":"ok"}` is 200; `draining` (graceful shutdown
/// has begun) and `full` (at `rooms.maxParticipantsPerNode`, where a join
/// would get 53006) are 503.
public struct Readiness: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case ok
        case draining
        case full
    }

    public var status: State

    public init(_ status: State) {
        self.status = status
    }
}
