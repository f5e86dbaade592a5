import Synchronization

/// A track another participant publishes. The SDK updates it; apps read it.
public final class RemoteTrackPublication: Sendable {
    public let trackSid: String
    public let trackName: String
    public let kind: TrackKind

    struct State {
        var enabled: Bool
        var interrupted = false
        var subscribed = false
    }

    let state: Mutex<State>
    /// Made with the publication (video only), handed out while subscribed.
    let videoTrack: RemoteVideoTrack?

    init(trackSid: String, trackName: String, kind: TrackKind, enabled: Bool, core: RoomCore? = nil) {
        self.trackSid = trackSid
        self.trackName = trackName
        self.kind = kind
        self.state = Mutex(State(enabled: enabled))
        videoTrack = kind == .video ? RemoteVideoTrack(sid: trackSid, name: trackName, core: core) : nil
    }

    /// The video track while this participant is subscribed to it (nil for
    /// audio and while unsubscribed), as Twilio's `remoteTrack`.
    public var remoteVideoTrack: RemoteVideoTrack? { isTrackSubscribed ? videoTrack : nil }

    /// Forwarded by the server: enabled by its publisher and not interrupted.
    public var isTrackEnabled: Bool { state.withLock { $0.enabled } }
    /// Disabled by an interruption ("camera paused"), not by its publisher ("camera off").
    public var isTrackInterrupted: Bool { state.withLock { $0.interrupted } }
    /// This participant receives it (it is on the subscriber connection).
    public var isTrackSubscribed: Bool { state.withLock { $0.subscribed } }
}
