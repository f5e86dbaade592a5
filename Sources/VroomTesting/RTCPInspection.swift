// fuzz-shared: Packets
// Reads every accessor and walks every iterator of parsed RTCP, checking the
// views agree with themselves. One copy serves PacketsTests (through
// `import VroomTesting`) and Fuzz/RTCPFuzz.swift (scripts/fuzz.sh compiles
// this file into the harness's module because of the first line, hence no
// plain `import Packets`).
#if canImport(Packets)
import Packets
#endif

/// An internal inconsistency a parsed RTCP view showed: two accessors that
/// describe the same bytes disagree. Parsing succeeded, so this is a parser
/// bug, never a malformed input.
public struct RTCPInspectionFailure: Error, Equatable, CustomStringConvertible {
    public enum Check: Sendable, Equatable {
        /// SDES: chunks walked (`found`) vs the SC field (`expected`).
        case sourceDescriptionChunkCount
        /// Generic NACK: lost sequence numbers walked (`found`) vs 1 + the
        /// bitmask's set bits of every item (`expected`).
        case nackLostCount
        /// transport-cc: the status at index `expected` reported sequence
        /// number `found`, not base + index.
        case transportCCSequenceOrder
        /// transport-cc: the status at index `expected` has a delta although
        /// not received, or none although received (`found`: status raw value).
        case transportCCDeltaWithoutReception
        /// transport-cc: statuses walked (`found`) vs the status count field
        /// (`expected`).
        case transportCCStatusCount
        /// Header: P bit (`expected`, 0 or 1) vs a padding length of `found`.
        case paddingBit
        /// Header: unpadded + padding bytes (`found`) vs the packet's size
        /// (`expected`).
        case paddingLength
        /// Compound: bytes covered by the packets walked (`found`) vs the
        /// compound's size (`expected`).
        case compoundCoverage
    }

    public let check: Check
    public let expected: Int
    public let found: Int

    public init(_ check: Check, expected: Int, found: Int) {
        self.check = check
        self.expected = expected
        self.found = found
    }

    public var description: String { "RTCP inspection: \(check), expected \(expected), found \(found)" }
}

/// Reads every accessor and walks every iterator of a typed RTCP packet.
/// The returned sum of everything read keeps the optimizer from dropping
/// the reads; it allocates nothing.
@discardableResult
public func inspectRTCP(_ packet: RTCPPacket) throws(RTCPInspectionFailure) -> UInt64 {
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
    case .receiverReport(let view):
        add(view.ssrc.rawValue)
        addReports(view.reports)
        add(view.profileExtension.count)
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
        if chunks != view.chunkCount {
            throw RTCPInspectionFailure(.sourceDescriptionChunkCount, expected: Int(view.chunkCount), found: chunks)
        }
    case .goodbye(let view):
        for source in view.sources { add(source.rawValue) }
        if let reason = view.reason { for byte in reason { add(byte) } }
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
        if lost != bits { throw RTCPInspectionFailure(.nackLostCount, expected: bits, found: lost) }
    case .transportCCFeedback(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        add(view.baseSequenceNumber)
        add(view.referenceTime)
        add(view.feedbackPacketCount)
        var count = 0
        for packet in view.packets {
            if packet.sequenceNumber != view.baseSequenceNumber &+ UInt16(truncatingIfNeeded: count) {
                throw RTCPInspectionFailure(
                    .transportCCSequenceOrder, expected: count, found: Int(packet.sequenceNumber))
            }
            if (packet.delta == nil) != (packet.status == .notReceived) {
                throw RTCPInspectionFailure(
                    .transportCCDeltaWithoutReception, expected: count, found: Int(packet.status.rawValue))
            }
            add(packet.sequenceNumber)
            add(packet.status.rawValue)
            add(packet.delta ?? 0)
            count += 1
        }
        if count != view.packetStatusCount {
            throw RTCPInspectionFailure(
                .transportCCStatusCount, expected: Int(view.packetStatusCount), found: count)
        }
    case .pictureLossIndication(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
    case .fullIntraRequest(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        for entry in view.entries { add(entry.ssrc.rawValue &+ UInt32(entry.sequenceNumber)) }
    case .receiverEstimatedMaxBitrate(let view):
        add(view.senderSSRC.rawValue)
        add(view.mediaSSRC.rawValue)
        add(view.bitrate)
        add(view.bitrateExponent)
        add(view.bitrateMantissa)
        for ssrc in view.ssrcs { add(ssrc.rawValue) }
    case .other(let view):
        add(view.packetType)
        add(view.countOrFormat)
        add(view.payload.count)
    }
    return sum
}

/// Reads the common header of one RTCP packet: the P bit must agree with
/// the padding length, and header, body and padding must add up to the
/// packet.
@discardableResult
public func inspectRTCP(_ packet: RTCPPacketView) throws(RTCPInspectionFailure) -> UInt64 {
    if packet.hasPadding != (packet.paddingLength > 0) {
        throw RTCPInspectionFailure(.paddingBit, expected: packet.hasPadding ? 1 : 0, found: packet.paddingLength)
    }
    // 4 bytes of header before the payload.
    let covered = packet.unpadded.count + packet.paddingLength
    if covered != packet.bytes.count || packet.payload.count + 4 != packet.unpadded.count {
        throw RTCPInspectionFailure(.paddingLength, expected: packet.bytes.count, found: covered)
    }
    return UInt64(packet.packetType) &+ UInt64(packet.countOrFormat) &+ UInt64(packet.payload.count)
}

/// Walks a compound: every packet's header (`inspectRTCP(_: RTCPPacketView)`)
/// and, where its known type parses, its typed view; the packets must cover
/// the compound's bytes exactly.
@discardableResult
public func inspectRTCP(_ compound: RTCPCompoundPacket) throws(RTCPInspectionFailure) -> UInt64 {
    var sum: UInt64 = 0
    var covered = 0
    for packet in compound {
        covered += packet.bytes.count
        sum &+= try inspectRTCP(packet)
        if let typed = try? packet.typed() { sum &+= try inspectRTCP(typed) }
    }
    if covered != compound.bytes.count {
        throw RTCPInspectionFailure(.compoundCoverage, expected: compound.bytes.count, found: covered)
    }
    return sum
}

/// Calls `body` with every typed view that parses straight on `bytes` as one
/// packet (each view's own `init(validating:)`, not through the common
/// header), so a fuzzer or robustness test reaches each parser directly.
public func forEachRTCPView<E: Error>(
    in bytes: UnsafeRawBufferPointer, _ body: (RTCPPacket) throws(E) -> Void
) throws(E) {
    if let view = try? SenderReportView(validating: bytes) { try body(.senderReport(view)) }
    if let view = try? ReceiverReportView(validating: bytes) { try body(.receiverReport(view)) }
    if let view = try? SourceDescriptionView(validating: bytes) { try body(.sourceDescription(view)) }
    if let view = try? GoodbyeView(validating: bytes) { try body(.goodbye(view)) }
    if let view = try? GenericNACKView(validating: bytes) { try body(.genericNACK(view)) }
    if let view = try? TransportCCFeedbackView(validating: bytes) { try body(.transportCCFeedback(view)) }
    if let view = try? PictureLossIndicationView(validating: bytes) { try body(.pictureLossIndication(view)) }
    if let view = try? FullIntraRequestView(validating: bytes) { try body(.fullIntraRequest(view)) }
    if let view = try? ReceiverEstimatedMaxBitrateView(validating: bytes) {
        try body(.receiverEstimatedMaxBitrate(view))
    }
}
