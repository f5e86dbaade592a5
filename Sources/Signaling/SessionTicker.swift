import Synchronization

/// One clock for all of an endpoint's signaling sessions: a single task
/// wakes once a second and runs each session's `tick` (the silence rule, the
/// offer resends). A `Task.sleep` per session cost a Dispatch timer, a wake-up
/// of its manager thread and a hop to the pool per session per second, about
/// 5% of the server's CPU at 1 x 30 in perf (docs/README.md, session 29).
/// The task runs while any session is registered, and ends within a tick of
/// the last one leaving.
final class SessionTicker: Sendable {
    static let interval = Duration.seconds(1)

    private struct State {
        var sessions: [ObjectIdentifier: SignalingSession] = [:]
        var running = false
    }

    private let state = Mutex(State())

    /// Sessions ticked, and whether the task runs (for tests).
    var count: Int { state.withLock { $0.sessions.count } }
    var isRunning: Bool { state.withLock { $0.running } }

    func add(_ session: SignalingSession) {
        let start = state.withLock { state -> Bool in
            state.sessions[ObjectIdentifier(session)] = session
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start { Task { await run() } }
    }

    func remove(_ session: SignalingSession) {
        _ = state.withLock { $0.sessions.removeValue(forKey: ObjectIdentifier(session)) }
    }

    private func run() async {
        while true {
            try? await Task.sleep(for: Self.interval)
            let sessions = state.withLock { state -> [SignalingSession] in
                if state.sessions.isEmpty { state.running = false }
                return Array(state.sessions.values)
            }
            if sessions.isEmpty { return }
            // One after another: a tick is a few comparisons on the
            // session's actor, and a busy session delays the others' ticks
            // by its current job only.
            for session in sessions where await !session.tick() {
                // The 53002 is queued: the session's writer sends it and ends
                // the session, which then leaves; no second one is sent.
                remove(session)
            }
        }
    }
}
