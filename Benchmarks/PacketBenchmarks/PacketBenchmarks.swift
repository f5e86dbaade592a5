import Benchmark
import Packets

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal, .throughput])
    Benchmark("PacketKind classify") { benchmark in
        let packet: [UInt8] = [0x80, 96, 0, 1]
        benchmark.startMeasurement()
        packet.withUnsafeBytes { bytes in
            for _ in benchmark.scaledIterations { blackHole(PacketKind(classifying: bytes)) }
        }
        benchmark.stopMeasurement()
    }
    Benchmark("PacketKind classify x1000", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let packet: [UInt8] = [0x80, 96, 0, 1]
        benchmark.startMeasurement()
        packet.withUnsafeBytes { bytes in
            for _ in benchmark.scaledIterations { blackHole(PacketKind(classifying: bytes)) }
        }
        benchmark.stopMeasurement()
    }
}
