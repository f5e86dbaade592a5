import Foundation
import Persistence
import Synchronization

/// REST actions carried to a room's owner through PostgreSQL's
/// LISTEN/NOTIFY (PROTOCOL.md section 8). Each node listens on its own
/// channel, `vroom_node_<id>` (``channel``). A request is one notification
/// on the owner's channel, `q <request id> <asker's channel>` then a line
/// break and the request text; the owner answers on the asker's channel
/// with `a <request id>`, a line break and the answer text. No escaping:
/// the texts travel as they are.
extension ClusterNode: RoomActionRelay {
    /// How long an asker waits for the owner's answer.
    public static let relayTimeout = Duration.seconds(5)

    /// The largest request text sent: NOTIFY carries at most 7999 bytes, and
    /// an answer can repeat its request (a message's content, subscribe
    /// rules), so a request leaves about 1000 bytes for the rest of the answer.
    public static let maxRelayedRequestBytes = 7000

    /// The LISTEN channel of the node with this ID.
    public static func channel(nodeID: String) -> String { "vroom_node_" + nodeID.lowercased() }

    /// This node's channel.
    public var channel: String { Self.channel(nodeID: id) }

    /// Listens on ``channel`` until cancelled (reconnecting when the
    /// database connection drops), answering each request with `serve`
    /// and handing answers to the ``relay(room:request:)`` waiting for them.
    public func serveRelayedActions(_ serve: @escaping @Sendable (String) async -> String) async {
        let relay = relayState, logger = logger, database = nodes.database
        await database.listen(
            channel: channel,
            listening: { relay.listening.store($0, ordering: .relaxed) },
            received: { payload in
                guard let newline = payload.firstIndex(of: "\n") else {
                    logger.warning("cluster: malformed notification ignored")
                    return
                }
                let header = payload[..<newline].split(separator: " ").map(String.init)
                let body = String(payload[payload.index(after: newline)...])
                switch header.first {
                case "q" where header.count == 3:
                    let (requestID, replyChannel) = (header[1], header[2])
                    // Each request on its own task: a slow action does not
                    // hold up the answers this node is waiting for.
                    Task {
                        var answer = "a \(requestID)\n" + (await serve(body))
                        if answer.utf8.count > PostgresDatabase.maxNotificationBytes {
                            logger.error("cluster: answer to \(requestID) is \(answer.utf8.count) bytes, over NOTIFY's limit")
                            answer = "a \(requestID)\n"
                        }
                        do {
                            try await database.notify(channel: replyChannel, payload: answer)
                        } catch {
                            logger.warning("cluster: cannot answer \(requestID) on \(replyChannel): \(error)")
                        }
                    }
                case "a" where header.count == 2:
                    relay.deliver(header[1], body)
                default:
                    logger.warning("cluster: malformed notification ignored")
                }
            })
    }

    public func relay(room uniqueName: String, request: String) async -> RelayOutcome {
        let nodes = nodes
        let owner: PostgresNodeTable.NodeRow?
        do {
            owner = try await withTimeout(Self.placementTimeout) { try await nodes.owner(uniqueName: uniqueName) }
        } catch {
            return .unavailable(reason: "the cluster's database is unavailable")
        }
        guard let owner, owner.id != id else { return .local }
        guard owner.live else { return .unavailable(reason: "the node that hosts the room is not live") }
        guard request.utf8.count <= Self.maxRelayedRequestBytes else {
            return .requestTooLarge(limit: Self.maxRelayedRequestBytes)
        }
        guard relayState.listening.load(ordering: .relaxed) else {
            return .unavailable(reason: "this node cannot hear answers (the database connection is down)")
        }
        let requestID = UUID().uuidString.lowercased()
        let slot = relayState.expect(requestID)
        defer { relayState.forget(requestID) }
        do {
            try await withTimeout(Self.placementTimeout) { [channel] in
                try await nodes.database.notify(
                    channel: Self.channel(nodeID: owner.id), payload: "q \(requestID) \(channel)\n" + request)
            }
        } catch {
            return .unavailable(reason: "the cluster's database is unavailable")
        }
        let timer = Task {
            try? await Task.sleep(for: Self.relayTimeout)
            slot.deliver(nil)
        }
        defer { timer.cancel() }
        guard let answer = await slot.wait() else {
            return .unavailable(reason: "the node that hosts the room did not answer within 5 s")
        }
        return .answered(answer)
    }
}

/// The requests this node waits on, and whether it listens.
final class RelayState: Sendable {
    let listening = Atomic<Bool>(false)
    private let waiting = Mutex<[String: AnswerSlot]>([:])

    func expect(_ requestID: String) -> AnswerSlot {
        let slot = AnswerSlot()
        waiting.withLock { $0[requestID] = slot }
        return slot
    }

    func forget(_ requestID: String) {
        _ = waiting.withLock { $0.removeValue(forKey: requestID) }
    }

    /// An answer: to its waiting request, or dropped (it came too late).
    func deliver(_ requestID: String, _ answer: String) {
        waiting.withLock { $0[requestID] }?.deliver(answer)
    }
}

/// One answer, which may arrive before or after its request starts waiting;
/// the first delivery counts (the answer, or nil at the timeout).
final class AnswerSlot: Sendable {
    private struct State {
        var delivered = false
        var answer: String?
        var waiter: CheckedContinuation<String?, Never>?
    }
    private let state = Mutex(State())

    func deliver(_ answer: String?) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard !state.delivered else { return nil }
            state.delivered = true
            state.answer = answer
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: answer)
    }

    func wait() async -> String? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (Bool, String?) in
                if state.delivered { return (true, state.answer) }
                state.waiter = continuation
                return (false, nil)
            }
            if ready.0 { continuation.resume(returning: ready.1) }
        }
    }
}
