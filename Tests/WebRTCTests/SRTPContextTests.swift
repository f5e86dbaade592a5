import Testing
@testable import WebRTC

@Suite struct SRTPContextTests {
    /// libsrtp's reference packet (test/srtp_driver.c, `srtp_validate`):
    /// AES_CM_128_HMAC_SHA1_80, master key || salt below, SSRC 0xcafebabe.
    static let referenceKey: [UInt8] = [
        0xE1, 0xF9, 0x7A, 0x0D, 0x3E, 0x01, 0x8B, 0xE0, 0xD6, 0x4F, 0xA3, 0x2C, 0x06, 0xDE, 0x41, 0x39,
        0x0E, 0xC6, 0x75, 0xAD, 0x49, 0x8A, 0xFE, 0xEB, 0xB6, 0x96, 0x0B, 0x3A, 0xAB, 0xE6,
    ]
    static let referencePlaintext: [UInt8] = [
        0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE,
    ] + [UInt8](repeating: 0xAB, count: 16)
    static let referenceCiphertext: [UInt8] = [
        0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE, 0x4E, 0x55, 0xDC, 0x4C,
        0xE7, 0x99, 0x78, 0xD8, 0x8C, 0xA4, 0xD2, 0x15, 0x94, 0x9D, 0x24, 0x02, 0xB7, 0x8D, 0x6A, 0xCC,
        0x99, 0xEA, 0x17, 0x9B, 0x8D, 0xBB,
    ]

    static func keys(_ profile: SRTPProfile, seed: UInt8) -> [UInt8] {
        (0..<(profile.keyLength + profile.saltLength)).map { UInt8(truncatingIfNeeded: Int(seed) &* 31 &+ $0) }
    }

    /// Two contexts that talk to each other: a's local key is b's remote key.
    static func pair(_ profile: SRTPProfile) throws -> (SRTPContext, SRTPContext) {
        let k1 = keys(profile, seed: 1)
        let k2 = keys(profile, seed: 2)
        return (try SRTPContext(material: SRTPKeyingMaterial(profile: profile, local: k1, remote: k2)),
                try SRTPContext(material: SRTPKeyingMaterial(profile: profile, local: k2, remote: k1)))
    }

    @Test func matchesLibsrtpsReferencePacket() throws {
        let key = SRTPContextTests.referenceKey
        let sender = try SRTPContext(material: SRTPKeyingMaterial(profile: .aes128CMSHA1_80, local: key, remote: key))
        let slot = PacketSlot()
        let length = try #require(sender.protectRTP(slot.buffer, length: slot.load(SRTPContextTests.referencePlaintext)))
        #expect(slot.bytes(length) == SRTPContextTests.referenceCiphertext)
        let receiver = try SRTPContext(material: SRTPKeyingMaterial(profile: .aes128CMSHA1_80, local: key, remote: key))
        #expect(receiver.unprotectRTP(slot.buffer, length: slot.load(SRTPContextTests.referenceCiphertext))
            == .plaintext(length: 28))
        #expect(slot.bytes(28) == SRTPContextTests.referencePlaintext)
    }

    @Test(arguments: SRTPProfile.allCases)
    func roundTripsRTPAndRTCP(profile: SRTPProfile) throws {
        let (a, b) = try SRTPContextTests.pair(profile)
        let slot = PacketSlot()
        let tag = profile == .aeadAES128GCM ? 16 : 10
        for sequence in UInt16(100)..<UInt16(200) {
            let plain = rtpPacket(sequence: sequence, payload: Int(sequence) * 5)
            let protected = try #require(a.protectRTP(slot.buffer, length: slot.load(plain)))
            #expect(protected == plain.count + tag)
            #expect(b.unprotectRTP(slot.buffer, length: protected) == .plaintext(length: plain.count))
            #expect(slot.bytes(plain.count) == plain)
        }
        let report = rtcpReceiverReport()
        let protected = try #require(b.protectRTCP(slot.buffer, length: slot.load(report)))
        #expect(protected == report.count + 4 + tag)
        #expect(a.unprotectRTCP(slot.buffer, length: protected) == .plaintext(length: report.count))
        #expect(slot.bytes(report.count) == report)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rejectsWrongKeysReplaysAndTampering(profile: SRTPProfile) throws {
        let (a, b) = try SRTPContextTests.pair(profile)
        let wrong = try SRTPContext(material: SRTPKeyingMaterial(
            profile: profile, local: SRTPContextTests.keys(profile, seed: 9), remote: SRTPContextTests.keys(profile, seed: 9)))
        let slot = PacketSlot()
        let protected = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1))))
        let wire = slot.bytes(protected)
        #expect(wrong.unprotectRTP(slot.buffer, length: slot.load(wire)) == .dropped(.authentication))
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(wire)) == .plaintext(length: 112))
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(wire)) == .dropped(.replay))
        let next = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 2))))
        var tampered = slot.bytes(next)
        tampered[30] ^= 0x04
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(tampered)) == .dropped(.authentication))
        // RTCP replay too.
        let report = try #require(a.protectRTCP(slot.buffer, length: slot.load(rtcpReceiverReport())))
        let rtcpWire = slot.bytes(report)
        #expect(b.unprotectRTCP(slot.buffer, length: slot.load(rtcpWire)) == .plaintext(length: 32))
        #expect(b.unprotectRTCP(slot.buffer, length: slot.load(rtcpWire)) == .dropped(.replay))
    }

    @Test func oldPacketsOutsideTheWindowAreReplays() throws {
        let (a, b) = try SRTPContextTests.pair(.aeadAES128GCM)
        let slot = PacketSlot()
        let old = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1))))
        let oldWire = slot.bytes(old)
        for sequence in UInt16(2)...UInt16(2 + SRTPContext.replayWindow) {
            let length = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: sequence))))
            #expect(b.unprotectRTP(slot.buffer, length: length) == .plaintext(length: 112))
        }
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(oldWire)) == .dropped(.replay))
    }

    @Test func refusesWithoutTrailerRoomAndBadLengths() throws {
        let (a, b) = try SRTPContextTests.pair(.aeadAES128GCM)
        let small = UnsafeMutableRawBufferPointer.allocate(byteCount: 200, alignment: 8)
        defer { small.deallocate() }
        small.copyBytes(from: rtpPacket(sequence: 1))
        #expect(a.protectRTP(small, length: 112) == nil)  // 200 - 112 < 144
        #expect(a.protectRTP(small, length: 0) == nil)
        #expect(b.unprotectRTP(small, length: 0) == .dropped(.malformed))
        #expect(b.unprotectRTP(small, length: 500) == .dropped(.malformed))
        #expect(b.unprotectRTP(small, length: 5) != .plaintext(length: 5))
    }

    @Test func wrongKeyLengthIsRefused() {
        #expect(throws: WebRTCError.self) {
            _ = try SRTPContext(material: SRTPKeyingMaterial(profile: .aeadAES128GCM, local: [1, 2, 3], remote: [4]))
        }
    }

    @Test func closeMakesEveryCallFail() throws {
        let (a, b) = try SRTPContextTests.pair(.aes128CMSHA1_80)
        a.close()
        b.close()
        let slot = PacketSlot()
        #expect(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1))) == nil)
        #expect(b.unprotectRTP(slot.buffer, length: 112) == .dropped(.malformed))
    }
}

/// SRTPContext's own rules beyond the RFC vectors: rollover, repeats,
/// bounded inbound state, the out-of-place variant.
@Suite struct SRTPContextStreamTests {
    @Test(arguments: SRTPProfile.allCases)
    func rolloverCounterFollowsTwoWrapsWithReordering(profile: SRTPProfile) throws {
        let (a, b) = try SRTPContextTests.pair(profile)
        let slot = PacketSlot()
        var sequence: UInt16 = 65_000
        var held: [UInt8]? = nil
        for _ in 0..<(2 * 65_536 + 1000) {
            let wire = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: sequence, payload: 20))))
            let bytes = slot.bytes(wire)
            if sequence == 65_535 {
                held = bytes  // delivered after the wrap: ROC - 1 for it
            } else {
                #expect(b.unprotectRTP(slot.buffer, length: slot.load(bytes)) == .plaintext(length: 32), "sequence \(sequence)")
                if sequence == 3, let late = held {
                    #expect(b.unprotectRTP(slot.buffer, length: slot.load(late)) == .plaintext(length: 32))
                    held = nil
                }
            }
            sequence &+= 1
        }
    }

    @Test func sendingTheSameSequenceNumberAgainGivesTheSameBytes() throws {
        let (a, b) = try SRTPContextTests.pair(.aes128CMSHA1_80)
        let slot = PacketSlot()
        var first: [UInt8] = []
        for sequence in UInt16(65_530)...UInt16(65_535) {
            let length = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: sequence))))
            if sequence == 65_534 { first = slot.bytes(length) }
        }
        _ = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 4))))  // wrapped: ROC 1
        // A NACK retransmission of 65534 (ROC 0) after the wrap.
        let again = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 65_534))))
        #expect(slot.bytes(again) == first)
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(first)) == .plaintext(length: 112))
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(first)) == .dropped(.replay))
    }

    @Test func unauthenticatedPacketsNeitherCreateNorMoveStreams() throws {
        let (a, b) = try SRTPContextTests.pair(.aeadAES128GCM)
        let forger = try SRTPContext(material: SRTPKeyingMaterial(
            profile: .aeadAES128GCM, local: SRTPContextTests.keys(.aeadAES128GCM, seed: 9),
            remote: SRTPContextTests.keys(.aeadAES128GCM, seed: 9)))
        let slot = PacketSlot()
        // A forged packet far ahead must not move the window (or the ROC).
        let forged = try #require(forger.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 40_000))))
        #expect(b.unprotectRTP(slot.buffer, length: forged) == .dropped(.authentication))
        let real = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 10))))
        #expect(b.unprotectRTP(slot.buffer, length: real) == .plaintext(length: 112))
        // A flood of 10,000 forged SSRCs: the legitimate stream keeps its state.
        for ssrc in UInt32(1)...10_000 {
            let length = try #require(forger.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 11, ssrc: ssrc))))
            #expect(b.unprotectRTP(slot.buffer, length: length) == .dropped(.authentication))
        }
        let next = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 10))))
        #expect(b.unprotectRTP(slot.buffer, length: next) == .dropped(.replay))
    }

    @Test func inboundStreamsAreBoundedLeastRecentFirst() throws {
        let (a, b) = try SRTPContextTests.pair(.aeadAES128GCM)
        let slot = PacketSlot()
        let first = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1, ssrc: 1))))
        let firstWire = slot.bytes(first)
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(firstWire)) == .plaintext(length: 112))
        for ssrc in UInt32(2)...UInt32(1 + SRTPContext.inboundStreamLimit) {
            let length = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1, ssrc: ssrc))))
            #expect(b.unprotectRTP(slot.buffer, length: length) == .plaintext(length: 112))
        }
        // SSRC 1 was evicted (64 newer streams): its replay state went with it.
        #expect(b.unprotectRTP(slot.buffer, length: slot.load(firstWire)) == .plaintext(length: 112))
        // The newest are still there.
        let again = try #require(a.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1, ssrc: 65))))
        #expect(b.unprotectRTP(slot.buffer, length: again) == .dropped(.replay))
    }

    /// Forwarding's protect: the header (and maybe a rewritten VP8
    /// descriptor) written in the egress slot, the rest of the payload
    /// encrypted straight from the ingress slot. Every split gives the bytes
    /// in-place protect gives, and the ingress bytes stay as they were.
    @Test(arguments: SRTPProfile.allCases)
    func protectWithTheTailElsewhereMatchesInPlace(profile: SRTPProfile) throws {
        let (a, _) = try SRTPContextTests.pair(profile)
        let (c, _) = try SRTPContextTests.pair(profile)
        let source = PacketSlot()
        let destination = PacketSlot()
        let inPlace = PacketSlot()
        for sequence in UInt16(1)...UInt16(40) {
            let plain = rtpPacket(sequence: sequence, payload: Int(sequence) * 30)
            // 12 to 29 bytes in the slot: the header alone, or with part of
            // the payload (not on a cipher block boundary, mostly).
            let written = 12 + Int(sequence) % 18
            _ = source.load(plain)
            _ = destination.load(Array(plain[..<written]))
            let tail = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source.buffer)[written..<plain.count])
            let length = try #require(a.protectRTP(destination.buffer, length: written, appending: tail))
            #expect(source.bytes(plain.count) == plain)  // the source is untouched
            let expected = try #require(c.protectRTP(inPlace.buffer, length: inPlace.load(plain)))
            #expect(destination.bytes(length) == inPlace.bytes(expected))
        }
        // The header must be whole in the slot: 8 bytes of it are not.
        let plain = rtpPacket(sequence: 100)
        _ = source.load(plain)
        _ = destination.load(Array(plain[..<8]))
        let tail = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source.buffer)[8..<plain.count])
        #expect(a.protectRTP(destination.buffer, length: 8, appending: tail) == nil)
        // Without room for the tail and the trailer, nothing is written.
        let short = UnsafeMutableRawBufferPointer(rebasing: destination.buffer[0..<(12 + 50)])
        let long = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source.buffer)[12..<plain.count])
        #expect(a.protectRTP(short, length: 12, appending: long) == nil)
    }
}
