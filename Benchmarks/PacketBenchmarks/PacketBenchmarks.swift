// Packet-layer budgets (DESIGN.md, "The packet path"): ns and mallocs per
// packet for what the SFU does to every forwarded packet, and for the RTCP and
// STUN parsing around it.
//
//   swift package --disable-sandbox benchmark --target PacketBenchmarks
//   scripts/bench.sh            (the same, then checks the malloc budgets)
//
// Each scenario runs twice: "(x1000)" reports time per packet over batches of
// 1000 (timer overhead amortised); "(mallocs)" runs one packet per sample so
// that "Malloc (total)" is exactly the mallocs of one packet, unscaled.
import Benchmark
import Packets

/// A Chrome-like VP8 RTP packet: one-byte extensions abs-send-time (id 2),
/// transport-cc (id 3) and mid (id 4); a VP8 descriptor with a 15-bit picture
/// ID, TL0PICIDX and TID; 1100 bytes of payload (a typical 500 kbit/s packet).
func makeVP8Packet() -> [UInt8] {
    let header = RTPHeader(
        marker: false, payloadType: 96, sequenceNumber: 4711, timestamp: 90_000 * 7, ssrc: SSRC(0x1234_5678),
        extensions: [
            .init(id: 2, value: [0x12, 0x34, 0x56]),
            .init(id: 3, value: [0x01, 0x02]),
            .init(id: 4, value: Array("1".utf8)),
        ])
    let descriptor = VP8PayloadDescriptorFields(
        hasExtension: true, nonReference: false, startOfPartition: true, partitionIndex: 0,
        pictureID: 0x1234, pictureIDIs15Bit: true, tl0PicIdx: 17, temporalLayerIndex: 0, layerSync: true,
        keyIndex: nil)
    var payload = [UInt8](repeating: 0, count: descriptor.encodedSize + 1100)
    payload.withUnsafeMutableBytes { _ = try! descriptor.write(to: $0) }
    payload[descriptor.encodedSize] = 0x31  // VP8 payload header: P = 1, a delta frame
    var packet = [UInt8](repeating: 0, count: header.packetSize(payloadCount: payload.count))
    packet.withUnsafeMutableBytes { out in
        payload.withUnsafeBytes { _ = try! RTPHeader.writePacket(header, payload: $0, to: out) }
    }
    return packet
}

/// What a DownTrack does to its copy: read the header, then write this
/// subscriber's SSRC, sequence number, timestamp, payload type, transport-wide
/// sequence number and VP8 picture ID/TL0PICIDX in place.
@inline(__always)
func rewrite(_ slot: UnsafeMutableRawBufferPointer, _ i: UInt16) throws(PacketError) {
    let packet = try MutableRTPPacketView(validating: slot)
    let sequenceNumber = packet.sequenceNumber
    let timestamp = packet.timestamp
    packet.setSSRC(SSRC(0xCAFE_BABE))
    packet.setSequenceNumber(sequenceNumber &+ i)
    packet.setTimestamp(timestamp &+ 3000)
    try packet.setPayloadType(100)
    if let twcc = packet.mutableExtensionValue(id: 3), twcc.count == 2 {
        twcc.storeBytes(of: i.bigEndian, as: UInt16.self)
    }
    let descriptor = try VP8PayloadDescriptor(validating: UnsafeRawBufferPointer(packet.payload))
    try descriptor.rewrite(in: packet.payload, pictureID: (descriptor.pictureID ?? 0) &+ 1, tl0PicIdx: 9)
    blackHole(descriptor.isKeyframe)
}

func makeRTCPCompound() -> [UInt8] {
    let report = ReceptionReport(
        ssrc: SSRC(0x1111), fractionLost: 3, cumulativeLost: 12, extendedHighestSequence: 70_000, jitter: 40,
        lastSR: 0x1234_5678, delaySinceLastSR: 655)
    let sr = SenderReport(
        ssrc: SSRC(0x2222), ntpTimestamp: 0xE000_0000_8000_0000, rtpTimestamp: 90_000, packetCount: 1000,
        octetCount: 1_200_000, reports: [report])
    let sdes = SourceDescription(source: SSRC(0x2222), cname: "PA0123456789abcdef0123456789abcdef")
    var out = [UInt8](repeating: 0, count: sr.encodedSize + sdes.encodedSize)
    out.withUnsafeMutableBytes { buffer in
        let n = try! sr.write(to: buffer)
        _ = try! sdes.write(to: UnsafeMutableRawBufferPointer(rebasing: buffer[n...]))
    }
    return out
}

func makeTransportCC() -> [UInt8] {
    // 100 packets, every 10th lost, one large delta: what Chrome sends ~15 times a second.
    var deltas: [Int16?] = []
    for i in 0..<100 {
        let delta: Int16 = i == 50 ? 1000 : Int16(i % 4) * 8
        deltas.append(i % 10 == 9 ? nil : delta)
    }
    let feedback = TransportCCFeedback(
        senderSSRC: SSRC(1), mediaSSRC: SSRC(2), baseSequenceNumber: 65_500, referenceTime: 1000,
        feedbackPacketCount: 7, deltas: deltas)
    var out = [UInt8](repeating: 0, count: feedback.encodedSize)
    out.withUnsafeMutableBytes { _ = try! feedback.write(to: $0) }
    return out
}

func makeSTUNRequest() -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 256)
    let transactionID = (0..<12).map(UInt8.init).withUnsafeBytes { STUNTransactionID(bytes: $0)! }
    let length = out.withUnsafeMutableBytes { buffer -> Int in
        var writer = try! STUNMessageWriter(
            buffer: buffer, type: .bindingRequest, transactionID: transactionID)
        try! writer.appendUsername("serverufrag:clientufrag")
        try! writer.appendPriority(0x6E7F_1EFF)
        try! writer.appendICEControlling(0x0102_0304_0506_0708)
        try! writer.appendUseCandidate()
        try! writer.appendMessageIntegrity(password: "serverpasswordserverpass")
        try! writer.appendFingerprint()
        return writer.finish()
    }
    return Array(out[..<length])
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(2), maxIterations: 100_000)
    let perPacket = Benchmark.Configuration(scalingFactor: .kilo)

    for (suffix, configuration) in [("x1000", perPacket), ("mallocs", Benchmark.defaultConfiguration)] {
        Benchmark("RTP+VP8 parse and header rewrite (\(suffix))", configuration: configuration) { benchmark in
            var packet = makeVP8Packet()
            benchmark.startMeasurement()
            packet.withUnsafeMutableBytes { slot in
                for i in benchmark.scaledIterations { try! rewrite(slot, UInt16(truncatingIfNeeded: i)) }
            }
            benchmark.stopMeasurement()
        }

        Benchmark("RTP+VP8 copy to egress slot, parse and rewrite (\(suffix))", configuration: configuration) {
            benchmark in
            let packet = makeVP8Packet()
            // The egress slot is preallocated once, as the media worker's ring is.
            let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
            defer { slot.deallocate() }
            benchmark.startMeasurement()
            packet.withUnsafeBytes { ingress in
                let out = UnsafeMutableRawBufferPointer(rebasing: slot[..<ingress.count])
                for i in benchmark.scaledIterations {
                    out.copyMemory(from: ingress)
                    try! rewrite(out, UInt16(truncatingIfNeeded: i))
                }
            }
            benchmark.stopMeasurement()
        }

        Benchmark("RTCP SR+SDES compound parse (\(suffix))", configuration: configuration) { benchmark in
            let packet = makeRTCPCompound()
            benchmark.startMeasurement()
            packet.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    let compound = try! RTCPCompoundPacket(validating: bytes)
                    for view in compound {
                        switch try! view.typed() {
                        case .senderReport(let sr):
                            for block in sr.reports { blackHole(block.fractionLost) }
                        case .sourceDescription(let sdes):
                            for chunk in sdes.chunks { for item in chunk.items { blackHole(item.type) } }
                        default: break
                        }
                    }
                }
            }
            benchmark.stopMeasurement()
        }

        Benchmark("RTCP transport-cc feedback parse, 100 packets (\(suffix))", configuration: configuration) {
            benchmark in
            let packet = makeTransportCC()
            benchmark.startMeasurement()
            packet.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    let feedback = try! TransportCCFeedbackView(validating: bytes)
                    var sum = 0
                    for result in feedback.packets { sum &+= Int(result.delta ?? 0) }
                    blackHole(sum)
                }
            }
            benchmark.stopMeasurement()
        }

        Benchmark("STUN binding request parse + integrity + fingerprint (\(suffix))", configuration: configuration) {
            benchmark in
            let packet = makeSTUNRequest()
            let key = Array("serverpasswordserverpass".utf8)
            benchmark.startMeasurement()
            packet.withUnsafeBytes { bytes in
                key.withUnsafeBytes { key in
                    for _ in benchmark.scaledIterations {
                        let message = try! STUNMessageView(validating: bytes)
                        try! message.verifyFingerprint()
                        try! message.verifyMessageIntegrity(key: key)
                        blackHole(message.usernameEquals("serverufrag:clientufrag"))
                    }
                }
            }
            benchmark.stopMeasurement()
        }
    }
}
