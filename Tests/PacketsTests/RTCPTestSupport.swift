import Packets
import VroomTesting

/// Helpers for the RTCP suites, in a namespace so they cannot collide with
/// other suites' helpers in the same test target.
extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that returns nothing, so a one-line
    /// `#expect(throws:)` inside does not leave an unused result.
    func withRTCPBytes(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try withUnsafeBytes(body)
    }
}

enum RTCP {
    /// Bytes from hex pairs; whitespace and `|` are ignored.
    static func hex(_ text: String) -> [UInt8] {
        let digits = text.filter { $0.isHexDigit }
        precondition(digits.count % 2 == 0, "odd hex digit count")
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Writes `packet` into a buffer of exactly `encodedSize` bytes, checking
    /// the returned count and that a buffer one byte short is refused.
    static func write(_ packet: some RTCPPacketWriter) throws -> [UInt8] {
        let size = packet.encodedSize
        var bytes = [UInt8](repeating: 0xEE, count: size)
        let written = try bytes.withUnsafeMutableBytes { try packet.write(to: $0) }
        precondition(written == size, "write returned \(written), encodedSize \(size)")
        if size > 0 {
            var short = [UInt8](repeating: 0, count: size - 1)
            do {
                _ = try short.withUnsafeMutableBytes { try packet.write(to: $0) }
                preconditionFailure("a short buffer was accepted")
            } catch {
                precondition(error as? PacketError == .bufferTooSmall, "short buffer gave \(error)")
            }
        }
        return bytes
    }

    /// The one typed packet in `bytes` (which must hold exactly one packet).
    static func withTyped<R>(_ bytes: [UInt8], _ body: (RTCPPacket) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { raw in
            let view = try RTCPPacketView(validating: raw)
            return try body(try view.typed())
        }
    }

    /// Parses one packet and turns it back into a value of the same kind,
    /// as an `AnyHashable` so tests can compare across kinds.
    static func value(of packet: RTCPPacket) -> AnyHashable {
        switch packet {
        case .senderReport(let view): return SenderReport(view)
        case .receiverReport(let view): return ReceiverReport(view)
        case .sourceDescription(let view): return SourceDescription(view)
        case .goodbye(let view): return Goodbye(view)
        case .genericNACK(let view): return GenericNACK(view)
        case .transportCCFeedback(let view): return TransportCCFeedback(view)
        case .pictureLossIndication(let view): return PictureLossIndication(view)
        case .fullIntraRequest(let view): return FullIntraRequest(view)
        case .receiverEstimatedMaxBitrate(let view): return ReceiverEstimatedMaxBitrate(view)
        case .other(let view): return Array(view.bytes)
        }
    }

    /// view -> value -> write -> parse -> value: the two values must be
    /// equal (for REMB, up to the writer's documented rounding).
    static func roundTrips(_ packet: RTCPPacket) throws -> Bool {
        func again<V: RTCPPacketWriter & Hashable>(_ written: V) throws -> AnyHashable {
            try withTyped(try write(written)) { value(of: $0) }
        }
        switch packet {
        case .senderReport(let view): let v = SenderReport(view); return try again(v) == AnyHashable(v)
        case .receiverReport(let view): let v = ReceiverReport(view); return try again(v) == AnyHashable(v)
        case .sourceDescription(let view): let v = SourceDescription(view); return try again(v) == AnyHashable(v)
        case .goodbye(let view): let v = Goodbye(view); return try again(v) == AnyHashable(v)
        case .genericNACK(let view): let v = GenericNACK(view); return try again(v) == AnyHashable(v)
        case .transportCCFeedback(let view): let v = TransportCCFeedback(view); return try again(v) == AnyHashable(v)
        case .pictureLossIndication(let view): let v = PictureLossIndication(view); return try again(v) == AnyHashable(v)
        case .fullIntraRequest(let view): let v = FullIntraRequest(view); return try again(v) == AnyHashable(v)
        case .receiverEstimatedMaxBitrate(let view):
            var v = ReceiverEstimatedMaxBitrate(view)
            let written = try again(v)
            v.bitrate = v.quantizedBitrate
            return written == AnyHashable(v)
        case .other: return true
        }
    }

    /// Reads every accessor and walks every iterator of a typed packet
    /// (VroomTesting's `inspectRTCP`); the inconsistency found, if any, for
    /// `#expect(RTCP.touch(packet) == nil)`.
    static func touch(_ packet: RTCPPacket) -> RTCPInspectionFailure? {
        do {
            try inspectRTCP(packet)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Random valid values

    static func ssrc(_ rng: inout SeededGenerator) -> SSRC { SSRC(UInt32.random(in: .min ... .max, using: &rng)) }

    static func bytes(_ rng: inout SeededGenerator, max: Int) -> [UInt8] {
        rng.bytes(Int.random(in: 0...max, using: &rng))
    }

    /// Mostly small counts, sometimes the field's maximum.
    static func count(_ rng: inout SeededGenerator, typical: Int, max: Int) -> Int {
        Int.random(in: 0..<20, using: &rng) == 0 ? max : Int.random(in: 0...typical, using: &rng)
    }

    static func receptionReport(_ rng: inout SeededGenerator) -> ReceptionReport {
        ReceptionReport(
            ssrc: ssrc(&rng), fractionLost: .random(in: .min ... .max, using: &rng),
            cumulativeLost: .random(in: -0x80_0000...0x7F_FFFF, using: &rng),
            extendedHighestSequence: .random(in: .min ... .max, using: &rng),
            jitter: .random(in: .min ... .max, using: &rng), lastSR: .random(in: .min ... .max, using: &rng),
            delaySinceLastSR: .random(in: .min ... .max, using: &rng))
    }

    static func senderReport(_ rng: inout SeededGenerator) -> SenderReport {
        SenderReport(
            ssrc: ssrc(&rng), ntpTimestamp: .random(in: .min ... .max, using: &rng),
            rtpTimestamp: .random(in: .min ... .max, using: &rng), packetCount: .random(in: .min ... .max, using: &rng),
            octetCount: .random(in: .min ... .max, using: &rng),
            reports: (0..<count(&rng, typical: 4, max: 31)).map { _ in receptionReport(&rng) })
    }

    static func receiverReport(_ rng: inout SeededGenerator) -> ReceiverReport {
        ReceiverReport(
            ssrc: ssrc(&rng), reports: (0..<count(&rng, typical: 4, max: 31)).map { _ in receptionReport(&rng) })
    }

    static func sourceDescription(_ rng: inout SeededGenerator) -> SourceDescription {
        SourceDescription(
            chunks: (0..<count(&rng, typical: 3, max: 31)).map { _ in
                SourceDescription.Chunk(
                    source: ssrc(&rng),
                    items: (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                        SourceDescription.Item(
                            type: .random(in: 1...255, using: &rng),
                            text: bytes(&rng, max: Bool.random(using: &rng) ? 255 : 12))
                    })
            })
    }

    static func goodbye(_ rng: inout SeededGenerator) -> Goodbye {
        Goodbye(
            sources: (0..<count(&rng, typical: 3, max: 31)).map { _ in ssrc(&rng) },
            reason: Bool.random(using: &rng) ? nil : bytes(&rng, max: Bool.random(using: &rng) ? 255 : 9))
    }

    static func genericNACK(_ rng: inout SeededGenerator) -> GenericNACK {
        GenericNACK(
            senderSSRC: ssrc(&rng), mediaSSRC: ssrc(&rng),
            items: (0..<count(&rng, typical: 8, max: 200)).map { _ in
                NACKItem(
                    packetID: .random(in: .min ... .max, using: &rng),
                    lostBitmask: .random(in: .min ... .max, using: &rng))
            })
    }

    static func pictureLossIndication(_ rng: inout SeededGenerator) -> PictureLossIndication {
        PictureLossIndication(senderSSRC: ssrc(&rng), mediaSSRC: ssrc(&rng))
    }

    static func fullIntraRequest(_ rng: inout SeededGenerator) -> FullIntraRequest {
        FullIntraRequest(
            senderSSRC: ssrc(&rng), mediaSSRC: Bool.random(using: &rng) ? SSRC(0) : ssrc(&rng),
            entries: (0..<count(&rng, typical: 4, max: 100)).map { _ in
                FIREntry(ssrc: ssrc(&rng), sequenceNumber: .random(in: .min ... .max, using: &rng))
            })
    }

    /// A REMB whose bitrate is exactly representable (mantissa << exponent,
    /// exponents 0...46 so it fits 64 bits), so write -> parse is exact.
    static func receiverEstimatedMaxBitrate(_ rng: inout SeededGenerator) -> ReceiverEstimatedMaxBitrate {
        let mantissa = UInt64.random(in: 0...0x3_FFFF, using: &rng)
        let exponent = Int.random(in: 0...46, using: &rng)
        return ReceiverEstimatedMaxBitrate(
            senderSSRC: ssrc(&rng), mediaSSRC: Bool.random(using: &rng) ? SSRC(0) : ssrc(&rng),
            bitrate: mantissa << exponent,
            ssrcs: (0..<count(&rng, typical: 4, max: 255)).map { _ in ssrc(&rng) })
    }

    /// Deltas with random losses, runs (of losses and of equal small
    /// deltas, long enough for run length chunks, sometimes past 8,191),
    /// and large and negative deltas.
    static func transportCCDeltas(_ rng: inout SeededGenerator) -> [Int16?] {
        // At least one: an empty feedback is invalid (libwebrtc rejects it).
        let length = Swift.max(1, count(&rng, typical: 300, max: Bool.random(using: &rng) ? 9000 : 20))
        let lossRate = Double.random(in: 0...0.6, using: &rng)
        let largeRate = Double.random(in: 0...0.3, using: &rng)
        var deltas: [Int16?] = []
        deltas.reserveCapacity(length)
        while deltas.count < length {
            let runLength = min(length - deltas.count, Int.random(in: 0..<10, using: &rng) == 0
                ? Int.random(in: 7...9000, using: &rng) : 1)
            let delta: Int16?
            if Double.random(in: 0..<1, using: &rng) < lossRate {
                delta = nil
            } else if Double.random(in: 0..<1, using: &rng) < largeRate {
                delta = Bool.random(using: &rng)
                    ? .random(in: .min ... -1, using: &rng) : .random(in: 256 ... .max, using: &rng)
            } else {
                delta = .random(in: 0...255, using: &rng)
            }
            for _ in 0..<runLength {
                // Inside a run keep the status, vary the small deltas a little.
                if let delta, (0...255).contains(delta), runLength > 1 {
                    deltas.append(.random(in: 0...255, using: &rng))
                } else {
                    deltas.append(delta)
                }
            }
        }
        return deltas
    }

    static func transportCCFeedback(_ rng: inout SeededGenerator) -> TransportCCFeedback {
        TransportCCFeedback(
            senderSSRC: ssrc(&rng), mediaSSRC: ssrc(&rng), baseSequenceNumber: .random(in: .min ... .max, using: &rng),
            referenceTime: .random(in: -0x80_0000...0x7F_FFFF, using: &rng),
            feedbackPacketCount: .random(in: .min ... .max, using: &rng), deltas: transportCCDeltas(&rng))
    }

    /// One random packet of any kind, encoded, with its value.
    static func anyPacket(_ rng: inout SeededGenerator) throws -> (bytes: [UInt8], value: AnyHashable) {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: let v = senderReport(&rng); return (try write(v), v)
        case 1: let v = receiverReport(&rng); return (try write(v), v)
        case 2: let v = sourceDescription(&rng); return (try write(v), v)
        case 3: let v = goodbye(&rng); return (try write(v), v)
        case 4: let v = genericNACK(&rng); return (try write(v), v)
        case 5: let v = pictureLossIndication(&rng); return (try write(v), v)
        case 6: let v = fullIntraRequest(&rng); return (try write(v), v)
        case 7: let v = receiverEstimatedMaxBitrate(&rng); return (try write(v), v)
        default:
            var v = transportCCFeedback(&rng)
            v.deltas = Array(v.deltas.prefix(400))  // keep compounds small
            return (try write(v), v)
        }
    }
}
