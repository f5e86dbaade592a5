import Packets
import Testing
import VroomTesting

/// SR, RR, SDES and BYE (RFC 3550 sections 6.4 to 6.6).
@Suite struct RTCPReportTests {
    @Test func senderReportWithoutBlocksWritesAndParses() throws {
        let bytes = RTCP.hex(
            "80 C8 00 06 | 00 00 04 D2 | 83 AA 7E 80 00 00 00 01 | FF FF FF FF | 00 00 00 0A | 00 00 05 DC")
        let value = SenderReport(
            ssrc: SSRC(1234), ntpTimestamp: 0x83AA_7E80_0000_0001, rtpTimestamp: .max, packetCount: 10,
            octetCount: 1500)
        #expect(try RTCP.write(value) == bytes)
        try bytes.withRTCPBytes { raw in
            let view = try SenderReportView(validating: raw)
            #expect(view.reports.isEmpty)
            #expect(SenderReport(view) == value)
        }
    }

    @Test func receiverReportWithOneBlockAndAProfileExtension() throws {
        // RR, RC=1, one block with cumulative lost = -8,388,608 (the 24-bit
        // minimum), then 4 bytes of profile-specific extension.
        let bytes = RTCP.hex(
            """
            81 C9 00 08 | 00 00 00 2A
            00 00 00 07 | FF 80 00 00 | 00 02 FF FE | 00 00 01 00 | 00 00 00 00 | 00 00 00 00
            DE AD BE EF
            """)
        try bytes.withRTCPBytes { raw in
            let view = try ReceiverReportView(validating: raw)
            #expect(view.ssrc == SSRC(42))
            #expect(view.reportCount == 1)
            let block = view.reports[0]
            #expect(block.ssrc == SSRC(7))
            #expect(block.fractionLost == 255)
            #expect(block.cumulativeLost == -8_388_608)
            #expect(block.extendedHighestSequence == 0x0002_FFFE)
            #expect(block.jitter == 256)
            #expect(Array(view.profileExtension) == [0xDE, 0xAD, 0xBE, 0xEF])
            // The extension is not part of the value: writing drops it.
            let value = ReceiverReport(view)
            #expect(try RTCP.write(value) == Array(bytes[0..<32]).with(byte: 3, 7))
        }
    }

    @Test func receptionReportRefusesACumulativeLossOutside24Bits() throws {
        for lost: Int32 in [0x80_0000, -0x80_0001, .max, .min] {
            let value = ReceiverReport(ssrc: SSRC(1), reports: [ReceptionReport(ssrc: SSRC(2), cumulativeLost: lost)])
            #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(value) }
        }
        let tooMany = ReceiverReport(ssrc: SSRC(1), reports: Array(repeating: ReceptionReport(ssrc: SSRC(2)), count: 32))
        #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(tooMany) }
    }

    @Test func reportsRefuseBlocksPastTheLength() throws {
        // RC=1 but no block.
        RTCP.hex("81 C9 00 01 00 00 00 2A").withRTCPBytes { raw in
            #expect(throws: PacketError.truncated) { try ReceiverReportView(validating: raw) }
        }
        RTCP.hex("81 C8 00 06 00 00 00 2A 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")
            .withRTCPBytes { raw in
                #expect(throws: PacketError.truncated) { try SenderReportView(validating: raw) }
            }
    }

    @Test func sdesWithTwoChunksAndAnItemEndingOnABoundary() throws {
        // Chunk 1: CNAME "abcdef" ends on a 32-bit boundary, so the null
        // octet needs a whole word of 4 nulls. Chunk 2: NAME "x" and TOOL "",
        // one null then alignment.
        let bytes = RTCP.hex(
            """
            82 CA 00 07
            00 00 00 01 | 01 06 61 62 63 64 65 66 | 00 00 00 00
            00 00 00 02 | 02 01 78 | 06 00 | 00 00 00
            """)
        let value = SourceDescription(chunks: [
            .init(source: SSRC(1), items: [.init(type: SDESItemType.cname, text: "abcdef")]),
            .init(source: SSRC(2), items: [.init(type: SDESItemType.name, text: "x"), .init(type: SDESItemType.tool, text: "")]),
        ])
        #expect(value.encodedSize == 32)
        #expect(try RTCP.write(value) == bytes)
        try bytes.withRTCPBytes { raw in
            let view = try SourceDescriptionView(validating: raw)
            #expect(view.chunkCount == 2)
            #expect(SourceDescription(view) == value)
        }
    }

    @Test func sdesRefusesItemsThatRunPastThePacket() throws {
        // Item length 9 with 6 bytes left.
        RTCP.hex("81 CA 00 03 00 00 00 01 01 09 61 62 63 64 00 00").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try SourceDescriptionView(validating: raw) }
        }
        // No null octet before the end.
        RTCP.hex("81 CA 00 02 00 00 00 01 01 02 61 62").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try SourceDescriptionView(validating: raw) }
        }
        // SC=2, one chunk present.
        RTCP.hex("82 CA 00 02 00 00 00 01 00 00 00 00").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try SourceDescriptionView(validating: raw) }
        }
    }

    @Test func sdesWriterRefusesBadItems() {
        let nullType = SourceDescription(chunks: [.init(source: SSRC(1), items: [.init(type: 0, text: "a")])])
        #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(nullType) }
        let long = SourceDescription(chunks: [.init(source: SSRC(1), items: [.init(type: 1, text: [UInt8](repeating: 65, count: 256))])])
        #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(long) }
    }

    @Test func byeWithoutReasonWithEmptyReasonAndPaddedReason() throws {
        let noReason = RTCP.hex("82 CB 00 02 00 00 00 01 00 00 00 02")
        let emptyReason = RTCP.hex("81 CB 00 02 00 00 00 01 00 00 00 00")
        // "hello": 1 + 5 bytes, padded with 2 nulls.
        let padded = RTCP.hex("80 CB 00 02 05 68 65 6C 6C 6F 00 00")
        let values = [
            Goodbye(sources: [SSRC(1), SSRC(2)]),
            Goodbye(sources: [SSRC(1)], reason: []),
            Goodbye(sources: [], reason: "hello"),
        ]
        for (bytes, value) in zip([noReason, emptyReason, padded], values) {
            #expect(try RTCP.write(value) == bytes)
            try bytes.withRTCPBytes { raw throws in
                #expect(Goodbye(try GoodbyeView(validating: raw)) == value)
            }
        }
        // Reason length 9 with 7 bytes left.
        RTCP.hex("80 CB 00 02 09 68 65 6C 6C 6F 00 00").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try GoodbyeView(validating: raw) }
        }
    }

    @Test func randomReportsRoundTrip() throws {
        var rng = SeededGenerator(seed: 0x5245_504F)
        for _ in 0..<2000 {
            let sr = RTCP.senderReport(&rng)
            try RTCP.withTyped(try RTCP.write(sr)) { #expect(RTCP.value(of: $0) == AnyHashable(sr)) }
            let rr = RTCP.receiverReport(&rng)
            try RTCP.withTyped(try RTCP.write(rr)) { #expect(RTCP.value(of: $0) == AnyHashable(rr)) }
            let sdes = RTCP.sourceDescription(&rng)
            try RTCP.withTyped(try RTCP.write(sdes)) { #expect(RTCP.value(of: $0) == AnyHashable(sdes)) }
            let bye = RTCP.goodbye(&rng)
            try RTCP.withTyped(try RTCP.write(bye)) { #expect(RTCP.value(of: $0) == AnyHashable(bye)) }
        }
    }
}

extension Array where Element == UInt8 {
    /// A copy with byte `index` replaced (here: fixing up a length field).
    fileprivate func with(byte index: Int, _ value: UInt8) -> [UInt8] {
        var copy = self
        copy[index] = value
        return copy
    }
}
