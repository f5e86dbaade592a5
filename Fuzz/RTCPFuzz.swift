// fuzz-module: Packets
// libFuzzer entry point: RTCP compound packets. Parses the input as a
// compound and as each typed view alone, reads every accessor and walks every
// iterator with `inspectRTCP` (Sources/VroomTesting/RTCPInspection.swift,
// shared with PacketsTests), and for each typed packet checks view -> value
// -> write -> parse -> equal value. Built by scripts/fuzz.sh together with
// the sources of the module under test and its fuzz-shared files.
#if canImport(Packets)
import Packets
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func rtcpFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var sum: UInt64 = 0

    // Every typed view straight on the input, as one packet.
    forEachRTCPView(in: bytes) { sum &+= rtcpFuzzCheck($0) }

    if let compound = try? RTCPCompoundPacket(validating: bytes) {
        do {
            sum &+= try inspectRTCP(compound)
        } catch {
            fatalError("\(error)")
        }
        for packet in compound {
            guard let typed = try? packet.typed() else { continue }
            rtcpFuzzRoundTrip(typed)
        }
    }
    rtcpFuzzSink(sum)
    return 0
}

/// Keeps the reads alive: the optimizer cannot drop what feeds this call.
@inline(never)
func rtcpFuzzSink(_ value: UInt64) {
    if value == 0x5254_4350_4655_5A5A { print("") }
}

/// Touches everything (VroomTesting's `inspectRTCP`), then round-trips the
/// packet through its value type.
func rtcpFuzzCheck(_ packet: RTCPPacket) -> UInt64 {
    let sum: UInt64
    do {
        sum = try inspectRTCP(packet)
    } catch {
        fatalError("\(error)")
    }
    rtcpFuzzRoundTrip(packet)
    return sum
}

/// view -> value -> write -> parse -> equal value, for each known type.
func rtcpFuzzRoundTrip(_ packet: RTCPPacket) {
    switch packet {
    case .senderReport(let view):
        rtcpFuzzRoundTrip(SenderReport(view)) {
            if case .senderReport(let again) = $0 { SenderReport(again) } else { nil }
        }
    case .receiverReport(let view):
        rtcpFuzzRoundTrip(ReceiverReport(view)) {
            if case .receiverReport(let again) = $0 { ReceiverReport(again) } else { nil }
        }
    case .sourceDescription(let view):
        rtcpFuzzRoundTrip(SourceDescription(view)) {
            if case .sourceDescription(let again) = $0 { SourceDescription(again) } else { nil }
        }
    case .goodbye(let view):
        rtcpFuzzRoundTrip(Goodbye(view)) {
            if case .goodbye(let again) = $0 { Goodbye(again) } else { nil }
        }
    case .genericNACK(let view):
        rtcpFuzzRoundTrip(GenericNACK(view)) {
            if case .genericNACK(let again) = $0 { GenericNACK(again) } else { nil }
        }
    case .transportCCFeedback(let view):
        rtcpFuzzRoundTrip(TransportCCFeedback(view)) {
            if case .transportCCFeedback(let again) = $0 { TransportCCFeedback(again) } else { nil }
        }
    case .pictureLossIndication(let view):
        rtcpFuzzRoundTrip(PictureLossIndication(view)) {
            if case .pictureLossIndication(let again) = $0 { PictureLossIndication(again) } else { nil }
        }
    case .fullIntraRequest(let view):
        rtcpFuzzRoundTrip(FullIntraRequest(view)) {
            if case .fullIntraRequest(let again) = $0 { FullIntraRequest(again) } else { nil }
        }
    case .receiverEstimatedMaxBitrate(let view):
        // Writing rounds the bitrate down to 18 bits of mantissa; only a
        // saturated (over 64-bit) bitrate actually changes.
        var value = ReceiverEstimatedMaxBitrate(view)
        value.bitrate = value.quantizedBitrate
        rtcpFuzzRoundTrip(value) {
            if case .receiverEstimatedMaxBitrate(let again) = $0 { ReceiverEstimatedMaxBitrate(again) } else { nil }
        }
    case .other:
        break
    }
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
