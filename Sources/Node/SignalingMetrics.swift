/// What signaling reports to the node's metrics (DESIGN.md, "Metrics"):
/// each completed join's duration (`vroom_join_seconds`) and the code of
/// each `error` or `disconnected` frame sent (`vroom_signaling_errors_total
/// {code}`). Closures, so that Signaling needs no metrics library; the
/// server wires them to its registry (AdminAPI's `NodeMetrics`). It lives
/// in Node, which both Signaling and AdminAPI import. Both are called off any lock, from
/// the session's tasks, and must not block.
public struct SignalingMetrics: Sendable {
    /// A join (or resume) was accepted: from its frame's arrival to the
    /// `joined` reply being queued, token check included.
    public var joinCompleted: @Sendable (Duration) -> Void
    /// An `error` or `disconnected` frame with this protocol code
    /// (PROTOCOL.md section 4) is being written to a client.
    public var errorSent: @Sendable (Int) -> Void

    public init(
        joinCompleted: @escaping @Sendable (Duration) -> Void, errorSent: @escaping @Sendable (Int) -> Void
    ) {
        self.joinCompleted = joinCompleted
        self.errorSent = errorSent
    }

    /// Reports nowhere.
    public static let none = SignalingMetrics(joinCompleted: { _ in }, errorSent: { _ in })
}
