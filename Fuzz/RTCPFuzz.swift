// fuzz-module: Packets
// libFuzzer entry point: RTCP compound packets. Parses the input as a
// compound and as each typed view alone, reads every accessor, walks every
// iterator, and for each typed packet checks view -> value -> write ->
// parse -> equal value. Built by scripts/fuzz.sh together with the sources
// of the module under test.
#if canImport(Packets)
import Packets
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func rtcpFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var sum: UInt64 = 0

    // Every typed view straight on the input, as one packet.
    if let view = try? SenderReportView(validating: bytes) { sum &+= rtcpFuzzCheck(.senderReport(view)) }
    if let view = try? ReceiverReportView(validating: bytes) { sum &+= rtcpFuzzCheck(.receiverReport(view)) }
    if let view = try? SourceDescriptionView(validating: bytes) { sum &+= rtcpFuzzCheck(.sourceDescription(view)) }
    if let view = try? GoodbyeView(validating: bytes) { sum &+= rtcpFuzzCheck(.goodbye(view)) }
    if let view = try? GenericNACKView(validating: bytes) { sum &+= rtcpFuzzCheck(.genericNACK(view)) }
    if let view = try? TransportCCFeedbackView(validating: bytes) { sum &+= rtcpFuzzCheck(.transportCCFeedback(view)) }
    if let view = try? PictureLossIndicationView(validating: bytes) {
        sum &+= rtcpFuzzCheck(.pictureLossIndication(view))
    }
    if let view = try? FullIntraRequestView(validating: bytes) { sum &+= rtcpFuzzCheck(.fullIntraRequest(view)) }
    if let view = try? ReceiverEstimatedMaxBitrateView(validating: bytes) {
        sum &+= rtcpFuzzCheck(.receiverEstimatedMaxBitrate(view))
    }

    if let compound = try? RTCPCompoundPacket(validating: bytes) {
        var total = 0
        for packet in compound {
            total += packet.bytes.count
            sum &+= UInt64(packet.packetType) &+ UInt64(packet.countOrFormat) &+ UInt64(packet.payload.count)
            if packet.hasPadding != (packet.paddingLength > 0) { fatalError("P bit and padding length disagree") }
            guard let typed = try? packet.typed() else { continue }
            sum &+= rtcpFuzzCheck(typed)
        }
        if total != size { fatalError("compound packets cover \(total) of \(size) bytes") }
    }
    rtcpFuzzSink(sum)
    return 0
}

/// Keeps the reads alive: the optimizer cannot drop what feeds this call.
@inline(never)
func rtcpFuzzSink(_ value: UInt64) {
    if value == 0x5254_4350_4655_5A5A { print("") }
}

/// Touches everything, then round-trips the packet through its value type.
func rtcpFuzzCheck(_ packet: RTCPPacket) -> UInt64 {
    var sum: UInt64 = 0
    func add(_ value: some BinaryInteger) { sum &+= UInt64(truncatingIfNeeded: value) }
    func addReports(_ reports: ReceptionReports) {
        for report in reports {
            add(report.ssrc.rawValue)
            add(report.fractionLost)
            add(report.cumulativeLost)
            add(report.extendedHighestSequence)
            add(report.jitter)
            add(report.lastSR)
            add(report.delaySinceLastSR)
        }
    }
    switch packet {
    case .senderReport(let view):
        add(view.ssrc.rawValue)
        add(view.ntpTimestamp)
        add(view.rtpTimestamp)
        add(view.packetCount)
        add(view.octetCount)
        addReports(view.reports)
        add(view.profileExtension.count)
        rtcpFuzzRoundTrip(SenderReport(view)) {
            if case .senderReport(let again) = $0 { SenderReport(again) } else { nil }
        }
    case .receiverReport(let view):
        add(view.ssrc.rawValue)
        addReports(view.reports)
        add(view.profileExtension.count)
        rtcpFuzzRoundTrip(ReceiverReport(view)) {
            if case .receiverReport(let again) = $0 { ReceiverReport(again) } else { nil }
        }
    case .sourceDescription(let view):
        var chunks = 0
        for chunk in view.chunks {
            add(chunk.source.rawValue)
            for item in chunk.items {
                add(item.type)
                for byte in item.text { add(byte) }
            }
            chunks += 1
        }
        if chunks != view.chunkCount { fatalError("SDES: \(chunks) chunks of \(view.chunkCount)") }
        rtcpFuzzRoundTrip(SourceDescription(view)) {
            if case .sourceDescription(let again) = $0 { SourceDescription(again) } else { nil }
        }
    case .goodbye(let view):
        for source in view.sources { add(source.rawValue) }
        if let reason = view.reason { for byte in reason { add(byte) } }
        rtcpFuzzRoundTrip(Goodbye(view)) {
            if case .goodbye(let again) = $0 { Goodbye(again) } else { nil }
        }
    case .genericNACK(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        var bits = 0
        for item in view.items {
            add(item.packetID &+ item.lostBitmask)
            bits += 1 + item.lostBitmask.nonzeroBitCount
        }
        var lost = 0
        for sequenceNumber in view.lostSequenceNumbers {
            add(sequenceNumber)
            lost += 1
        }
        if lost != bits { fatalError("NACK: \(lost) lost sequence numbers, \(bits) expected") }
        rtcpFuzzRoundTrip(GenericNACK(view)) {
            if case .genericNACK(let again) = $0 { GenericNACK(again) } else { nil }
        }
    case .transportCCFeedback(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        add(view.baseSequenceNumber)
        add(view.referenceTime)
        add(view.feedbackPacketCount)
        var count = 0
        for packet in view.packets {
            if packet.sequenceNumber != view.baseSequenceNumber &+ UInt16(truncatingIfNeeded: count) {
                fatalError("transport-cc: sequence number out of order")
            }
            if (packet.delta == nil) != (packet.status == .notReceived) {
                fatalError("transport-cc: delta and status disagree")
            }
            add(packet.status.rawValue)
            add(packet.delta ?? 0)
            count += 1
        }
        if count != view.packetStatusCount {
            fatalError("transport-cc: \(count) statuses of \(view.packetStatusCount)")
        }
        rtcpFuzzRoundTrip(TransportCCFeedback(view)) {
            if case .transportCCFeedback(let again) = $0 { TransportCCFeedback(again) } else { nil }
        }
    case .pictureLossIndication(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        rtcpFuzzRoundTrip(PictureLossIndication(view)) {
            if case .pictureLossIndication(let again) = $0 { PictureLossIndication(again) } else { nil }
        }
    case .fullIntraRequest(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        for entry in view.entries { add(entry.ssrc.rawValue &+ UInt32(entry.sequenceNumber)) }
        rtcpFuzzRoundTrip(FullIntraRequest(view)) {
            if case .fullIntraRequest(let again) = $0 { FullIntraRequest(again) } else { nil }
        }
    case .receiverEstimatedMaxBitrate(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        add(view.bitrate)
        add(view.bitrateExponent)
        add(view.bitrateMantissa)
        for ssrc in view.ssrcs { add(ssrc.rawValue) }
        // Writing rounds the bitrate down to 18 bits of mantissa; only a
        // saturated (over 64-bit) bitrate actually changes.
        var value = ReceiverEstimatedMaxBitrate(view)
        value.bitrate = value.quantizedBitrate
        rtcpFuzzRoundTrip(value) {
            if case .receiverEstimatedMaxBitrate(let again) = $0 { ReceiverEstimatedMaxBitrate(again) } else { nil }
        }
    case .other(let view):
        add(view.packetType)
        add(view.payload.count)
    }
    return sum
}

/// value -> write -> parse -> value: must be equal.
func rtcpFuzzRoundTrip<V: RTCPPacketWriter & Equatable>(_ value: V, _ extract: (RTCPPacket) -> V?) {
    let size = value.encodedSize
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 8)
    defer { buffer.deallocate() }
    let written: Int
    do {
        written = try value.write(to: buffer)
    } catch {
        fatalError("write of a parsed \(V.self) failed: \(error)")
    }
    if written != size { fatalError("\(V.self): wrote \(written), encodedSize \(size)") }
    let output = UnsafeRawBufferPointer(rebasing: buffer[0..<written])
    guard let packet = try? RTCPPacketView(validating: output), let typed = try? packet.typed(),
        let again = extract(typed)
    else { fatalError("written \(V.self) does not parse back") }
    if again != value { fatalError("\(V.self) round trip mismatch: \(value) became \(again)") }
}
