import Dispatch
import Synchronization
import Testing

@testable import Node

/// `withTimeout` answers at its limit even when the body ignores its
/// cancellation, as a postgres-nio query in flight does.
@Suite struct DatabaseTimeoutTests {
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// A body that ignores cancellation and answers after `seconds`.
    static func deaf(seconds: Double, finished: Flag? = nil) async -> Int {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                finished?.set()
                continuation.resume(returning: 7)
            }
        }
    }

    @Test func aBodyThatIgnoresCancellationDoesNotHoldTheCallerPastTheLimit() async throws {
        let finished = Flag()
        await #expect(throws: DatabaseTimeout.self) {
            try await withTimeout(.milliseconds(50)) { await Self.deaf(seconds: 10, finished: finished) }
        }
        #expect(!finished.isSet, "the caller was answered before the body finished")
    }

    @Test func aBodyWithinTheLimitAnswersAndItsErrorsPassThrough() async throws {
        #expect(try await withTimeout(.seconds(30)) { await Self.deaf(seconds: 0.01) } == 7)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await withTimeout(.seconds(30)) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func cancellingTheCallerAnswersAtOnceWithCancellation() async throws {
        let finished = Flag()
        let caller = Task { try await withTimeout(.seconds(30)) { await Self.deaf(seconds: 10, finished: finished) } }
        try await Task.sleep(for: .milliseconds(20))
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(!finished.isSet)
    }
}
