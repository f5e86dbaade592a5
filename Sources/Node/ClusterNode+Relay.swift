import Foundation
import Persistence
import Synchronization

/// REST actions carried to a room's owner through PostgreSQL's
/// LISTEN/NOTIFY (PROTOCOL.md section 8). Each node listens on its own
/// channel, `vroom_node_<id>` (``channel``). A request travels on the
/// owner's channel as notifications `q <request id> <asker's channel>
/// <index> <count>`, a line break and a part of the request text; the
/// owner answers on the asker's channel with `a <request id> <index>
/// <count>`, a line break and a part of the answer text. A text goes in as
/// many parts as NOTIFY's 8000-byte payload limit needs (a 10 KB message, 64
/// KiB of subscribe rules, a long list), cut between characters, and is
/// put together again by index. No escaping: the texts travel as they are.
extension ClusterNode: RoomActionRelay {
    /// How long an asker waits for the owner's answer.
    public static let relayTimeout = Duration.seconds(5)

    /// The most bytes of text in one notification: NOTIFY's limit less
    /// room for the header (at most about 100 bytes).
    static let partBytes = PostgresDatabase.maxNotificationBytes - 199

    /// The LISTEN channel of the node with this ID.
    public static func channel(nodeID: String) -> String { "vroom_node_" + nodeID.lowercased() }

    /// This node's channel.
    public var channel: String { Self.channel(nodeID: id) }

    /// `text` in parts of at most `partBytes` UTF-8 bytes, cut between
    /// Unicode scalars (each part is valid text); one empty part for "".
    static func parts(_ text: String, partBytes: Int = partBytes) -> [String] {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var size = 0
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            if size + width > partBytes {
                parts.append(String(current))
                current = String.UnicodeScalarView()
                size = 0
            }
            current.append(scalar)
            size += width
        }
        parts.append(String(current))
        return parts
    }

    /// Sends `text` to `channel` in parts, each headed `header index count`.
    private static func send(_ text: String, header: String, to channel: String, database: PostgresDatabase) async throws {
        let parts = parts(text)
        for (index, part) in parts.enumerated() {
            try await database.notify(channel: channel, payload: "\(header) \(index) \(parts.count)\n" + part)
        }
    }

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
                let part = String(payload[payload.index(after: newline)...])
                switch header.first {
                case "q" where header.count == 5:
                    let (requestID, replyChannel) = (header[1], header[2])
                    guard let request = relay.requests.add("\(requestID) \(replyChannel)", header[3], header[4], part) else { return }
                    // Each request on its own task: a slow action does not
                    // hold up the answers this node is waiting for.
                    Task {
                        let answer = await serve(request)
                        do {
                            try await Self.send(answer, header: "a \(requestID)", to: replyChannel, database: database)
                        } catch {
                            logger.warning("cluster: cannot answer \(requestID) on \(replyChannel): \(error)")
                        }
                    }
                case "a" where header.count == 4:
                    guard let answer = relay.answers.add(header[1], header[2], header[3], part) else { return }
                    relay.deliver(header[1], answer)
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
        guard relayState.listening.load(ordering: .relaxed) else {
            return .unavailable(reason: "this node cannot hear answers (the database connection is down)")
        }
        let requestID = UUID().uuidString.lowercased()
        let slot = relayState.expect(requestID)
        defer { relayState.forget(requestID) }
        let timer = Task {
            try? await Task.sleep(for: Self.relayTimeout)
            slot.deliver(nil)
        }
        defer { timer.cancel() }
        do {
            try await withTimeout(Self.placementTimeout) { [channel] in
                try await Self.send(
                    request, header: "q \(requestID) \(channel)", to: Self.channel(nodeID: owner.id),
                    database: nodes.database)
            }
        } catch {
            return .unavailable(reason: "the cluster's database is unavailable")
        }
        guard let answer = await slot.wait() else {
            return .unavailable(reason: "the node that hosts the room did not answer within 5 s")
        }
        return .answered(answer)
    }
}

/// Texts arriving in parts, put together: a text is complete when all its
/// parts are in. Parts of a text that stays incomplete for 30 s (a part
/// lost while the connection was down) are dropped.
final class PartAssembler: Sendable {
    private struct Pending {
        var parts: [String?]
        var started: ContinuousClock.Instant
    }
    private let pending = Mutex<[String: Pending]>([:])

    /// Adds part `index` of `count` of the text `key`; the whole text once
    /// this was its last missing part, else nil (also for a malformed header).
    func add(_ key: String, _ index: String, _ count: String, _ part: String) -> String? {
        guard let index = Int(index), let count = Int(count), count >= 1, count <= 10_000, (0..<count).contains(index) else {
            return nil
        }
        if count == 1 { return part }
        let now = ContinuousClock.now
        return pending.withLock { pending -> String? in
            pending = pending.filter { now - $0.value.started < .seconds(30) }
            var entry = pending[key] ?? Pending(parts: Array(repeating: nil, count: count), started: now)
            guard entry.parts.count == count else { return nil }
            entry.parts[index] = part
            let whole = entry.parts.compactMap { $0 }
            guard whole.count == count else {
                pending[key] = entry
                return nil
            }
            pending[key] = nil
            return whole.joined()
        }
    }
}

/// The requests this node waits on, and whether it listens.
final class RelayState: Sendable {
    let listening = Atomic<Bool>(false)
    /// Requests and answers arriving in parts.
    let requests = PartAssembler()
    let answers = PartAssembler()
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
