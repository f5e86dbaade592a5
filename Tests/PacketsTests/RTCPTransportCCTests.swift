import Packets
import Testing
import VroomTesting

/// Transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
@Suite struct RTCPTransportCCTests {
    /// 28 packets from base 65530 (so the sequence wraps at index 6),
    /// reference time -2 (x 64 ms), feedback count 7:
    /// - 0...8: received, small delta 4 (1 ms): run length chunk, S=01,
    ///   run 9: 0b0_01_0000000001001 = 0x2009;
    /// - 9...22: 1-bit vector N S N S S N N N S S S S N S:
    ///   0b1_0_01011000111101 = 0x963D, small deltas 0x10...0x17;
    /// - 23...27: 2-bit vector S L N L S (+ 2 unused symbols):
    ///   0b1_1_01_10_00_10_01_00_00 = 0xD890, deltas 0x20, -4, 1000, 255.
    /// 20 + 6 chunk bytes + 23 delta bytes = 49: 3 bytes of padding, with P
    /// and the pad count as libwebrtc writes them; length 52 / 4 - 1 = 12.
    static let vector = RTCP.hex(
        """
        AF CD 00 0C | 00 00 00 01 | 11 22 33 44 | FF FA 00 1C | FF FF FE 07
        20 09 | 96 3D | D8 90
        04 04 04 04 04 04 04 04 04
        10 11 12 13 14 15 16 17
        20 FF FC 03 E8 FF
        00 00 03
        """)

    static let deltas: [Int16?] =
        Array(repeating: 4, count: 9)
        + [nil, 0x10, nil, 0x11, 0x12, nil, nil, nil, 0x13, 0x14, 0x15, 0x16, nil, 0x17]
        + [0x20, -4, nil, 1000, 255]

    static let value = TransportCCFeedback(
        senderSSRC: SSRC(1), mediaSSRC: SSRC(0x1122_3344), baseSequenceNumber: 65530, referenceTime: -2,
        feedbackPacketCount: 7, deltas: deltas)

    private func check(_ view: TransportCCFeedbackView) {
        #expect(view.senderSSRC == SSRC(1))
        #expect(view.mediaSSRC == SSRC(0x1122_3344))
        #expect(view.baseSequenceNumber == 65530)
        #expect(view.packetStatusCount == 28)
        #expect(view.referenceTime == -2)
        #expect(view.feedbackPacketCount == 7)
        let packets = Array(view.packets)
        #expect(packets.count == 28)
        #expect(packets.map(\.delta) == Self.deltas)
        #expect(packets.map(\.sequenceNumber) == (0..<28).map { 65530 &+ UInt16($0) })
        #expect(packets[6].sequenceNumber == 0)
        #expect(packets[0].status == .receivedSmallDelta)
        #expect(packets[9] == TransportCCPacketResult(sequenceNumber: 3, status: .notReceived, delta: nil))
        #expect(packets[24] == TransportCCPacketResult(sequenceNumber: 18, status: .receivedLargeDelta, delta: -4))
        #expect(packets[26].status == .receivedLargeDelta)
        #expect(packets[27] == TransportCCPacketResult(sequenceNumber: 21, status: .receivedSmallDelta, delta: 255))
    }

    @Test func parsesTheHandWrittenVector() throws {
        try Self.vector.withRTCPBytes { raw in
            check(try TransportCCFeedbackView(validating: raw))
        }
    }

    @Test func writesTheHandWrittenVectorByteForByte() throws {
        #expect(Self.value.encodedSize == 52)
        #expect(try RTCP.write(Self.value) == Self.vector)
    }

    @Test func acceptsZeroFillWithoutThePBit() throws {
        var zeroFilled = Self.vector
        zeroFilled[0] = 0x8F
        zeroFilled[51] = 0
        try zeroFilled.withRTCPBytes { raw in
            let view = try TransportCCFeedbackView(validating: raw)
            check(view)
            #expect(TransportCCFeedback(view) == Self.value)
        }
    }

    @Test func longRunsSplitAt8191() throws {
        let losses = TransportCCFeedback(
            senderSSRC: SSRC(1), mediaSSRC: SSRC(2), baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
            deltas: Array(repeating: nil, count: 10000))
        let bytes = try RTCP.write(losses)
        // Two run length chunks (N x 8191, N x 1809), no deltas, no padding.
        #expect(bytes.count == 24)
        #expect(Array(bytes[20..<24]) == [0x1F, 0xFF, 0x07, 0x11])
        try RTCP.withTyped(bytes) { #expect(RTCP.value(of: $0) == AnyHashable(losses)) }
    }

    /// Status count 0: libwebrtc's parser rejects it ("Empty feedback
    /// messages not allowed"), so neither side accepts it.
    @Test func anEmptyFeedbackIsRefusedByWriterAndParser() {
        let empty = TransportCCFeedback(
            senderSSRC: SSRC(1), mediaSSRC: SSRC(2), baseSequenceNumber: 9, referenceTime: 0x7F_FFFF,
            feedbackPacketCount: 255, deltas: [])
        #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(empty) }
        RTCP.hex("8F CD 00 04 00 00 00 01 00 00 00 02 00 09 00 00 7F FF FF FF").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try TransportCCFeedbackView(validating: raw) }
            #expect(throws: PacketError.invalidField) { try RTCPPacketView(validating: raw).typed() }
        }
        // Count 0 with a chunk and a delta after it is refused all the same.
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 09 00 00 00 00 01 00 20 01 04 00").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try TransportCCFeedbackView(validating: raw) }
        }
        // The same packet with count 1 parses.
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 09 00 01 00 00 01 00 20 01 04 00").withRTCPBytes { raw in
            #expect(throws: Never.self) { try TransportCCFeedbackView(validating: raw) }
        }
    }

    /// The reference time is a wrapping 24-bit counter: libwebrtc writes it
    /// modulo 2^24, so the writer does too and a view reads the low 24 bits
    /// sign-extended.
    @Test func referenceTimeOutside24BitsIsWrittenModulo2To24() throws {
        let cases: [(written: Int32, field: [UInt8], read: Int32)] = [
            (0x80_0000, [0x80, 0x00, 0x00], -0x80_0000),
            (-0x80_0001, [0x7F, 0xFF, 0xFF], 0x7F_FFFF),
            (0x0100_0005, [0x00, 0x00, 0x05], 5),
            (-0x0100_0000, [0x00, 0x00, 0x00], 0),
            (.min, [0x00, 0x00, 0x00], 0),
            (.max, [0xFF, 0xFF, 0xFF], -1),
        ]
        for (written, field, read) in cases {
            var value = Self.value
            value.referenceTime = written
            let bytes = try RTCP.write(value)
            #expect(Array(bytes[16..<19]) == field)
            #expect(bytes[19] == value.feedbackPacketCount)
            try bytes.withRTCPBytes { raw in
                let view = try TransportCCFeedbackView(validating: raw)
                #expect(view.referenceTime == read)
                // Equal to what was written modulo 2^24, sign-extended.
                #expect(view.referenceTime == (written << 8) >> 8)
                var expected = value
                expected.referenceTime = read
                #expect(TransportCCFeedback(view) == expected)
            }
        }
    }

    @Test func onlySmallDeltasAndLossesUseOneBitVectorsOfFourteen() throws {
        // Alternating received/lost: never a run, all 1-bit vectors; 30
        // statuses = 14 + 14 + 2 (a partial last vector).
        let deltas: [Int16?] = (0..<30).map { $0 % 2 == 0 ? 1 : nil }
        let value = TransportCCFeedback(
            senderSSRC: SSRC(1), mediaSSRC: SSRC(2), baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
            deltas: deltas)
        let bytes = try RTCP.write(value)
        #expect(Array(bytes[20..<26]) == [0xAA, 0xAA, 0xAA, 0xAA, 0xA0, 0x00])
        try RTCP.withTyped(bytes) { #expect(RTCP.value(of: $0) == AnyHashable(value)) }
    }

    @Test func refusesChunksOrDeltasPastTheEndAndReservedSymbols() {
        // Status count 28 with the chunk list cut after the first chunk.
        RTCP.hex("8F CD 00 05 00 00 00 01 11 22 33 44 FF FA 00 1C FF FF FE 07 20 09 00 00").withRTCPBytes { raw in
            #expect(throws: PacketError.truncated) { try TransportCCFeedbackView(validating: raw) }
        }
        // One small-delta status, no delta byte (the chunk fills the words).
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 01 00 00 00 00 20 01 00 00").withRTCPBytes { raw in
            // 2 bytes after the chunk are taken as the delta: valid.
            #expect(throws: Never.self) { try TransportCCFeedbackView(validating: raw) }
        }
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00 00 40 03 00 00").withRTCPBytes { raw in
            // Run of 3 large deltas needs 6 bytes, 2 present.
            #expect(throws: PacketError.truncated) { try TransportCCFeedbackView(validating: raw) }
        }
        // Reserved symbol 11 in a run length chunk and in a 2-bit vector.
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 01 00 00 00 00 60 01 00 00").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try TransportCCFeedbackView(validating: raw) }
        }
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 01 00 00 00 00 F0 00 00 00").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidField) { try TransportCCFeedbackView(validating: raw) }
        }
        // A reserved symbol past the status count is ignored.
        RTCP.hex("8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 01 00 00 00 00 C3 00 00 00").withRTCPBytes { raw in
            #expect(throws: Never.self) { try TransportCCFeedbackView(validating: raw) }
        }
    }

    @Test func writerRefusesValuesThatDoNotFit() {
        var value = Self.value
        value.deltas = Array(repeating: nil, count: 0x1_0000)
        #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(value) }
        value.deltas = []
        #expect(throws: PacketError.valueOutOfRange) { try RTCP.write(value) }
    }

    @Test func randomFeedbacksRoundTrip() throws {
        var rng = SeededGenerator(seed: 0x5457_4343)
        for _ in 0..<2000 {
            let value = RTCP.transportCCFeedback(&rng)
            let bytes = try RTCP.write(value)
            #expect(bytes.count % 4 == 0)
            // P is set exactly when padding was needed, with the count last.
            if bytes[0] & 0x20 != 0 {
                #expect((1...3).contains(bytes[bytes.count - 1]))
            }
            try RTCP.withTyped(bytes) { packet in
                guard case .transportCCFeedback(let view) = packet else {
                    Issue.record("not transport-cc")
                    return
                }
                for packet in view.packets {
                    #expect(packet.status == TransportCCStatus(delta: packet.delta))
                }
                #expect(TransportCCFeedback(view) == value)
            }
        }
    }
}
