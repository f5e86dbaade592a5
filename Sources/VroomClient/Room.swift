import Foundation
import NIOPosix

/// A video room this client is in, shaped like Twilio Video's `Room`:
/// `connect`, then watch the delegate (or `events`) for the room's life.
public final class Room: Sendable {
    /// connecting → connected ⇄ reconnecting → disconnected.
    public enum State: String, Sendable {
        case connecting
        case connected
        case reconnecting
        case disconnected
    }

    let core: RoomCore

    private init(core: RoomCore) {
        self.core = core
    }

    deinit {
        core.disconnect()
    }

    /// Joins the room named in `options` (or in the token) on the server at
    /// `url` (its base URL, e.g. `http://127.0.0.1:7880`; `https` means `wss`).
    /// Returns at once in `.connecting`; the delegate then hears
    /// `roomDidConnect` or `roomDidFailToConnect` (53000 when the server
    /// cannot be reached or redirects more than 3 times, else the server's
    /// code).
    ///
    /// In a cluster (PROTOCOL.md 8) the join follows the server's
    /// `redirect` to the node that owns the room. When that node drains,
    /// the room moves: the delegate hears `roomIsReconnecting` (53001),
    /// the session resumes on the new node with new media connections,
    /// then `roomDidReconnect`; the same happens when the node dies and
    /// the session resumes elsewhere (see `ConnectOptions.fallbackURLs`).
    public static func connect(to url: URL, options: ConnectOptions, delegate: (any RoomDelegate)? = nil) -> Room {
        let group = options.eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        let core = RoomCore(url: url, options: options, eventLoop: group.next())
        let room = Room(core: core)
        core.start(room: room, delegate: delegate)
        return room
    }

    public var state: State { core.shared.withLock { $0.state } }
    /// The unique name asked for, then the room's name once connected.
    public var name: String { core.shared.withLock { $0.name } }
    /// `RM…`, once connected.
    public var sid: String? { core.shared.withLock { $0.sid } }
    public var localParticipant: LocalParticipant? { core.shared.withLock { $0.localParticipant } }
    /// The signaling URL (`ws://host:port/v1/signal`) of the node the room
    /// was last joined through: after redirects and moves, where the
    /// session lives. nil until connected.
    public var signalingURL: URL? { core.shared.withLock { $0.signalingURL }.flatMap { URL(string: $0) } }
    /// In the order they joined.
    public var remoteParticipants: [RemoteParticipant] { core.shared.withLock { $0.remoteParticipants } }

    public func remoteParticipant(sid: String) -> RemoteParticipant? {
        remoteParticipants.first { $0.sid == sid }
    }

    public func remoteParticipant(identity: String) -> RemoteParticipant? {
        remoteParticipants.first { $0.identity == identity }
    }

    /// Held weakly; called on `ConnectOptions.delegateQueue`.
    public var delegate: (any RoomDelegate)? {
        get { core.shared.withLock { $0.delegate } }
        set { core.shared.withLock { $0.delegate = newValue } }
    }

    /// The room's events from now on, for Swift concurrency users. Each
    /// access makes a new stream; it ends when the room disconnects. The
    /// newest 10,000 events are kept for a reader that falls behind.
    public var events: AsyncStream<RoomEvent> { core.streams.makeStream() }

    /// Leaves the room (idempotent). The delegate hears `roomDidDisconnect` with no error.
    public func disconnect() {
        core.disconnect()
    }

    /// Sends a user-defined message (PROTOCOL.md 3.5) to `identities`
    /// (nil: everyone else). Returns the local id that `didSendMessage` or
    /// `didFailToSendMessage` will name.
    @discardableResult
    public func sendMessage(_ content: String, contentType: String = "application/json", to identities: [String]? = nil)
        -> String
    {
        core.sendMessage(content, contentType: contentType, to: identities)
    }

    /// What was sent and received so far, per track.
    public func statistics() async -> RoomStatistics {
        await core.statistics()
    }
}
