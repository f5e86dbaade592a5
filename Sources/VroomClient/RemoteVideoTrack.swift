import Synchronization

/// A subscribed video track of another participant, shaped like Twilio's
/// `RemoteVideoTrack`: whether the server forwards it (switch-off,
/// PROTOCOL.md section 7) and this subscriber's wishes for it (render
/// size, priority, manual switch-off). Reach it through
/// `RemoteTrackPublication.remoteVideoTrack`.
///
/// The switch-off state follows the server's `trackSwitchedOff` and
/// `trackSwitchedOn` events only: `switchOff()` asks, and the state
/// changes when the server says it did.
public final class RemoteVideoTrack: Sendable {
    public let sid: String
    public let name: String

    struct State {
        var switchedOff = false
        var reason: TrackSwitchOffReason?
        var priority: TrackPriority?
        var renderDimensions: VideoDimensions?
        /// The room that sends this track's requests; nil once it is gone.
        weak var core: RoomCore?
    }

    let state: Mutex<State>

    init(sid: String, name: String, core: RoomCore?) {
        self.sid = sid
        self.name = name
        state = Mutex(State(core: core))
    }

    /// The server forwards no layer of it (the track stays subscribed).
    public var isSwitchedOff: Bool { state.withLock { $0.switchedOff } }

    /// Why it is switched off; nil while it is on (or the server gave a
    /// reason this SDK does not know).
    public var switchOffReason: TrackSwitchOffReason? { state.withLock { $0.reason } }

    /// This subscriber's priority for it, overriding its publisher's
    /// (`setTrackPriority`); nil clears the override.
    public var priority: TrackPriority? {
        get { state.withLock { $0.priority } }
        set {
            let core = state.withLock { state in
                state.priority = newValue
                return state.core
            }
            core?.sendTrackRequest { .setTrackPriority(id: $0, trackSid: self.sid, priority: newValue) }
        }
    }

    /// The size it was last said to be rendered at.
    public var renderDimensions: VideoDimensions? { state.withLock { $0.renderDimensions } }

    /// Tells the server the size it is rendered at, so it forwards no
    /// layer larger than that (`setContentPreferences`).
    public func setContentPreferences(renderDimensions: VideoDimensions) {
        let core = state.withLock { state in
            state.renderDimensions = renderDimensions
            return state.core
        }
        core?.sendTrackRequest { .setContentPreferences(id: $0, trackSid: self.sid, renderDimensions: renderDimensions) }
    }

    /// Asks the server to stop forwarding it (needs
    /// `clientTrackSwitchOffControl: .manual`); the delegate then hears
    /// `didSwitchOffVideoTrack` with `disabledBySubscriber`.
    public func switchOff() {
        state.withLock { $0.core }?.sendTrackRequest { .switchOffTrack(id: $0, trackSid: self.sid) }
    }

    /// Asks the server to forward it again (manual control).
    public func switchOn() {
        state.withLock { $0.core }?.sendTrackRequest { .switchOnTrack(id: $0, trackSid: self.sid) }
    }

    /// Applies a server event; true if the state changed.
    func setSwitchedOff(_ off: Bool, reason: TrackSwitchOffReason?) -> Bool {
        state.withLock { state in
            let changed = state.switchedOff != off || (off && state.reason != reason)
            state.switchedOff = off
            state.reason = off ? reason : nil
            return changed
        }
    }
}
