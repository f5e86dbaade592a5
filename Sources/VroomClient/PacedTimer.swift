import NIOCore

/// Calls `tick` every `interval` on an event loop at fixed deadlines (no
/// drift: a late tick does not push the later ones back), until cancelled.
/// Confined to its event loop.
final class PacedTimer {
    private let eventLoop: any EventLoop
    private let interval: TimeAmount
    private let tick: (NIODeadline) -> Void
    private var next: NIODeadline
    private var scheduled: Scheduled<Void>?
    private var cancelled = false

    init(eventLoop: any EventLoop, interval: TimeAmount, tick: @escaping (NIODeadline) -> Void) {
        self.eventLoop = eventLoop
        self.interval = interval
        self.tick = tick
        self.next = .now() + interval
        schedule()
    }

    func cancel() {
        cancelled = true
        scheduled?.cancel()
        scheduled = nil
    }

    private func schedule() {
        let loop = NIOLoopBound(self, eventLoop: eventLoop)
        scheduled = eventLoop.scheduleTask(deadline: next) {
            loop.value.fire()
        }
    }

    private func fire() {
        guard !cancelled else { return }
        let now = NIODeadline.now()
        tick(now)
        next = next + interval
        // After a long stall, skip the missed ticks rather than bursting.
        if next < now { next = now + interval }
        if !cancelled { schedule() }
    }
}
