import Synchronization

/// The shared mutable part of a local track: the user's enabled flag, the
/// interruption that pauses it, and who to tell when the flag changes (the
/// room that publishes it).
final class LocalTrackState: Sendable {
    private struct State {
        var enabled: Bool
        var interrupted = false
        var onChange: (@Sendable (Bool) -> Void)?
    }

    private let state: Mutex<State>

    init(enabled: Bool) {
        state = Mutex(State(enabled: enabled))
    }

    var isEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set {
            let callback = state.withLock { state -> (@Sendable (Bool) -> Void)? in
                guard state.enabled != newValue else { return nil }
                state.enabled = newValue
                return state.onChange
            }
            callback?(newValue)
        }
    }

    var isInterrupted: Bool {
        get { state.withLock { $0.interrupted } }
        set { state.withLock { $0.interrupted = newValue } }
    }

    func observe(_ onChange: (@Sendable (Bool) -> Void)?) {
        state.withLock { $0.onChange = onChange }
    }
}
