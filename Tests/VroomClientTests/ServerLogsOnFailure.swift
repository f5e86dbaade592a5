import Synchronization
import Testing
import VroomTesting

/// Prints the logs of the `vroom-server` processes a test started when the
/// test fails (an expectation, or an error thrown such as a wait's
/// timeout), so that a failure seen once in CI can be read afterwards.
struct ServerLogsOnFailure: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let watch = ServerLogWatch.open()
        defer { watch.close() }
        let failed = Mutex(false)
        let noticing = IssueHandlingTrait.compactMapIssues { issue in
            if issue.isFailure { failed.withLock { $0 = true } }
            return issue
        }
        do {
            try await noticing.provideScope(for: test, testCase: testCase, performing: function)
        } catch {
            print("\(test.name) threw \(error); its servers' logs:\n\(watch.report())")
            throw error
        }
        if failed.withLock({ $0 }) { print("\(test.name) failed; its servers' logs:\n\(watch.report())") }
    }
}

extension Trait where Self == ServerLogsOnFailure {
    static var serverLogsOnFailure: Self { Self() }
}
