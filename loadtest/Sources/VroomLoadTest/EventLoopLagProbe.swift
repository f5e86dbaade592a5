import NIOCore
import NIOPosix
import Synchronization

/// On every event loop of a group, a task due every 100 ms that records
/// how late it ran: a loop kept busy by its participants runs it late. The
/// samples go to `LoadTesterHealth`.
final class EventLoopLagProbe: Sendable {
    static let interval = TimeAmount.milliseconds(100)
    private let loops: [any EventLoop]
    private let state = Mutex<(running: Bool, lags: [Double])>((false, []))

    init(group: MultiThreadedEventLoopGroup) {
        var loops: [any EventLoop] = []
        for loop in group.makeIterator() { loops.append(loop) }
        self.loops = loops
    }

    var loopCount: Int { loops.count }

    func start() {
        state.withLock { $0.running = true }
        for loop in loops { schedule(on: loop) }
    }

    /// Stops the probes; the lags recorded, in milliseconds.
    func stop() -> [Double] {
        state.withLock { state in
            state.running = false
            return state.lags
        }
    }

    private func schedule(on loop: any EventLoop) {
        let due = NIODeadline.now() + Self.interval
        loop.scheduleTask(deadline: due) { [self] in
            let late = NIODeadline.now() - due
            let running = state.withLock { state in
                if state.running { state.lags.append(Double(late.nanoseconds) / 1e6) }
                return state.running
            }
            if running { schedule(on: loop) }
        }
    }
}
