import Packets
import Testing
import VroomTesting

@Suite struct RTPPacketViewTests {
    // MARK: Helpers

    /// The error parsing `bytes` throws, or nil when it parses.
    private func parseError(_ bytes: [UInt8]) -> PacketError? {
        bytes.withUnsafeBytes { raw in
            do throws(PacketError) {
                _ = try RTPPacketView(validating: raw)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Parses `bytes` and hands the view to `body`; records an issue if it
    /// does not parse.
    private func withView(
        _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (RTPPacketView) -> Void
    ) {
        bytes.withUnsafeBytes { raw in
            do throws(PacketError) {
                body(try RTPPacketView(validating: raw))
            } catch {
                Issue.record("parse failed: \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    private func elements(_ view: RTPPacketView) -> [RTPHeader.Extension] {
        view.headerExtensions.map { RTPHeader.Extension(id: $0.id, value: Array($0.value)) }
    }

    /// Writes `header` + `payload` with `RTPHeader.writePacket`.
    private func encode(_ header: RTPHeader, payload: [UInt8] = []) throws -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: header.packetSize(payloadCount: payload.count))
        let written = try out.withUnsafeMutableBytes { buffer in
            try payload.withUnsafeBytes { payload in
                try RTPHeader.writePacket(header, payload: payload, to: buffer)
            }
        }
        #expect(written == out.count)
        return out
    }

    // MARK: Byte vectors (RFC 3550 section 5.1, RFC 8285 sections 4.2 and 4.3)

    /// V=2, PT=96 (Chromium's VP8), no CSRC, extension or padding.
    private let minimal: [UInt8] = [
        0x80, 0x60, 0x12, 0x34,  // V=2 P=0 X=0 CC=0 | M=0 PT=96 | seq 0x1234
        0x00, 0x01, 0xE2, 0x40,  // timestamp 123456
        0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
        0x01, 0x02, 0x03,  // payload
    ]

    @Test func parsesTheFixedHeader() throws {
        withView(minimal) { view in
            #expect(view.version == 2)
            #expect(!view.hasPadding)
            #expect(!view.hasExtension)
            #expect(view.csrcCount == 0)
            #expect(!view.marker)
            #expect(view.payloadType == 96)
            #expect(view.sequenceNumber == 0x1234)
            #expect(view.timestamp == 123_456)
            #expect(view.ssrc == SSRC(0xDEAD_BEEF))
            #expect(view.headerLength == 12)
            #expect(view.paddingLength == 0)
            #expect(Array(view.payload) == [1, 2, 3])
            #expect(view.extensionProfile == nil)
            #expect(view.extensionForm == nil)
            #expect(view.extensionData.isEmpty)
            #expect(elements(view).isEmpty)
            #expect(view.extensionValue(id: 1) == nil)
        }
        let header = RTPHeader(payloadType: 96, sequenceNumber: 0x1234, timestamp: 123_456, ssrc: SSRC(0xDEAD_BEEF))
        #expect(try encode(header, payload: [1, 2, 3]) == minimal)
    }

    /// Marker, two CSRCs and 3 bytes of padding (count byte included).
    private let csrcsAndPadding: [UInt8] = [
        0xA2, 0xEF, 0xFF, 0xFF,  // V=2 P=1 X=0 CC=2 | M=1 PT=111 | seq 65535
        0xFF, 0xFF, 0xFF, 0xFE,  // timestamp
        0x00, 0x00, 0x00, 0x01,  // SSRC 1
        0x11, 0x11, 0x11, 0x11,  // CSRC 0
        0x22, 0x22, 0x22, 0x22,  // CSRC 1
        0xAA, 0xBB,  // payload
        0x00, 0x00, 0x03,  // padding, count 3
    ]

    @Test func parsesCSRCsAndPadding() throws {
        withView(csrcsAndPadding) { view in
            #expect(view.hasPadding)
            #expect(view.marker)
            #expect(view.payloadType == 111)
            #expect(view.sequenceNumber == 0xFFFF)
            #expect(view.timestamp == 0xFFFF_FFFE)
            #expect(view.ssrc == SSRC(1))
            #expect(view.csrcCount == 2)
            #expect(view.csrc(at: 0) == SSRC(0x1111_1111))
            #expect(view.csrc(at: 1) == SSRC(0x2222_2222))
            #expect(view.headerLength == 20)
            #expect(view.paddingLength == 3)
            #expect(Array(view.payload) == [0xAA, 0xBB])
        }
        let header = RTPHeader(
            marker: true, payloadType: 111, sequenceNumber: 0xFFFF, timestamp: 0xFFFF_FFFE, ssrc: SSRC(1),
            csrcs: [SSRC(0x1111_1111), SSRC(0x2222_2222)], paddingLength: 3)
        #expect(try encode(header, payload: [0xAA, 0xBB]) == csrcsAndPadding)
    }

    @Test func paddingOnlyPacketHasAnEmptyPayload() {
        // Chromium's bandwidth probes: a header and 224 bytes of padding... here 4.
        let probe: [UInt8] = [0xA0, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4]
        withView(probe) { view in
            #expect(view.paddingLength == 4)
            #expect(view.payload.isEmpty)
        }
    }

    /// RFC 8285 section 4.2's figure, filled in: ID 1 with 1 byte, ID 2 with
    /// 2 bytes, two padding bytes, ID 3 with 4 bytes; length 3 words.
    private let oneByteRFCLayout: [UInt8] = [
        0x90, 0x60, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x09,
        0xBE, 0xDE, 0x00, 0x03,
        0x10, 0xAA, 0x21, 0xBB,
        0xBB, 0x00, 0x00, 0x33,
        0xCC, 0xCC, 0xCC, 0xCC,
        0x42,  // payload
    ]

    @Test func parsesOneByteExtensionsOfRFC8285Section4_2() {
        withView(oneByteRFCLayout) { view in
            #expect(view.hasExtension)
            #expect(view.extensionProfile == 0xBEDE)
            #expect(view.extensionForm == .oneByte)
            #expect(view.headerLength == 28)
            #expect(view.extensionData.count == 12)
            #expect(
                elements(view) == [
                    .init(id: 1, value: [0xAA]), .init(id: 2, value: [0xBB, 0xBB]),
                    .init(id: 3, value: [0xCC, 0xCC, 0xCC, 0xCC]),
                ])
            #expect(view.extensionValue(id: 2).map(Array.init) == [0xBB, 0xBB])
            #expect(view.extensionValue(id: 4) == nil)
            #expect(Array(view.payload) == [0x42])
        }
    }

    /// What `RTPHeader` writes for the same elements: no padding between
    /// elements, zeros at the end of the block instead.
    @Test func writesOneByteExtensionsPaddedAtTheEnd() throws {
        let expected: [UInt8] = [
            0x90, 0x60, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x09,
            0xBE, 0xDE, 0x00, 0x03,
            0x10, 0xAA, 0x21, 0xBB,
            0xBB, 0x33, 0xCC, 0xCC,
            0xCC, 0xCC, 0x00, 0x00,
            0x42,
        ]
        let header = RTPHeader(
            payloadType: 96, sequenceNumber: 7, timestamp: 8, ssrc: SSRC(9), extensionForm: .oneByte,
            extensions: [
                .init(id: 1, value: [0xAA]), .init(id: 2, value: [0xBB, 0xBB]),
                .init(id: 3, value: [0xCC, 0xCC, 0xCC, 0xCC]),
            ])
        #expect(header.encodedSize == 28)
        #expect(try encode(header, payload: [0x42]) == expected)
        withView(oneByteRFCLayout) { view in #expect(RTPHeader(view) == header) }
    }

    /// RFC 8285 section 4.3's figure, filled in: ID 1 with 0 bytes, ID 2 with
    /// 1 byte, a padding byte, ID 3 with 4 bytes; profile 0x1000, 3 words.
    private let twoByteRFCLayout: [UInt8] = [
        0x90, 0x60, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x09,
        0x10, 0x00, 0x00, 0x03,
        0x01, 0x00, 0x02, 0x01,
        0xBB, 0x00, 0x03, 0x04,
        0xCC, 0xCC, 0xCC, 0xCC,
    ]

    @Test func parsesTwoByteExtensionsOfRFC8285Section4_3() throws {
        withView(twoByteRFCLayout) { view in
            #expect(view.extensionProfile == 0x1000)
            #expect(view.extensionForm == .twoByte)
            #expect(
                elements(view) == [
                    .init(id: 1, value: []), .init(id: 2, value: [0xBB]),
                    .init(id: 3, value: [0xCC, 0xCC, 0xCC, 0xCC]),
                ])
            #expect(view.extensionValue(id: 1)?.count == 0)
            #expect(view.payload.isEmpty)
        }
        let header = RTPHeader(
            payloadType: 96, sequenceNumber: 7, timestamp: 8, ssrc: SSRC(9), extensionForm: .twoByte,
            extensions: [
                .init(id: 1, value: []), .init(id: 2, value: [0xBB]), .init(id: 3, value: [0xCC, 0xCC, 0xCC, 0xCC]),
            ])
        #expect(
            try encode(header) == Array(twoByteRFCLayout[0..<16]) + [
                0x01, 0x00, 0x02, 0x01, 0xBB, 0x03, 0x04, 0xCC, 0xCC, 0xCC, 0xCC, 0x00,
            ])
    }

    @Test func twoByteProfileAppBitsAreAccepted() {
        var bytes = twoByteRFCLayout
        bytes[13] = 0x0F  // profile 0x100F: appbits 15
        withView(bytes) { view in
            #expect(view.extensionProfile == 0x100F)
            #expect(view.extensionForm == .twoByte)
            #expect(elements(view).count == 3)
        }
    }

    @Test func oneByteIDFifteenEndsTheBlock() {
        // ID 1 (1 byte), then 0xF3: ID 15 whose "length" must be ignored, then junk.
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
            0xBE, 0xDE, 0x00, 0x01,
            0x10, 0x55, 0xF3, 0x2F,
        ]
        withView(bytes) { view in
            #expect(elements(view) == [.init(id: 1, value: [0x55])])
            #expect(view.extensionValue(id: 2) == nil)
        }
    }

    @Test func oneByteIDZeroIsOneByteOfPaddingWhateverItsLength() {
        // 0x04 is ID 0 with L=4: padding, one byte, as libwebrtc reads it
        // (found by RTPPacketFuzz: read as an element it gave an ID 0 that
        // RTPHeader cannot write back).
        let bytes: [UInt8] = [
            0x90, 0x60, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x09,
            0xBE, 0xDE, 0x00, 0x03,
            0x10, 0xAA, 0x21, 0xBB, 0xBB, 0x00, 0x04, 0x33, 0xCC, 0xCC, 0xCC, 0xCC,
            0x42,
        ]
        withView(bytes) { view in
            #expect(
                elements(view) == [
                    .init(id: 1, value: [0xAA]), .init(id: 2, value: [0xBB, 0xBB]),
                    .init(id: 3, value: [0xCC, 0xCC, 0xCC, 0xCC]),
                ])
        }
    }

    @Test func unknownProfileIsCarriedButNotRead() {
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
            0x12, 0x34, 0x00, 0x01,
            0xFF, 0xFF, 0xFF, 0xFF,
            0x77,
        ]
        withView(bytes) { view in
            #expect(view.extensionProfile == 0x1234)
            #expect(view.extensionForm == nil)
            #expect(Array(view.extensionData) == [0xFF, 0xFF, 0xFF, 0xFF])
            #expect(elements(view).isEmpty)
            #expect(Array(view.payload) == [0x77])
        }
    }

    @Test func emptyExtensionBlockIsValid() {
        let bytes: [UInt8] = [0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0x00, 0x00]
        withView(bytes) { view in
            #expect(view.headerLength == 16)
            #expect(elements(view).isEmpty)
        }
    }

    // MARK: Refusals

    @Test func refusesMalformedPackets() {
        #expect(parseError([]) == .truncated)
        #expect(parseError(Array(minimal[0..<11])) == .truncated)
        #expect(parseError(Array(minimal[0..<12])) == nil)  // empty payload is fine

        var version = minimal
        version[0] = 0x40  // V=1
        #expect(parseError(version) == .invalidVersion)
        version[0] = 0xC0  // V=3
        #expect(parseError(version) == .invalidVersion)

        var csrcs = minimal
        csrcs[0] = 0x81  // CC=1 needs 4 bytes; 3 present
        #expect(parseError(csrcs) == .truncated)
        csrcs[0] = 0x8F
        #expect(parseError(csrcs) == .truncated)

        // X=1 but fewer than 4 bytes for the profile/length word.
        #expect(parseError([0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0x00]) == .truncated)
        // Length 2 words, 1 present.
        #expect(
            parseError([0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0x00, 0x02, 0x10, 0xAA, 0, 0])
                == .invalidLength)
        // One-byte element ID 1 with L=3 (4 bytes) in a 4-byte block: needs 5.
        #expect(
            parseError([0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0x00, 0x01, 0x13, 1, 2, 3])
                == .invalidHeaderExtension)
        // Two-byte element whose length byte is the last byte of the block.
        #expect(
            parseError([0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0x05])
                == .invalidHeaderExtension)
        // Two-byte element with length 3 in a 4-byte block: 2 + 3 > 4.
        #expect(
            parseError([0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x10, 0x00, 0x00, 0x01, 0x05, 0x03, 1, 2])
                == .invalidHeaderExtension)

        // Padding count 0, and padding longer than what follows the header.
        #expect(parseError([0xA0, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA, 0x00]) == .invalidPadding)
        #expect(parseError([0xA0, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA, 0x03]) == .invalidPadding)
        #expect(parseError([0xA0, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA, 0x02]) == nil)
        // P=1 with nothing after the header: the count byte is the SSRC's last byte.
        #expect(parseError([0xA0, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1]) == .invalidPadding)
    }

    @Test func writerRefusesValuesThatDoNotFit() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        func error(_ header: RTPHeader) -> PacketError? {
            buffer.withUnsafeMutableBytes { out in
                do throws(PacketError) {
                    _ = try header.write(to: out)
                    return nil
                } catch {
                    return error
                }
            }
        }
        let base = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: SSRC(3))
        #expect(error(base) == nil)
        var header = base
        header.payloadType = 128
        #expect(error(header) == .valueOutOfRange)
        header = base
        header.csrcs = Array(repeating: SSRC(1), count: 16)
        #expect(error(header) == .valueOutOfRange)
        header = base
        header.paddingLength = 256
        #expect(error(header) == .valueOutOfRange)
        header = base
        header.extensions = [.init(id: 15, value: [1])]
        #expect(error(header) == .valueOutOfRange)
        header.extensions = [.init(id: 1, value: [])]
        #expect(error(header) == .valueOutOfRange)
        header.extensions = [.init(id: 1, value: Array(repeating: 1, count: 17))]
        #expect(error(header) == .valueOutOfRange)
        header.extensionForm = .twoByte
        #expect(error(header) == nil)
        header.extensions = [.init(id: 0, value: [1])]
        #expect(error(header) == .valueOutOfRange)
        header.extensions = [.init(id: 200, value: Array(repeating: 1, count: 256))]
        #expect(error(header) == .valueOutOfRange)

        header = base
        header.extensions = [.init(id: 1, value: [1, 2])]
        let size = header.encodedSize
        #expect(size == 20)
        let tooSmall = buffer.withUnsafeMutableBytes { out -> PacketError? in
            do throws(PacketError) {
                _ = try header.write(to: UnsafeMutableRawBufferPointer(rebasing: out[0..<(size - 1)]))
                return nil
            } catch {
                return error
            }
        }
        #expect(tooSmall == .bufferTooSmall)
    }

    // MARK: Properties

    private func randomHeader(_ rng: inout SeededGenerator) -> RTPHeader {
        let form: RTPHeaderExtensionForm = Bool.random(using: &rng) ? .oneByte : .twoByte
        var extensions: [RTPHeader.Extension] = []
        if Int.random(in: 0..<3, using: &rng) != 0 {
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let id: UInt8 =
                    form == .oneByte ? .random(in: 1...14, using: &rng) : .random(in: 1...255, using: &rng)
                let length = form == .oneByte ? Int.random(in: 1...16, using: &rng) : Int.random(in: 0...40, using: &rng)
                extensions.append(.init(id: id, value: rng.bytes(length)))
            }
        }
        return RTPHeader(
            marker: .random(using: &rng), payloadType: .random(in: 0...127, using: &rng),
            sequenceNumber: .random(in: .min ... .max, using: &rng), timestamp: .random(in: .min ... .max, using: &rng),
            ssrc: SSRC(.random(in: .min ... .max, using: &rng)),
            csrcs: (0..<Int.random(in: 0...15, using: &rng)).map { _ in SSRC(.random(in: .min ... .max, using: &rng)) },
            extensionForm: form, extensions: extensions,
            paddingLength: Bool.random(using: &rng) ? 0 : .random(in: 1...255, using: &rng))
    }

    @Test func writeThenParseGivesTheSameHeader() throws {
        var rng = SeededGenerator(seed: 0x5254_5031)
        for _ in 0..<3000 {
            let header = randomHeader(&rng)
            let payload = rng.bytes(.random(in: 0...64, using: &rng))
            let bytes = try encode(header, payload: payload)
            withView(bytes) { view in
                #expect(RTPHeader(view) == header)
                #expect(Array(view.payload) == payload)
                #expect(view.headerLength == header.encodedSize)
                for element in header.extensions {
                    // The first element with an ID is the one extensionValue finds.
                    let first = header.extensions.first { $0.id == element.id }
                    #expect(view.extensionValue(id: element.id).map(Array.init) == first?.value)
                }
            }
        }
    }

    /// Touches every accessor: a trap here crashes the test process.
    private func touchAll(_ view: RTPPacketView) -> Int {
        var sum = Int(view.version) + (view.hasPadding ? 1 : 0) + (view.hasExtension ? 1 : 0)
        sum &+= Int(view.payloadType) &+ (view.marker ? 1 : 0) &+ Int(view.sequenceNumber)
        sum &+= Int(view.timestamp) &+ Int(view.ssrc.rawValue) &+ view.headerLength &+ view.paddingLength
        for index in 0..<view.csrcCount { sum &+= Int(view.csrc(at: index).rawValue) }
        sum &+= view.payload.reduce(0) { $0 &+ Int($1) }
        sum &+= Int(view.extensionProfile ?? 0) &+ view.extensionData.count
        for element in view.headerExtensions {
            sum &+= Int(element.id) &+ element.value.reduce(0) { $0 &+ Int($1) }
        }
        for id in UInt8(0)...20 { sum &+= view.extensionValue(id: id)?.count ?? 0 }
        #expect(view.headerLength + view.payload.count + view.paddingLength == view.bytes.count)
        _ = RTPHeader(view)
        return sum
    }

    @Test func randomBytesNeverTrap() {
        var rng = SeededGenerator(seed: 0x5254_5032)
        var parsed = 0
        for _ in 0..<20_000 {
            var bytes = rng.bytes(.random(in: 0...200, using: &rng))
            // Bias towards V=2 so the deeper checks run too.
            if !bytes.isEmpty, Bool.random(using: &rng) { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            bytes.withUnsafeBytes { raw in
                if let view = try? RTPPacketView(validating: raw) {
                    parsed += 1
                    _ = touchAll(view)
                }
            }
        }
        #expect(parsed > 1000)
    }

    @Test func mutatedValidPacketsNeverTrap() throws {
        var rng = SeededGenerator(seed: 0x5254_5033)
        var parsed = 0
        for _ in 0..<2000 {
            let valid = try encode(randomHeader(&rng), payload: rng.bytes(.random(in: 0...32, using: &rng)))
            for _ in 0..<10 {
                var bytes = valid
                switch Int.random(in: 0..<3, using: &rng) {
                case 0:
                    for _ in 0...Int.random(in: 0...3, using: &rng) {
                        let index = Int.random(in: 0..<bytes.count, using: &rng)
                        bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                    }
                case 1:
                    bytes.removeLast(Int.random(in: 0...bytes.count, using: &rng))
                default:
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = .random(in: .min ... .max, using: &rng)
                }
                bytes.withUnsafeBytes { raw in
                    if let view = try? RTPPacketView(validating: raw) {
                        parsed += 1
                        _ = touchAll(view)
                    }
                }
            }
        }
        #expect(parsed > 1000)
    }
}
