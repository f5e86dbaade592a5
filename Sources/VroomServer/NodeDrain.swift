import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The node's draining state (PROTOCOL.md section 6, `/readyz`), entered when
/// graceful shutdown begins (SIGTERM, SIGINT, `POST /v1/Node/Drain`). Another
/// SIGTERM or SIGINT while draining ends the wait at once (`stopWaiting`).
///
/// As a service it sits last in the `ServiceGroup`, so it is the first to
/// hear of the shutdown: it marks the node draining, then holds the HTTP
/// server open until the last participant has left or
/// `shutdown.drainTimeoutSeconds` have passed, then moves the rooms that
/// remain (a cluster member). Only then does the group stop
/// the HTTP server, so a load balancer polling `/readyz` sees `draining`
/// while the rooms finish.
final class NodeDrain: Service {
    private let draining = Atomic<Bool>(false)
    private let waitStopped = Atomic<Bool>(false)
    private let timeout: Duration
    private let participants: @Sendable () async -> Int
    private let started: @Sendable () async -> Void
    private let moveRooms: @Sendable () async -> Int
    private let logger: Logger

    /// How long the sockets of moved participants get to send their
    /// `reconnect` before the HTTP server stops.
    static let moveGrace = Duration.seconds(1)

    /// - Parameters:
    ///   - started: runs once the node is draining (a cluster member tells
    ///     the others, so no new room is placed on it).
    ///   - moveRooms: runs at the timeout, or once no participant is left
    ///     (a cluster member moves its rooms in progress, empty or not, to
    ///     other nodes); returns how many participants it told to go (one
    ///     node alone: none).
    init(
        timeout: Duration, logger: Logger, participants: @escaping @Sendable () async -> Int,
        started: @escaping @Sendable () async -> Void = {}, moveRooms: @escaping @Sendable () async -> Int = { 0 }
    ) {
        self.timeout = timeout
        self.logger = logger
        self.participants = participants
        self.started = started
        self.moveRooms = moveRooms
    }

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Ends the wait for the last participant now, or as soon as the drain
    /// begins (a second SIGTERM or SIGINT): the rooms move, or end with the
    /// node, as at the timeout.
    func stopWaiting() { waitStopped.store(true, ordering: .relaxed) }

    func run() async throws {
        // Throws only when the group is cancelled: then there is nothing to drain.
        do { try await gracefulShutdown() } catch { return }
        draining.store(true, ordering: .relaxed)
        await started()
        let deadline = ContinuousClock.now + timeout
        var remaining = await participants()
        logger.notice("draining: \(remaining) participant(s), stopping within \(timeout)")
        // 100 ms: a departure is noticed well within a load balancer's probe period (Kubernetes: 10 s).
        while remaining > 0, ContinuousClock.now < deadline, !waitStopped.load(ordering: .relaxed) {
            try? await Task.sleep(for: .milliseconds(100))
            if Task.isCancelled { return }
            remaining = await participants()
        }
        // A cluster member hands its rooms over, empty ones too (issue 14:
        // at the timeout or once they are empty); the participants leave
        // this node's count at once, and their `reconnect` messages get a
        // moment to go out before the HTTP server stops.
        if await moveRooms() > 0 {
            try? await Task.sleep(for: Self.moveGrace)
            remaining = await participants()
        }
        if remaining > 0 {
            let why = waitStopped.load(ordering: .relaxed) ? "drain ended by a second signal" : "drain timeout"
            logger.notice("\(why): stopping with \(remaining) participant(s)")
        }
    }
}
