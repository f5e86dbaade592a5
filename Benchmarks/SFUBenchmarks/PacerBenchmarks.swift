import Benchmark
import Packets
import SFU

/// The pacer's per-packet cost: one enqueue and one dequeue per packet, a
/// mix of classes, at a rate that keeps a queue (so the budget, the class
/// order and the rings' wrap-around all run). "(mallocs)" runs one packet
/// per sample: its "Malloc (total)" must read 0 (scripts/bench.sh checks
/// the "SFU Pacer" names).
final class PacerScenario {
    var pacer = Pacer()
    var now = MediaTime.milliseconds(1_000)
    var handle: UInt32 = 0
    var sent = 0

    init() {
        pacer.setRate(bitsPerSecond: 1_000_000)  // paced at 2.5 Mbit/s
        // Warm up: fill and drain a while, so the rings have wrapped.
        for _ in 0..<5_000 { step() }
    }

    @inline(__always)
    func step() {
        let pacingClass: PacingClass = handle % 10 == 0 ? .audio : handle % 17 == 0 ? .retransmission : .video
        _ = pacer.enqueue(handle, size: pacingClass == .audio ? 120 : 1_180, class: pacingClass, now: now)
        handle &+= 1
        // 1 ms steps: about 1,070 bytes a millisecond (8.6 Mbit/s) offered
        // to a 2.5 Mbit/s pacer, so the queue grows to its 2 s (530 video
        // packets, inside the ring's 1,024) and stale video is dropped.
        now = now.adding(nanoseconds: 1_000_000)
        while let output = pacer.dequeue(now: now) {
            if case .send = output { sent &+= 1 }
        }
    }
}

func pacerBenchmarks() {
    Benchmark("SFU Pacer enqueue and dequeue (x1000)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let scenario = PacerScenario()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { scenario.step() }
        benchmark.stopMeasurement()
        precondition(scenario.sent > 0 && scenario.pacer.counters.droppedStale > 0)
        blackHole(scenario.sent)
    }
    Benchmark("SFU Pacer enqueue and dequeue (mallocs)") { benchmark in
        let scenario = PacerScenario()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { scenario.step() }
        benchmark.stopMeasurement()
        blackHole(scenario.sent)
    }
}
