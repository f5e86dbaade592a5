import Packets
import Testing
import VroomTesting

@Suite struct RTCPCompoundPacketTests {
    /// SR with two report blocks, SDES with a CNAME, BYE with a reason: the
    /// compound a sender emits when it leaves (RFC 3550 sections 6.1, 6.4.1,
    /// 6.5, 6.6), written out field by field from the diagrams.
    static let srSdesBye = RTCP.hex(
        """
        82 C8 00 12 | 12 34 56 78 | E1 C2 B3 A4 80 00 00 00 | 00 01 E2 40 | 00 00 00 64 | 00 00 3E 80
        AA BB CC DD | 40 00 00 05 | 00 01 00 10 | 00 00 00 20 | B3 A4 80 00 | 00 01 00 00
        01 02 03 04 | 00 FF FF FD | 00 00 FF FF | 00 00 00 00 | 00 00 00 00 | 00 00 00 00
        81 CA 00 03 | 12 34 56 78 | 01 04 61 62 63 64 00 00
        81 CB 00 02 | 12 34 56 78 | 03 62 79 65
        """)

    static let expectedSR = SenderReport(
        ssrc: SSRC(0x1234_5678), ntpTimestamp: 0xE1C2_B3A4_8000_0000, rtpTimestamp: 123_456, packetCount: 100,
        octetCount: 16000,
        reports: [
            ReceptionReport(
                ssrc: SSRC(0xAABB_CCDD), fractionLost: 64, cumulativeLost: 5, extendedHighestSequence: 0x1_0010,
                jitter: 32, lastSR: 0xB3A4_8000, delaySinceLastSR: 0x1_0000),
            ReceptionReport(ssrc: SSRC(0x0102_0304), cumulativeLost: -3, extendedHighestSequence: 0xFFFF),
        ])
    static let expectedSDES = SourceDescription(source: SSRC(0x1234_5678), cname: "abcd")
    static let expectedBYE = Goodbye(sources: [SSRC(0x1234_5678)], reason: "bye")

    @Test func parsesSenderReportSDESAndByeCompoundFieldByField() throws {
        try Self.srSdesBye.withRTCPBytes { raw in
            let compound = try RTCPCompoundPacket(validating: raw)
            let packets = Array(compound)
            try #require(packets.count == 3)

            let first = packets[0]
            #expect(first.packetType == RTCPPacketType.senderReport)
            #expect(first.countOrFormat == 2)
            #expect(first.bytes.count == 76)
            guard case .senderReport(let sr) = try first.typed() else {
                Issue.record("not an SR")
                return
            }
            #expect(sr.ssrc == SSRC(0x1234_5678))
            #expect(sr.ntpTimestamp == 0xE1C2_B3A4_8000_0000)
            #expect(sr.rtpTimestamp == 123_456)
            #expect(sr.packetCount == 100)
            #expect(sr.octetCount == 16000)
            #expect(sr.reports.count == 2)
            let block = sr.reports[0]
            #expect(block.ssrc == SSRC(0xAABB_CCDD))
            #expect(block.fractionLost == 64)
            #expect(block.cumulativeLost == 5)
            #expect(block.extendedHighestSequence == 0x0001_0010)
            #expect(block.jitter == 32)
            #expect(block.lastSR == 0xB3A4_8000)
            #expect(block.delaySinceLastSR == 0x0001_0000)
            #expect(sr.reports[1].ssrc == SSRC(0x0102_0304))
            #expect(sr.reports[1].cumulativeLost == -3)
            #expect(sr.reports[1].extendedHighestSequence == 0xFFFF)
            #expect(sr.profileExtension.isEmpty)

            let second = packets[1]
            guard case .sourceDescription(let sdes) = try second.typed() else {
                Issue.record("not an SDES")
                return
            }
            let chunks = Array(sdes.chunks)
            try #require(chunks.count == 1)
            #expect(chunks[0].source == SSRC(0x1234_5678))
            let items = Array(chunks[0].items)
            try #require(items.count == 1)
            #expect(items[0].type == SDESItemType.cname)
            #expect(Array(items[0].text) == Array("abcd".utf8))

            let third = packets[2]
            guard case .goodbye(let bye) = try third.typed() else {
                Issue.record("not a BYE")
                return
            }
            #expect(Array(bye.sources) == [SSRC(0x1234_5678)])
            #expect(bye.reason.map(Array.init) == Array("bye".utf8))

            #expect(RTCP.value(of: try first.typed()) == AnyHashable(Self.expectedSR))
            #expect(RTCP.value(of: try second.typed()) == AnyHashable(Self.expectedSDES))
            #expect(RTCP.value(of: try third.typed()) == AnyHashable(Self.expectedBYE))
        }
    }

    @Test func compoundWriterProducesTheSameBytes() throws {
        var buffer = [UInt8](repeating: 0xEE, count: 200)
        let count = try buffer.withUnsafeMutableBytes { raw in
            var writer = RTCPCompoundWriter(buffer: raw)
            try writer.append(Self.expectedSR)
            try writer.append(Self.expectedSDES)
            try writer.append(Self.expectedBYE)
            return writer.count
        }
        #expect(Array(buffer[..<count]) == Self.srSdesBye)
    }

    @Test func compoundWriterTakesTheArrayFreeWriters() throws {
        var buffer = [UInt8](repeating: 0xEE, count: 100)
        let count = try buffer.withUnsafeMutableBytes { raw in
            var writer = RTCPCompoundWriter(buffer: raw)
            try writer.append(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(0xDEAD_BEEF)))
            try writer.append { out throws(PacketError) in
                try FullIntraRequest.write(
                    senderSSRC: SSRC(1), entry: FIREntry(ssrc: SSRC(0xDEAD_BEEF), sequenceNumber: 7), to: out)
            }
            try writer.append { out throws(PacketError) in
                try ReceiverEstimatedMaxBitrate.write(
                    senderSSRC: SSRC(1), bitrate: 1_000_000, ssrc: SSRC(0x1234_5678), to: out)
            }
            return writer.count
        }
        #expect(Array(buffer[..<count]) == RTCPFeedbackTests.pli + RTCPFeedbackTests.fir + RTCPFeedbackTests.remb)
    }

    @Test func compoundWriterRefusesAPacketThatDoesNotFitAndKeepsTheRest() throws {
        var buffer = [UInt8](repeating: 0, count: 20)
        try buffer.withUnsafeMutableBytes { raw in
            var writer = RTCPCompoundWriter(buffer: raw)
            try writer.append(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))
            #expect(throws: PacketError.bufferTooSmall) {
                try writer.append(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))
            }
            #expect(writer.count == 12)
            #expect(writer.written.count == 12)
        }
    }

    /// A writer that reports more bytes than it was given.
    private struct OverclaimingWriter: RTCPPacketWriter {
        var encodedSize: Int { 4 }
        func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int { buffer.count + 4 }
    }

    /// A writer that reports a negative size.
    private struct NegativeWriter: RTCPPacketWriter {
        var encodedSize: Int { 0 }
        func write(to buffer: UnsafeMutableRawBufferPointer) throws(PacketError) -> Int { -4 }
    }

    @Test func compoundWriterRefusesAWriterThatClaimsMoreThanTheBuffer() throws {
        var buffer = [UInt8](repeating: 0, count: 20)
        try buffer.withUnsafeMutableBytes { raw in
            var writer = RTCPCompoundWriter(buffer: raw)
            try writer.append(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))
            #expect(throws: PacketError.bufferTooSmall) { try writer.append(OverclaimingWriter()) }
            #expect(throws: PacketError.bufferTooSmall) { try writer.append(NegativeWriter()) }
            #expect(writer.count == 12)
            #expect(writer.written.count == 12)
        }
    }

    private func validate(_ bytes: [UInt8]) throws(PacketError) -> Int {
        var result: Result<Int, PacketError> = .success(0)
        bytes.withRTCPBytes { raw in
            do throws(PacketError) {
                result = .success(try RTCPCompoundPacket(validating: raw).reduce(0) { count, _ in count + 1 })
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    @Test func refusesMalformedCompounds() throws {
        let pli = RTCP.hex("81 CE 00 02 00 00 00 01 00 00 00 02")
        #expect(try validate(pli) == 1)
        #expect(try validate(pli + pli) == 2)
        #expect(throws: PacketError.truncated) { try validate([]) }
        #expect(throws: PacketError.truncated) { try validate([0x81, 0xCE, 0x00]) }
        // Version 1 in the second packet.
        #expect(throws: PacketError.invalidVersion) { try validate(pli + [0x41] + pli.dropFirst()) }
        // Length says 4 words, 3 present.
        #expect(throws: PacketError.truncated) { try validate(RTCP.hex("81 CE 00 03 00 00 00 01 00 00 00 02")) }
        // A trailing partial header.
        #expect(throws: PacketError.truncated) { try validate(pli + [0x80, 0xC9]) }
        // P set, pad count 0.
        #expect(throws: PacketError.invalidPadding) { try validate(RTCP.hex("A1 CE 00 02 00 00 00 01 00 00 00 00")) }
        // P set, pad count larger than the body (8 bytes).
        #expect(throws: PacketError.invalidPadding) { try validate(RTCP.hex("A1 CE 00 02 00 00 00 01 00 00 00 09")) }
        // P set, pad count equal to the body: allowed by the header rules.
        #expect(try validate(RTCP.hex("A0 C9 00 02 00 00 00 00 00 00 00 08")) == 1)
    }

    @Test func acceptsPaddingOnAnyPacketAsLibwebrtcSendsIt() throws {
        // Two padded transport-cc feedbacks back to back, as libwebrtc packs
        // them: RFC 3550 wants padding only on the last packet.
        let twcc = RTCPTransportCCTests.vector
        #expect(twcc[0] & 0x20 != 0)
        #expect(try validate(twcc + twcc) == 2)
    }

    @Test func singlePacketViewRequiresTheExactLength() throws {
        let pli = RTCP.hex("81 CE 00 02 00 00 00 01 00 00 00 02")
        pli.withRTCPBytes { raw in
            #expect(throws: PacketError.truncated) { try RTCPPacketView(validating: UnsafeRawBufferPointer(rebasing: raw[0..<8])) }
        }
        (pli + [0, 0, 0, 0]).withRTCPBytes { raw in
            #expect(throws: PacketError.invalidLength) { try RTCPPacketView(validating: raw) }
        }
    }

    @Test func typedViewsRefuseTheWrongType() throws {
        let pli = RTCP.hex("81 CE 00 02 00 00 00 01 00 00 00 02")
        pli.withRTCPBytes { raw in
            #expect(throws: PacketError.invalidType) { try SenderReportView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try ReceiverReportView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try SourceDescriptionView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try GoodbyeView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try GenericNACKView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try TransportCCFeedbackView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try FullIntraRequestView(validating: raw) }
            #expect(throws: PacketError.invalidType) { try ReceiverEstimatedMaxBitrateView(validating: raw) }
        }
    }

    @Test func unknownTypesAndNonREMBApplicationFeedbackAreOther() throws {
        // APP (204), then PSFB FMT 15 with another identifier.
        let app = RTCP.hex("80 CC 00 02 00 00 00 01 54 45 53 54")
        let afb = RTCP.hex("8F CE 00 04 00 00 00 01 00 00 00 00 47 4F 4F 47 00 00 00 00")
        for bytes in [app, afb] {
            try RTCP.withTyped(bytes) { packet in
                guard case .other(let view) = packet else {
                    Issue.record("expected .other")
                    return
                }
                #expect(Array(view.bytes) == bytes)
            }
        }
    }

    /// Random compounds of every packet kind -> RTCPCompoundWriter ->
    /// RTCPCompoundPacket -> typed views -> values: equal to what was written.
    @Test func randomCompoundsRoundTrip() throws {
        var rng = SeededGenerator(seed: 0x5254_4350)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        for _ in 0..<1000 {
            var packets: [(bytes: [UInt8], value: AnyHashable)] = []
            for _ in 0..<Int.random(in: 1...5, using: &rng) { packets.append(try RTCP.anyPacket(&rng)) }
            let total = packets.reduce(0) { $0 + $1.bytes.count }
            guard total <= buffer.count else { continue }
            let count = buffer.withUnsafeMutableBytes { raw in
                var offset = 0
                for packet in packets {
                    UnsafeMutableRawBufferPointer(rebasing: raw[offset...]).copyBytes(from: packet.bytes)
                    offset += packet.bytes.count
                }
                return offset
            }
            try buffer.withRTCPBytes { raw in
                let compound = try RTCPCompoundPacket(validating: UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                var index = 0
                for packet in compound {
                    let typed = try packet.typed()
                    #expect(RTCP.touch(typed) == nil)
                    #expect(RTCP.value(of: typed) == packets[index].value)
                    index += 1
                }
                #expect(index == packets.count)
            }
        }
    }
}
