import Foundation
import Synchronization

/// This process's CPU use between two samples, in cores (1.0 = one core busy).
public final class ProcessCPU: Sendable {
    private let last = Mutex<(wall: ContinuousClock.Instant, cpu: Double)?>(nil)

    public init() {}

    /// User plus system CPU seconds of this process so far (getrusage).
    public static func totalSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }

    /// Cores used since the previous call (0 the first time).
    public func sample() -> Double {
        let cpu = Self.totalSeconds()
        let now = ContinuousClock.now
        return last.withLock { last in
            defer { last = (now, cpu) }
            guard let previous = last else { return 0 }
            let seconds = Double((now - previous.wall).components.seconds)
                + Double((now - previous.wall).components.attoseconds) / 1e18
            return seconds > 0 ? (cpu - previous.cpu) / seconds : 0
        }
    }
}
