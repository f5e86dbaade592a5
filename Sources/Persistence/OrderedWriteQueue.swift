import Synchronization

/// Batches written one at a time, in the order they were enqueued, by one
/// task; ``caughtUp(within:)`` waits for those enqueued before it. A batch
/// whose write fails for a reason that may pass (the database is away) is
/// tried again, after a wait that doubles up to `maxBackoff`, before any
/// later one: order is kept and nothing is lost while the store catches up.
///
/// `Sendable`: its state is behind a `Mutex`; the stream's continuation is
/// `Sendable`.
public final class OrderedWriteQueue<Batch: Sendable>: Sendable {
    private struct State {
        var enqueued: UInt64 = 0
        var written: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [(id: UInt64, target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        /// Waiters cancelled before they started waiting.
        var cancelled: Set<UInt64> = []
        /// The last write failed and waits to be tried again.
        var failing = false
    }

    /// The state, in a box the worker task can share before init ends.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let input: AsyncStream<(UInt64, Batch)>.Continuation
    private let worker: Task<Void, Never>
    public let maxPending: Int

    /// - Parameters:
    ///   - write: writes one batch; throws when it could not.
    ///   - isTransient: whether a write's error may pass if tried again.
    ///   - finished: called once per batch with nil, or the error it was given up for.
    public init(
        maxPending: Int, maxBackoff: Duration = .seconds(5),
        write: @escaping @Sendable (Batch) async throws -> Void,
        isTransient: @escaping @Sendable (any Error) -> Bool,
        finished: @escaping @Sendable (Batch, (any Error)?) -> Void
    ) {
        self.maxPending = maxPending
        let (stream, input) = AsyncStream.makeStream(of: (UInt64, Batch).self)
        self.input = input
        let shared = shared
        worker = Task {
            for await (number, batch) in stream {
                var backoff = Duration.milliseconds(100)
                var outcome: (any Error)?
                while true {
                    do {
                        try await write(batch)
                        outcome = nil
                        break
                    } catch {
                        outcome = error
                        guard isTransient(error), !Task.isCancelled else { break }
                        // Readers stop waiting: they read what is written.
                        let waiting = shared.state.withLock { state in
                            state.failing = true
                            defer { state.waiters.removeAll() }
                            return state.waiters.map(\.continuation)
                        }
                        for continuation in waiting { continuation.resume() }
                        try? await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, maxBackoff)
                    }
                }
                finished(batch, outcome)
                let ready = shared.state.withLock { state in
                    state.written = number
                    state.failing = false
                    let ready = state.waiters.filter { $0.target <= number }.map(\.continuation)
                    state.waiters.removeAll { $0.target <= number }
                    return ready
                }
                for continuation in ready { continuation.resume() }
            }
        }
    }

    deinit {
        input.finish()
    }

    /// Enqueues a batch; false, enqueuing nothing, when `maxPending` already wait.
    public func enqueue(_ batch: Batch) -> Bool {
        shared.state.withLock { state in
            guard state.enqueued - state.written < UInt64(maxPending) else { return false }
            state.enqueued += 1
            input.yield((state.enqueued, batch))
            return true
        }
    }

    /// Batches enqueued and not yet written.
    public var pending: Int { shared.state.withLock { Int($0.enqueued - $0.written) } }

    /// Waits until every batch enqueued before this call is written. While
    /// writes fail (the database is away), or once `limit` has passed, it
    /// returns at once: reads go ahead on what is written, since a database
    /// that is away must not hang every REST read.
    public func caughtUp(within limit: Duration) async {
        let target = shared.state.withLock { $0.enqueued }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitUntilWritten(target) }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once batch `target` is written, or at once when cancelled.
    private func waitUntilWritten(_ target: UInt64) async {
        let id = shared.state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = shared.state.withLock { state -> Bool in
                    if state.written >= target || state.failing || state.cancelled.remove(id) != nil { return true }
                    state.waiters.append((id, target, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = shared.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)  // not waiting yet: it returns when it gets there
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiting?.resume()
        }
    }

    /// Stops taking batches and waits for those enqueued to be written.
    public func finish() async {
        input.finish()
        await worker.value
    }
}
