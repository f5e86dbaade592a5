import Synchronization

/// The database did not answer in time.
struct DatabaseTimeout: Error {}

/// `body`'s result, or ``DatabaseTimeout`` once `limit` has passed. The
/// caller is answered at the limit even when `body` does not stop when
/// cancelled (a postgres-nio query in flight waits for the server's reply
/// whatever its task says): `body` then runs on, cancelled, unobserved.
/// A task group would wait for it.
func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = TimeoutRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, limit: limit, body: body)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The body and the timer of one `withTimeout`: whichever finishes first
/// answers the caller, once, and cancels the other.
private final class TimeoutRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var tasks: [Task<Void, Never>] = []
        var finished = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, limit: Duration, body: @escaping @Sendable () async throws -> T) {
        let cancelledFirst = state.withLock { state in
            if !state.finished { state.continuation = continuation }
            return state.finished
        }
        if cancelledFirst {
            continuation.resume(throwing: CancellationError())
            return
        }
        let work = Task {
            do {
                self.finish(.success(try await body()))
            } catch {
                self.finish(.failure(error))
            }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            self.finish(.failure(DatabaseTimeout()))
        }
        let finishedMeanwhile = state.withLock { state in
            if !state.finished { state.tasks = [work, timer] }
            return state.finished
        }
        if finishedMeanwhile {
            work.cancel()
            timer.cancel()
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
