import Synchronization

/// Another participant of the room.
public final class RemoteParticipant: Sendable {
    public let sid: String
    public let identity: String

    public enum State: String, Sendable {
        case connected
        case reconnecting
        case disconnected
    }

    struct Fields {
        var state: State
        var publications: [RemoteTrackPublication]
        weak var delegate: (any RemoteParticipantDelegate)?
    }

    let fields: Mutex<Fields>

    init(sid: String, identity: String, state: State, publications: [RemoteTrackPublication]) {
        self.sid = sid
        self.identity = identity
        self.fields = Mutex(Fields(state: state, publications: publications))
    }

    public var state: State { fields.withLock { $0.state } }

    /// Held weakly; called on the room's delegate queue.
    public var delegate: (any RemoteParticipantDelegate)? {
        get { fields.withLock { $0.delegate } }
        set { fields.withLock { $0.delegate = newValue } }
    }

    public var trackPublications: [RemoteTrackPublication] { fields.withLock { $0.publications } }
    public var audioTrackPublications: [RemoteTrackPublication] { trackPublications.filter { $0.kind == .audio } }
    public var videoTrackPublications: [RemoteTrackPublication] { trackPublications.filter { $0.kind == .video } }

    public func publication(trackSid: String) -> RemoteTrackPublication? {
        trackPublications.first { $0.trackSid == trackSid }
    }

    public func publication(named name: String) -> RemoteTrackPublication? {
        trackPublications.first { $0.trackName == name }
    }
}
