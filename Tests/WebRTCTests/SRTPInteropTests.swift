import LibSRTPReference
import Testing
@testable import WebRTC

/// A small deterministic generator (xorshift64*), so a failure replays.
struct InteropRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}

/// Our SRTP (OpenSSL EVP) against libsrtp2, both ways, for both profiles,
/// RTP and RTCP: thousands of random packets on several SSRCs (CSRCs,
/// header extensions, payloads of 0 to 1200 bytes) whose sequence numbers
/// wrap (the ROC moves to 1), delivered slightly out of order.
@Suite struct SRTPInteropTests {
    enum Direction: CaseIterable, Sendable { case oursToLibsrtp, libsrtpToOurs }

    struct Arguments: Sendable, CustomTestStringConvertible {
        var profile: SRTPProfile
        var direction: Direction
        var testDescription: String { "\(profile) \(direction)" }
    }

    static let cases = SRTPProfile.allCases.flatMap { profile in
        Direction.allCases.map { Arguments(profile: profile, direction: $0) }
    }

    static func rtp(sequence: UInt16, ssrc: UInt32, random: inout InteropRandom) -> [UInt8] {
        let csrcs = Int.random(in: 0...3, using: &random)
        let extensionWords = Bool.random(using: &random) ? Int.random(in: 1...4, using: &random) : -1
        var bytes: [UInt8] = [
            0x80 | (extensionWords >= 0 ? 0x10 : 0) | UInt8(csrcs),
            UInt8.random(in: 96...127, using: &random) | (Bool.random(using: &random) ? 0x80 : 0),
            UInt8(sequence >> 8), UInt8(sequence & 0xFF),
        ]
        bytes += (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }  // timestamp
        bytes += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        for _ in 0..<csrcs { bytes += (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) } }
        if extensionWords >= 0 {
            bytes += [0xBE, 0xDE, 0, UInt8(extensionWords)]
            bytes += (0..<(4 * extensionWords)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        bytes += (0..<Int.random(in: 0...1200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        return bytes
    }

    /// A sender or receiver report with 0-3 report blocks, maybe an SDES after it.
    static func rtcp(ssrc: UInt32, random: inout InteropRandom) -> [UInt8] {
        let blocks = Int.random(in: 0...3, using: &random)
        let sender = Bool.random(using: &random)
        let words = (sender ? 6 : 1) + 6 * blocks
        var bytes: [UInt8] = [0x80 | UInt8(blocks), sender ? 200 : 201, 0, UInt8(words)]
        bytes += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        bytes += (0..<(4 * (words - 1))).map { _ in UInt8.random(in: 0...255, using: &random) }
        if Bool.random(using: &random) {
            bytes += [0x81, 202, 0, 3] + withUnsafeBytes(of: ssrc.bigEndian, Array.init) + [1, 4, 0x61, 0x62, 0x63, 0x64, 0, 0]
        }
        return bytes
    }

    @Test(arguments: cases)
    func manyRandomPacketsAcrossSequenceWraps(_ arguments: Arguments) throws {
        let profile = arguments.profile
        let gcm = profile == .aeadAES128GCM
        let key = SRTPContextTests.keys(profile, seed: 5)
        let ours = try SRTPContext(material: SRTPKeyingMaterial(profile: profile, local: key, remote: key))
        let theirs = try #require(LibSRTPSession(gcm: gcm, key: key, outbound: arguments.direction == .oursToLibsrtp))
        var random = InteropRandom(state: 0x5EED_0000 + UInt64(gcm ? 1 : 2) + (arguments.direction == .oursToLibsrtp ? 0 : 16))

        func protect(_ packet: [UInt8], rtcp: Bool) throws -> [UInt8] {
            let slot = PacketSlot()
            let length = slot.load(packet)
            let protected: Int?
            switch arguments.direction {
            case .oursToLibsrtp: protected = rtcp ? ours.protectRTCP(slot.buffer, length: length) : ours.protectRTP(slot.buffer, length: length)
            case .libsrtpToOurs: protected = theirs.protect(slot.buffer.baseAddress!, length: length, rtcp: rtcp)
            }
            return slot.bytes(try #require(protected))
        }
        func unprotect(_ wire: [UInt8], rtcp: Bool) -> [UInt8]? {
            let slot = PacketSlot()
            let length = slot.load(wire)
            switch arguments.direction {
            case .oursToLibsrtp:
                guard case .success(let plain) = theirs.unprotect(slot.buffer.baseAddress!, length: length, rtcp: rtcp)
                else { return nil }
                return slot.bytes(plain)
            case .libsrtpToOurs:
                let result = rtcp ? ours.unprotectRTCP(slot.buffer, length: length) : ours.unprotectRTP(slot.buffer, length: length)
                guard case .plaintext(let plain) = result else { return nil }
                return slot.bytes(plain)
            }
        }

        // Five streams starting 0-400 packets before the wrap; 500 packets each.
        let ssrcs: [UInt32] = (0..<5).map { _ in UInt32.random(in: 1...UInt32.max, using: &random) }
        var next: [UInt16] = ssrcs.map { _ in UInt16(65_535 - Int.random(in: 0...400, using: &random)) }
        var pending: [(plain: [UInt8], wire: [UInt8], rtcp: Bool)] = []
        var delivered = 0
        var rtcpCount = 0
        for round in 0..<2_500 {
            let stream = round % ssrcs.count
            let rtcp = round % 7 == 3
            let plain: [UInt8]
            if rtcp {
                plain = SRTPInteropTests.rtcp(ssrc: ssrcs[stream], random: &random)
                rtcpCount += 1
            } else {
                plain = SRTPInteropTests.rtp(sequence: next[stream], ssrc: ssrcs[stream], random: &random)
                next[stream] &+= 1
            }
            pending.append((plain, try protect(plain, rtcp: rtcp), rtcp))
            // Deliver out of order: a random one of the last few.
            while pending.count > 3 || (round == 2_499 && !pending.isEmpty) {
                let packet = pending.remove(at: Int.random(in: 0..<pending.count, using: &random))
                let plainOut = unprotect(packet.wire, rtcp: packet.rtcp)
                #expect(plainOut == packet.plain, "packet \(delivered) (\(packet.rtcp ? "RTCP" : "RTP"), \(packet.plain.count) bytes)")
                delivered += 1
            }
        }
        #expect(delivered == 2_500 && rtcpCount > 300)
        #expect(next.allSatisfy { $0 < 500 }, "every stream wrapped")
    }

    @Test(arguments: SRTPProfile.allCases)
    func repeatsAndTamperingAreRefusedLikeLibsrtp(profile: SRTPProfile) throws {
        let key = SRTPContextTests.keys(profile, seed: 6)
        let ours = try SRTPContext(material: SRTPKeyingMaterial(profile: profile, local: key, remote: key))
        let sender = try #require(LibSRTPSession(gcm: profile == .aeadAES128GCM, key: key, outbound: true))
        let slot = PacketSlot()
        let length = try #require(sender.protect(slot.buffer.baseAddress!, length: slot.load(rtpPacket(sequence: 9)), rtcp: false))
        let wire = slot.bytes(length)
        // libsrtp's sender repeats a sequence number (allow_repeat_tx) with the same bytes.
        let again = try #require(sender.protect(slot.buffer.baseAddress!, length: slot.load(rtpPacket(sequence: 9)), rtcp: false))
        #expect(slot.bytes(again) == wire)
        // And ours does the same as a sender.
        let ourWire = try #require(ours.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 9))))
        #expect(slot.bytes(ourWire) == wire)
        #expect(ours.unprotectRTP(slot.buffer, length: slot.load(wire)) == .plaintext(length: 112))
        #expect(ours.unprotectRTP(slot.buffer, length: slot.load(wire)) == .dropped(.replay))
        var tampered = wire
        tampered[20] ^= 0x80
        tampered[3] &+= 1  // another sequence number, so not a replay
        #expect(ours.unprotectRTP(slot.buffer, length: slot.load(tampered)) == .dropped(.authentication))
    }

    /// Payloads longer than the random ones above (1.5 to 3 KB, on and off
    /// 16-byte blocks), protected by us and opened by libsrtp2 and the
    /// reverse; and, protected with the payload's tail elsewhere, the same
    /// bytes as protected in place.
    @Test(arguments: SRTPProfile.allCases)
    func longPayloadsBothWays(profile: SRTPProfile) throws {
        let gcm = profile == .aeadAES128GCM
        let key = SRTPContextTests.keys(profile, seed: 9)
        let material = SRTPKeyingMaterial(profile: profile, local: key, remote: key)
        let ours = try SRTPContext(material: material)
        let oursInPlace = try SRTPContext(material: material)
        let oursReceiving = try SRTPContext(material: material)
        let libsrtpReceiving = try #require(LibSRTPSession(gcm: gcm, key: key, outbound: false))
        let libsrtpSending = try #require(LibSRTPSession(gcm: gcm, key: key, outbound: true))
        let size = 8192
        let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        let inPlace = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        let source = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { slot.deallocate(); inPlace.deallocate(); source.deallocate() }
        var random = InteropRandom(state: 0x0C4A_0000 + UInt64(gcm ? 1 : 2))
        for (n, payload) in [1519, 1520, 1535, 1536, 1537, 1551, 3071, 3072, 3073, 3100].enumerated() {
            var plain: [UInt8] = [0x80, 96, 0, UInt8(n + 1), 0, 0, 0x0B, 0xB8, 0x12, 0x34, 0x56, 0x78]
            plain += (0..<payload).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Ours to libsrtp2, the payload's tail elsewhere (from 0-9
            // bytes into it).
            plain.withUnsafeBytes { source.copyMemory(from: $0) }
            let split = 12 + n
            slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[..<split]))
            let tail = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[split..<plain.count])
            let length = try #require(ours.protectRTP(slot, length: split, appending: tail))
            plain.withUnsafeBytes { inPlace.copyMemory(from: $0) }
            let expected = try #require(oursInPlace.protectRTP(inPlace, length: plain.count))
            #expect(Array(slot[..<length]) == Array(inPlace[..<expected]), "payload \(payload)")
            guard case .success(let opened) = libsrtpReceiving.unprotect(slot.baseAddress!, length: length, rtcp: false)
            else {
                Issue.record("libsrtp2 refused our packet with a \(payload)-byte payload")
                continue
            }
            #expect(Array(slot[..<opened]) == plain, "payload \(payload)")
            // libsrtp2 to ours.
            plain.withUnsafeBytes { slot.copyMemory(from: $0) }
            let wire = try #require(libsrtpSending.protect(slot.baseAddress!, length: plain.count, rtcp: false))
            guard case .plaintext(let plainLength) = oursReceiving.unprotectRTP(slot, length: wire) else {
                Issue.record("we refused libsrtp2's packet with a \(payload)-byte payload")
                continue
            }
            #expect(Array(slot[..<plainLength]) == plain, "payload \(payload)")
        }
    }
}
