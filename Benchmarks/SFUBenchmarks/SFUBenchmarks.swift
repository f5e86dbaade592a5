// Forwarding budgets (DESIGN.md, "The packet path"): ns and mallocs per
// forwarded packet.
// - "SFU VP8 forward": the production Router alone: receiveRTP -> Receiver
//   -> each DownTrack's munger -> header (and rewritten VP8 descriptor)
//   written into a preallocated slot; the payload is not touched (the
//   worker's SRTP reads it from the ingress slot).
// - "SFU worker path VP8 forward": the media worker's whole path, the one
//   it runs in production (ForwardingPath, checked by ForwardingPathTests):
//   the publisher's SRTP written into the receive ring, MediaWorkerRooms'
//   demux and SRTP unprotect, the Router, ConnectionSink's SRTP protect of
//   each copy (on OpenSSL, the profile DTLS agreed with the subscribers;
//   the payload encrypted from the ingress slot into the egress slot), and EgressQueue's sendmmsg on a real UDP socket to real
//   subscriber sockets on loopback. Only recvmmsg and the epoll wait are
//   not in it. Its time includes the publisher side's SRTP protect of each
//   ingress packet (one per packet against N for the copies).
// Both are budgeted at 0 mallocs per packet.
//
//   swift package --disable-sandbox benchmark --target SFUBenchmarks
//
// One publisher VP8 track, N = 1, 10, 50 subscribers. "(x1000)" reports time
// per ingress packet over batches of 1000 (divide by N for the time per
// forwarded copy); "(mallocs)" runs one ingress packet per sample, so
// "Malloc (total)" is the mallocs of one packet and its N copies.
import Benchmark
import Packets
import SFU
import VroomTestPeer
import WebRTC

/// A sink over preallocated slots that the worker would fill and send; here
/// they are reused round-robin and only the count and bytes are kept.
struct RingSink: PacketSink {
    let slots: UnsafeMutableRawBufferPointer
    let slotSize = 1356
    let slotCount: Int
    var next = 0
    var packets = 0
    var bytes = 0

    init(slotCount: Int) {
        self.slotCount = slotCount
        slots = UnsafeMutableRawBufferPointer.allocate(byteCount: slotCount * 1500, alignment: 16)
    }

    mutating func slot(for transport: TransportID) -> UnsafeMutableRawBufferPointer? {
        let start = next * 1500
        next = next + 1 == slotCount ? 0 : next + 1
        return UnsafeMutableRawBufferPointer(rebasing: slots[start..<(start + slotSize)])
    }

    mutating func commit(transport: TransportID, length: Int, kind: EgressKind) {
        packets &+= 1
        bytes &+= length
    }

    /// The payload would be encrypted across by the worker: not touched here.
    mutating func commit(transport: TransportID, length: Int, appending tail: UnsafeRawBufferPointer) {
        packets &+= 1
        bytes &+= length &+ tail.count
    }
}

/// A Chrome-like VP8 packet: the worker-path benchmark's (`ForwardingPath`).
func makePacket(sequence: UInt16, pictureID: UInt16, keyframe: Bool, ssrc: SSRC) -> [UInt8] {
    ForwardingPath.vp8Packet(sequence: sequence, pictureID: pictureID, keyframe: keyframe, ssrc: ssrc)
}

final class Scenario<Sink: PacketSink> {
    let router = Router()
    var sink: Sink
    let ssrc = SSRC(0x1234_5678)
    var sequence: UInt16 = 1000
    var pictureID: UInt16 = 100
    var now = MediaTime.milliseconds(1000)
    /// The next packet to push, refreshed in place (sequence, transport-cc
    /// sequence, picture ID) so no packet is built during measurement.
    var packet: [UInt8]
    let buffer: UnsafeMutableRawBufferPointer

    /// Without `publisherTransportCC` the router sends the publisher no
    /// transport-cc feedback (whose arrays a tick would build).
    init(subscribers: Int, sink: Sink, publisherTransportCC: Bool = true) {
        self.sink = sink
        try! router.addPublisher(
            transport: TransportID(1), transportCCExtensionID: publisherTransportCC ? 3 : nil, midExtensionID: 4)
        try! router.addReceiver(
            track: TrackID(1), publisher: TransportID(1), kind: .video, mid: "0", payloadType: 96,
            rtxPayloadType: 97, ssrc: ssrc, rtxSSRC: SSRC(0x1234_5679), clockRate: 90_000)
        for index in 0..<subscribers {
            let transport = TransportID(UInt32(100 + index))
            try! router.addSubscriber(transport: transport, midExtensionID: 9, transportCCExtensionID: 5)
            try! router.addDownTrack(
                track: TrackID(1), subscriber: transport, ssrc: SSRC(UInt32(5000 + index)),
                rtxSSRC: SSRC(UInt32(9000 + index)), payloadType: 100, rtxPayloadType: 101, mid: "1",
                extensionCopies: [HeaderExtensionCopy(publisherID: 2, subscriberID: 3)])
        }
        packet = makePacket(sequence: sequence, pictureID: pictureID, keyframe: true, ssrc: ssrc)
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        // The NACK history takes its buffers as it fills: all of them now.
        router.buffers.reserve(Router.historyCapacity)
        _ = router.tick(now: now, into: &self.sink)
        push()  // the keyframe: every DownTrack starts
        packet = makePacket(sequence: sequence, pictureID: pictureID, keyframe: false, ssrc: ssrc)
        // Warm up: the first packets grow the routers' dictionaries once.
        for _ in 0..<100 { push() }
    }

    /// Every subscriber says its downlink is `bitsPerSecond` (REMB), and a
    /// tick allocates: from then on each is paced at 2.5 times that. Their
    /// profiles never switch off (the track costs more than that): the
    /// copies keep coming, and the pacer holds most of them.
    func paceEverySubscriber(bitsPerSecond: UInt64, subscribers: Int) {
        for index in 0..<subscribers {
            try! router.setAllocationProfile(
                subscriber: TransportID(UInt32(100 + index)), AllocationProfile(trackSwitchOffMode: .disabled))
            let remb = ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(7), bitrate: bitsPerSecond, ssrcs: [])
            var bytes = [UInt8](repeating: 0, count: remb.encodedSize)
            let length = bytes.withUnsafeMutableBytes { try! remb.write(to: $0) }
            bytes.withUnsafeMutableBytes {
                router.receiveRTCP($0, length: length, from: TransportID(UInt32(100 + index)), now: now, into: &sink)
            }
        }
        _ = router.tick(now: now, into: &sink)
    }

    @inline(__always)
    func push() {
        packet.withUnsafeBytes { buffer.copyMemory(from: $0) }
        buffer.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        router.receiveRTP(buffer, length: packet.count, from: TransportID(1), now: now, into: &sink)
        sequence &+= 1
        pictureID = (pictureID &+ 1) & 0x7FFF
        now = now.adding(nanoseconds: 2_000_000)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(2), maxIterations: 100_000)
    let perPacket = Benchmark.Configuration(scalingFactor: .kilo)
    pacerBenchmarks()
    srtpBenchmarks()

    for subscribers in [1, 10, 50] {
        for (suffix, configuration) in [("x1000", perPacket), ("mallocs", Benchmark.defaultConfiguration)] {
            Benchmark("SFU VP8 forward to \(subscribers) subscriber(s) (\(suffix))", configuration: configuration) {
                benchmark in
                let scenario = Scenario(subscribers: subscribers, sink: RingSink(slotCount: 256))
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { scenario.push() }
                benchmark.stopMeasurement()
                precondition(scenario.sink.packets > 0)
                blackHole(scenario.sink.bytes)
            }
            Benchmark(
                "SFU worker path VP8 forward to \(subscribers) subscriber(s) (\(suffix))", configuration: configuration,
                closure: { benchmark, path in
                    let before = path.sent.datagrams
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations { path.forward() }
                    benchmark.stopMeasurement()
                    precondition(path.sent.datagrams > before && path.dropped == 0, "nothing forwarded")
                },
                setup: { try ForwardingPath(subscribers: subscribers) })
        }
    }

    // Pacing (issue 13 item 4): 1,100-byte packets every 2 ms (4.4 Mbit/s)
    // to subscribers paced at 1 Mbit/s, so most copies are held in the
    // room's pool and sent by the tick after each packet. 90 packets (180
    // ms) fit before the next allocation (every 200 ms; it allocates, the
    // packet path must not) and before the first report tick.
    Benchmark("SFU VP8 forward paced to 10 subscribers, 90 packets (mallocs)") { benchmark in
        let scenario = Scenario(subscribers: 10, sink: RingSink(slotCount: 256), publisherTransportCC: false)
        scenario.paceEverySubscriber(bitsPerSecond: 400_000, subscribers: 10)
        // The first hold allocates the room's pool, once.
        for _ in 0..<5 {
            scenario.push()
            _ = scenario.router.tick(now: scenario.now, into: &scenario.sink)
        }
        let heldBefore = scenario.router.counters.pacerHeldPackets
        benchmark.startMeasurement()
        for _ in 0..<90 {
            scenario.push()
            _ = scenario.router.tick(now: scenario.now, into: &scenario.sink)
        }
        benchmark.stopMeasurement()
        precondition(scenario.router.counters.pacerHeldPackets > heldBefore, "nothing was held")
        blackHole(scenario.sink.bytes)
    }

    // The downlink estimator (issue 13 item 2): onPacketSent runs for every
    // packet a subscriber connection sends and must allocate nothing;
    // onFeedback runs per transport-cc feedback (every 50-100 ms) on the
    // caller's preallocated array.
    Benchmark("BWE onPacketSent, 1000 packets (mallocs)") { benchmark in
        var estimator = BandwidthEstimator()
        var now = MediaTime.seconds(1)
        estimator.onPacketSent(size: 1200, at: now)
        benchmark.startMeasurement()
        for _ in 0..<1000 {
            now = now.adding(nanoseconds: 3_840_000)  // 1200 bytes at 2.5 Mbit/s
            estimator.onPacketSent(size: 1200, at: now)
        }
        benchmark.stopMeasurement()
        blackHole(estimator.isApplicationLimited)
    }
    Benchmark("BWE onFeedback, 100 feedbacks of 13 packets (mallocs)") { benchmark in
        var estimator = BandwidthEstimator()
        var feedback = [PacketFeedback](
            repeating: PacketFeedback(sequence: 0, size: 1200, sendTime: .seconds(0), arrival: 0), count: 13)
        var sequence: UInt64 = 0
        func fill(_ round: Int) {
            for i in feedback.indices {
                let send = UInt64(round) * 50_000_000 + UInt64(i) * 3_840_000
                feedback[i] = PacketFeedback(
                    sequence: sequence, size: 1200, sendTime: MediaTime(nanoseconds: send),
                    arrival: Int64(send) + 40_000_000 + (i % 5 == 0 ? 1_000_000 : 0))
                sequence += 1
            }
        }
        // Warm up: the first feedbacks start the filters.
        for round in 0..<5 {
            fill(round)
            estimator.onFeedback(feedback, now: MediaTime(nanoseconds: UInt64(round + 1) * 50_000_000 + 80_000_000))
        }
        benchmark.startMeasurement()
        for round in 5..<105 {
            fill(round)
            estimator.onFeedback(feedback, now: MediaTime(nanoseconds: UInt64(round + 1) * 50_000_000 + 80_000_000))
        }
        benchmark.stopMeasurement()
        blackHole(estimator.estimate)
    }

    for subscribers in [10, 50] {
        Benchmark("SFU VP8 simulcast forward with switches to \(subscribers) subscribers (x1000)", configuration: perPacket) {
            benchmark in
            let scenario = SimulcastScenario(subscribers: subscribers)
            let before = scenario.switches
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { scenario.push() }
            benchmark.stopMeasurement()
            precondition(scenario.sink.packets > 0 && scenario.switches > before)
            blackHole(scenario.sink.bytes)
        }
        Benchmark("SFU VP8 simulcast forward with switches to \(subscribers) subscribers, 900 packets (mallocs)") {
            benchmark in
            let scenario = SimulcastScenario(subscribers: subscribers)
            let before = scenario.switches
            benchmark.startMeasurement()
            for _ in 0..<900 { scenario.push() }
            benchmark.stopMeasurement()
            precondition(scenario.sink.packets > 0 && scenario.switches > before)
            blackHole(scenario.sink.bytes)
        }
    }
}
