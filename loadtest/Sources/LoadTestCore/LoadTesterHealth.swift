import Foundation

/// The load tester's own health over a run (first join to the window's
/// end): the CPU its process used, and how late its event loops ran a task
/// due every 100 ms. A starved load tester joins late, decodes late and
/// drops what the server sent; the report then says the tester, not the
/// server, was saturated, and its failures are inconclusive.
public struct LoadTesterHealth: Sendable, Equatable, Codable {
    /// Threads of the event loop group carrying every participant.
    public var eventLoopThreads: Int
    /// Cores the machine has (this process may use all of them: the SDK's
    /// codecs and Swift concurrency run beside the event loops).
    public var cores: Int
    /// This process's mean CPU use over the run, in cores (nil when
    /// `/proc/self/stat` could not be read).
    public var cpuCores: Double?
    /// How late the event loops ran their 100 ms probe task.
    public var eventLoopLagMilliseconds: Distribution
    public var saturated: Bool
    /// Why it was saturated, one line each.
    public var reasons: [String]

    /// A probe 100 ms late at p99, or 1 s late once: the event loops are
    /// not keeping up (a healthy one runs it within a few ms).
    public static let lagP99LimitMilliseconds = 100.0
    public static let lagMaxLimitMilliseconds = 1000.0
    /// The process used 90% of every core of the machine.
    public static let coreFractionLimit = 0.9

    /// What one load tester process measured of itself: the input.
    public struct Sample: Sendable, Equatable, Codable {
        /// The machine it ran on (its host name).
        public var host: String
        public var eventLoopThreads: Int
        public var cores: Int
        /// Its CPU seconds over `seconds` (nil: /proc unreadable).
        public var cpuSeconds: Double?
        public var seconds: Double
        public var lagMilliseconds: [Double]

        public init(
            host: String = "", eventLoopThreads: Int, cores: Int, cpuSeconds: Double?, seconds: Double, lagMilliseconds: [Double]
        ) {
            self.host = host
            self.eventLoopThreads = eventLoopThreads
            self.cores = cores
            self.cpuSeconds = cpuSeconds
            self.seconds = seconds
            self.lagMilliseconds = lagMilliseconds
        }

        /// Several processes as one: their threads, CPU and lags together,
        /// over the longest of their runs, on their machines' cores (each
        /// machine counted once: `--processes` share one).
        public static func combined(_ samples: [Sample]) -> Sample? {
            guard let first = samples.first else { return nil }
            let cpu = samples.allSatisfy { $0.cpuSeconds != nil } ? samples.reduce(0) { $0 + ($1.cpuSeconds ?? 0) } : nil
            var coresByHost: [String: Int] = [:]
            for sample in samples { coresByHost[sample.host] = sample.cores }
            return Sample(
                host: Set(samples.map(\.host)).count == 1 ? first.host : "",
                eventLoopThreads: samples.reduce(0) { $0 + $1.eventLoopThreads },
                cores: coresByHost.values.reduce(0, +), cpuSeconds: cpu,
                seconds: samples.map(\.seconds).max() ?? 0, lagMilliseconds: samples.flatMap(\.lagMilliseconds))
        }
    }

    public init(_ sample: Sample) {
        self.init(
            eventLoopThreads: sample.eventLoopThreads, cores: sample.cores, cpuSeconds: sample.cpuSeconds,
            seconds: sample.seconds, lagMilliseconds: sample.lagMilliseconds)
    }

    public init(eventLoopThreads: Int, cores: Int, cpuSeconds: Double?, seconds: Double, lagMilliseconds: [Double]) {
        self.eventLoopThreads = eventLoopThreads
        self.cores = cores
        cpuCores = cpuSeconds.flatMap { seconds > 0 ? $0 / seconds : nil }
        eventLoopLagMilliseconds = Distribution(milliseconds: lagMilliseconds)
        var reasons: [String] = []
        let lag = eventLoopLagMilliseconds
        if let p99 = lag.p99, p99 >= Self.lagP99LimitMilliseconds {
            reasons.append(String(format: "its event loops ran a task due every 100 ms %.0f ms late at p99", p99))
        }
        if let max = lag.max, max >= Self.lagMaxLimitMilliseconds {
            reasons.append(String(format: "its event loops were once %.1f s late", max / 1000))
        }
        if let used = cpuCores, cores > 0, used / Double(cores) >= Self.coreFractionLimit {
            reasons.append(String(format: "it used %.2f of the machine's %d cores", used, cores))
        }
        self.reasons = reasons
        saturated = !reasons.isEmpty
    }
}
