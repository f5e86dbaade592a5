import Packets
import Testing
import VroomTesting

/// Generic NACK (RFC 4585 6.2.1), PLI (6.3.1), FIR (RFC 5104 4.3.1), REMB.
@Suite struct RTCPFeedbackTests {
    // MARK: Generic NACK

    /// Lost 100, 101, 103, 116 (PID 100, BLP bits 0, 2 and 15 = 0x8005)
    /// and 200 (a second pair: 100 more than 16 away).
    static let nack = RTCP.hex("81 CD 00 04 | 00 00 00 01 | 00 00 AB CD | 00 64 80 05 | 00 C8 00 00")

    @Test func nackVectorParsesWritesAndListsTheLostPackets() throws {
        try Self.nack.withRTCPBytes { raw in
            let view = try GenericNACKView(validating: raw)
            #expect(view.senderSSRC == SSRC(1))
            #expect(view.mediaSSRC == SSRC(0xABCD))
            #expect(Array(view.items) == [NACKItem(packetID: 100, lostBitmask: 0x8005), NACKItem(packetID: 200)])
            #expect(Array(view.lostSequenceNumbers) == [100, 101, 103, 116, 200])
        }
        let built = GenericNACK(senderSSRC: SSRC(1), mediaSSRC: SSRC(0xABCD), lostSequenceNumbers: [100, 101, 103, 116, 200])
        #expect(try RTCP.write(built) == Self.nack)
    }

    @Test func nackBuilderHandlesWrapAroundAndDuplicates() throws {
        // 65534, 65535, 0, 5 are 0, 1, 2, 7 after the PID: BLP 0b100_0011.
        let built = GenericNACK(
            senderSSRC: SSRC(1), mediaSSRC: SSRC(2), lostSequenceNumbers: [65534, 65535, 65535, 0, 5, 17, 18])
        #expect(built.items == [NACKItem(packetID: 65534, lostBitmask: 0x0043), NACKItem(packetID: 17, lostBitmask: 1)])
        try RTCP.withTyped(try RTCP.write(built)) { packet in
            guard case .genericNACK(let view) = packet else {
                Issue.record("not a NACK")
                return
            }
            #expect(Array(view.lostSequenceNumbers) == [65534, 65535, 0, 5, 17, 18])
        }
        // An empty list is a NACK with no pairs; parsers accept it.
        let empty = GenericNACK(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), lostSequenceNumbers: [])
        #expect(try RTCP.write(empty) == RTCP.hex("81 CD 00 02 00 00 00 01 00 00 00 02"))
    }

    @Test func nackFromRandomSortedLossesListsThemBack() throws {
        var rng = SeededGenerator(seed: 0x4E41_434B)
        for _ in 0..<2000 {
            var sequenceNumber = UInt16.random(in: .min ... .max, using: &rng)
            var lost: [UInt16] = []
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                lost.append(sequenceNumber)
                // Gaps of 1...40: some within a pair's 16, some past it.
                sequenceNumber &+= UInt16.random(in: 1...40, using: &rng)
            }
            let nack = GenericNACK(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), lostSequenceNumbers: lost)
            try RTCP.withTyped(try RTCP.write(nack)) { packet in
                guard case .genericNACK(let view) = packet else {
                    Issue.record("not a NACK")
                    return
                }
                #expect(Array(view.lostSequenceNumbers) == lost)
                #expect(GenericNACK(view) == nack)
            }
        }
    }

    @Test func nackRefusesAPartialPair() {
        RTCP.hex("81 CD 00 03 00 00 00 01 00 00 00 02 00 64 00").withRTCPBytes { raw in
            // 15 bytes: not even a whole packet.
            #expect(throws: PacketError.self) { try GenericNACKView(validating: raw) }
        }
        // Padding (P, count 2) leaves 2 bytes of FCI.
        RTCP.hex("A1 CD 00 03 00 00 00 01 00 00 00 02 00 64 00 02").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidLength) { try GenericNACKView(validating: raw) }
        }
    }

    // MARK: PLI

    static let pli = RTCP.hex("81 CE 00 02 | 00 00 00 01 | DE AD BE EF")

    @Test func pliVector() throws {
        try Self.pli.withRTCPBytes { raw in
            let view = try PictureLossIndicationView(validating: raw)
            #expect(view.senderSSRC == SSRC(1))
            #expect(view.mediaSSRC == SSRC(0xDEAD_BEEF))
        }
        let value = PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(0xDEAD_BEEF))
        #expect(value.encodedSize == 12)
        #expect(try RTCP.write(value) == Self.pli)
        RTCP.hex("81 CE 00 01 00 00 00 01").withRTCPBytes { raw in
            #expect(throws: PacketError.truncated) { try PictureLossIndicationView(validating: raw) }
        }
    }

    // MARK: FIR

    static let fir = RTCP.hex("84 CE 00 04 | 00 00 00 01 | 00 00 00 00 | DE AD BE EF | 07 00 00 00")

    @Test func firVectorAndTheArrayFreeWriter() throws {
        try Self.fir.withRTCPBytes { raw in
            let view = try FullIntraRequestView(validating: raw)
            #expect(view.senderSSRC == SSRC(1))
            #expect(view.mediaSSRC == SSRC(0))
            #expect(Array(view.entries) == [FIREntry(ssrc: SSRC(0xDEAD_BEEF), sequenceNumber: 7)])
        }
        let value = FullIntraRequest(senderSSRC: SSRC(1), entries: [FIREntry(ssrc: SSRC(0xDEAD_BEEF), sequenceNumber: 7)])
        #expect(try RTCP.write(value) == Self.fir)
        var buffer = [UInt8](repeating: 0xEE, count: FullIntraRequest.singleEntrySize)
        let written = try buffer.withUnsafeMutableBytes { raw in
            try FullIntraRequest.write(
                senderSSRC: SSRC(1), entry: FIREntry(ssrc: SSRC(0xDEAD_BEEF), sequenceNumber: 7), to: raw)
        }
        #expect(written == 20)
        #expect(buffer == Self.fir)
        _ = buffer.withUnsafeMutableBytes { raw in
            #expect(throws: PacketError.bufferTooSmall) {
                try FullIntraRequest.write(
                    senderSSRC: SSRC(1), entry: FIREntry(ssrc: SSRC(2), sequenceNumber: 0),
                    to: UnsafeMutableRawBufferPointer(rebasing: raw[0..<19]))
            }
        }
        // Half an entry.
        RTCP.hex("84 CE 00 03 00 00 00 01 00 00 00 00 DE AD BE EF").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidLength) { try FullIntraRequestView(validating: raw) }
        }
    }

    // MARK: REMB

    /// 1,000,000 bit/s = 250,000 * 2^2: exponent 2, mantissa 0x3D090, one
    /// SSRC. 0x01 << 24 | 2 << 18 | 0x3D090 = 0x010BD090.
    static let remb = RTCP.hex("8F CE 00 05 | 00 00 00 01 | 00 00 00 00 | 52 45 4D 42 | 01 0B D0 90 | 12 34 56 78")

    @Test func rembVectorAndTheArrayFreeWriter() throws {
        try Self.remb.withRTCPBytes { raw in
            let view = try ReceiverEstimatedMaxBitrateView(validating: raw)
            #expect(view.senderSSRC == SSRC(1))
            #expect(view.bitrateExponent == 2)
            #expect(view.bitrateMantissa == 250_000)
            #expect(view.bitrate == 1_000_000)
            #expect(Array(view.ssrcs) == [SSRC(0x1234_5678)])
        }
        let value = ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(1), bitrate: 1_000_000, ssrcs: [SSRC(0x1234_5678)])
        #expect(try RTCP.write(value) == Self.remb)
        var buffer = [UInt8](repeating: 0xEE, count: 24)
        let written = try buffer.withUnsafeMutableBytes { raw in
            try ReceiverEstimatedMaxBitrate.write(senderSSRC: SSRC(1), bitrate: 1_000_000, ssrc: SSRC(0x1234_5678), to: raw)
        }
        #expect(written == 24)
        #expect(buffer == Self.remb)
    }

    @Test func rembPicksTheSmallestExponentAndRoundsDown() {
        #expect(ReceiverEstimatedMaxBitrate.encode(bitrate: 0) == (0, 0))
        #expect(ReceiverEstimatedMaxBitrate.encode(bitrate: 0x3_FFFF) == (0, 0x3_FFFF))
        #expect(ReceiverEstimatedMaxBitrate.encode(bitrate: 0x4_0000) == (1, 0x2_0000))
        // 1,000,001 loses its last two bits: announced as 1,000,000.
        #expect(ReceiverEstimatedMaxBitrate.encode(bitrate: 1_000_001) == (2, 250_000))
        #expect(ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(1), bitrate: 1_000_001, ssrcs: []).quantizedBitrate == 1_000_000)
        #expect(ReceiverEstimatedMaxBitrate.encode(bitrate: .max) == (46, 0x3_FFFF))
    }

    @Test func rembBitrateSaturatesAtHugeExponents() throws {
        // Exponent 63, mantissa 0x3FFFF: far beyond 64 bits.
        try RTCP.hex("8F CE 00 04 00 00 00 01 00 00 00 00 52 45 4D 42 00 FF FF FF").withRTCPBytes { raw in
            let view = try ReceiverEstimatedMaxBitrateView(validating: raw)
            #expect(view.bitrateExponent == 63)
            #expect(view.bitrate == .max)
        }
    }

    @Test func rembRefusesSSRCsPastTheEndAndAWrongIdentifier() {
        // Num SSRC 2, one present.
        RTCP.hex("8F CE 00 05 00 00 00 01 00 00 00 00 52 45 4D 42 02 0B D0 90 12 34 56 78").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidLength) { try ReceiverEstimatedMaxBitrateView(validating: raw) }
        }
        RTCP.hex("8F CE 00 04 00 00 00 01 00 00 00 00 52 45 4D 43 00 0B D0 90").withRTCPBytes { raw in
            #expect(throws: PacketError.invalidType) { try ReceiverEstimatedMaxBitrateView(validating: raw) }
        }
    }

    @Test func randomFeedbackRoundTrips() throws {
        var rng = SeededGenerator(seed: 0x4642_4B21)
        for _ in 0..<2000 {
            let nack = RTCP.genericNACK(&rng)
            try RTCP.withTyped(try RTCP.write(nack)) { #expect(RTCP.value(of: $0) == AnyHashable(nack)) }
            let pli = RTCP.pictureLossIndication(&rng)
            try RTCP.withTyped(try RTCP.write(pli)) { #expect(RTCP.value(of: $0) == AnyHashable(pli)) }
            let fir = RTCP.fullIntraRequest(&rng)
            try RTCP.withTyped(try RTCP.write(fir)) { #expect(RTCP.value(of: $0) == AnyHashable(fir)) }
            let remb = RTCP.receiverEstimatedMaxBitrate(&rng)
            try RTCP.withTyped(try RTCP.write(remb)) { #expect(RTCP.value(of: $0) == AnyHashable(remb)) }
            // Any bitrate: what comes back is the rounded-down one, within
            // 2^-17 relative.
            var any = remb
            any.bitrate = .random(in: 0...(1 << 40), using: &rng)
            try RTCP.withTyped(try RTCP.write(any)) { packet in
                guard case .receiverEstimatedMaxBitrate(let view) = packet else {
                    Issue.record("not a REMB")
                    return
                }
                #expect(view.bitrate == any.quantizedBitrate)
                #expect(view.bitrate <= any.bitrate)
                #expect(any.bitrate - view.bitrate <= any.bitrate >> 17)
            }
        }
    }
}
