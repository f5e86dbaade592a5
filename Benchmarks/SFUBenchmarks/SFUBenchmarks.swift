// Forwarding budgets (filled by the media-plane issue).
import Benchmark

let benchmarks: @Sendable () -> Void = {}
