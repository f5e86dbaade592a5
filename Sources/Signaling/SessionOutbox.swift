import Node
import Rooms
import Synchronization

/// What a session's writer sends, in order.
enum OutboxItem: Sendable {
    /// A ready message (replies, `joined`).
    case message(ServerMessage)
    /// A room notice, turned into a message by the writer (a
    /// `subscriptionsChanged` becomes a `subscribeOffer`, built then).
    case notice(ParticipantNotice)
    /// Send this last and close the socket.
    case finalMessage(ServerMessage)
}

/// A session's bounded queue of outgoing messages, and its face towards the
/// `RoomHost`. Enqueuing never waits: a client that does not read fills the
/// queue, and then the queue closes (PROTOCOL.md 3.6: a client whose outbox
/// overflows is cut off and treated as a drop), so it never stalls the room.
final class SessionOutbox: ParticipantConnection, Sendable {
    let items: AsyncStream<OutboxItem>
    private let continuation: AsyncStream<OutboxItem>.Continuation
    private let state = Mutex(State())

    private struct State {
        var overflowed = false
        var replaced = false
        var joined: (participant: ParticipantSID, room: RoomSID)?
    }

    init(capacity: Int) {
        (items, continuation) = AsyncStream.makeStream(of: OutboxItem.self, bufferingPolicy: .bufferingOldest(capacity))
    }

    func deliver(_ notice: ParticipantNotice) {
        if case .disconnected(let error) = notice {
            send(.finalMessage(.disconnected(code: error.protocolCode, message: error.message)))
        } else {
            send(.notice(notice))
        }
    }

    /// The room moved to another node: `reconnect`, then close (not a drop).
    func roomMoved(to signalingURL: String) {
        state.withLock { $0.replaced = true }
        send(.finalMessage(.reconnect(url: signalingURL)))
    }

    /// A resume on another socket took this participant over: close quietly.
    func connectionReplaced() {
        state.withLock { $0.replaced = true }
        continuation.finish()
    }

    func send(_ item: OutboxItem) {
        if case .dropped = continuation.yield(item) {
            state.withLock { $0.overflowed = true }
            continuation.finish()
        }
    }

    /// Ends the stream after what is queued.
    func finish() {
        continuation.finish()
    }

    /// Records who joined, on the room host, before the join's events are
    /// routed: the writer may need it for an offer before the session's
    /// `join` has resumed.
    func markJoined(participant: ParticipantSID, room: RoomSID) {
        state.withLock { $0.joined = (participant, room) }
    }

    var joined: (participant: ParticipantSID, room: RoomSID)? { state.withLock { $0.joined } }

    var overflowed: Bool { state.withLock { $0.overflowed } }
    var replaced: Bool { state.withLock { $0.replaced } }
}
