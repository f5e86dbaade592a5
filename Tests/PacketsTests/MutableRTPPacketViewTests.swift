import Packets
import Testing
import VroomTesting

@Suite struct MutableRTPPacketViewTests {
    /// Header with CSRC 0x01020304, one-byte extensions (ID 3: 2 bytes, a
    /// transport-wide sequence number; ID 1: 1 byte audio level), payload
    /// 5 bytes, 2 bytes of padding.
    private let packet: [UInt8] = [
        0xB1, 0x6F, 0x00, 0x10,  // V=2 P=1 X=1 CC=1 | M=0 PT=111 | seq 16
        0x00, 0x00, 0x03, 0xC0,  // timestamp 960
        0x11, 0x22, 0x33, 0x44,  // SSRC
        0x01, 0x02, 0x03, 0x04,  // CSRC
        0xBE, 0xDE, 0x00, 0x02,
        0x31, 0xAB, 0xCD, 0x10,  // ID 3 L=1: AB CD | ID 1 L=0:
        0x7F, 0x00, 0x00, 0x00,  // 7F | padding
        0x50, 0x51, 0x52, 0x53, 0x54,  // payload
        0x00, 0x02,  // padding
    ]

    /// Runs `body` on a mutable view over a copy of `bytes` and returns the
    /// bytes afterwards.
    private func mutate(
        _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (MutableRTPPacketView) throws(PacketError) -> Void
    ) -> [UInt8] {
        var copy = bytes
        copy.withUnsafeMutableBytes { raw in
            do throws(PacketError) {
                try body(try MutableRTPPacketView(validating: raw))
            } catch {
                Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            }
        }
        return copy
    }

    private func error(_ bytes: [UInt8], _ body: (MutableRTPPacketView) throws(PacketError) -> Void) -> PacketError? {
        var copy = bytes
        return copy.withUnsafeMutableBytes { raw -> PacketError? in
            do throws(PacketError) {
                try body(try MutableRTPPacketView(validating: raw))
                return nil
            } catch {
                return error
            }
        }
    }

    /// `setExtensionValue` with the value from an array (whose
    /// `withUnsafeBytes` rethrows untyped errors).
    private func setExtension(_ view: MutableRTPPacketView, id: UInt8, _ value: [UInt8]) throws(PacketError) {
        var failure: PacketError?
        value.withUnsafeBytes { raw in
            do throws(PacketError) {
                try view.setExtensionValue(id: id, raw)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    @Test func rewritesHeaderFieldsInPlace() {
        let out = mutate(packet) { view throws(PacketError) in
            view.setSSRC(SSRC(0xCAFE_BABE))
            view.setSequenceNumber(0xFFFE)
            view.setTimestamp(0x8000_0001)
            try view.setPayloadType(96)
            view.setMarker(true)
            #expect(view.view.ssrc == SSRC(0xCAFE_BABE))
            #expect(view.sequenceNumber == 0xFFFE)
            #expect(view.timestamp == 0x8000_0001)
            #expect(view.payloadType == 96)
            #expect(view.marker)
        }
        var expected = packet
        expected[1] = 0x80 | 96
        expected[2...3] = [0xFF, 0xFE]
        expected[4...7] = [0x80, 0x00, 0x00, 0x01]
        expected[8...11] = [0xCA, 0xFE, 0xBA, 0xBE]
        #expect(out == expected)

        // Clearing the marker leaves the payload type alone, and vice versa.
        let cleared = mutate(expected) { view throws(PacketError) in
            view.setMarker(false)
            try view.setPayloadType(111)
        }
        var back = expected
        back[1] = 111
        #expect(cleared == back)
    }

    @Test func payloadTypeAbove127IsRefused() {
        #expect(error(packet) { view throws(PacketError) in try view.setPayloadType(128) } == .valueOutOfRange)
        #expect(error(packet) { view throws(PacketError) in try view.setPayloadType(127) } == nil)
    }

    @Test func payloadIsWritableAndExcludesPadding() {
        let out = mutate(packet) { view in
            #expect(view.payload.count == 5)
            for index in view.payload.indices { view.payload[index] = 0xEE }
            #expect(view.view.payload.allSatisfy { $0 == 0xEE })
        }
        #expect(Array(out[28..<33]) == [0xEE, 0xEE, 0xEE, 0xEE, 0xEE])
        #expect(Array(out[33...]) == [0x00, 0x02])
        #expect(Array(out[0..<28]) == Array(packet[0..<28]))
    }

    @Test func rewritesAnExtensionValueOfTheSameLength() {
        let out = mutate(packet) { view throws(PacketError) in
            try setExtension(view, id: 3, [0x12, 0x34])
            try setExtension(view, id: 1, [0x05])
            #expect(view.view.extensionValue(id: 3).map(Array.init) == [0x12, 0x34])
        }
        var expected = packet
        expected[21...22] = [0x12, 0x34]
        expected[24] = 0x05
        #expect(out == expected)
    }

    @Test func extensionValueOfAnotherLengthOrAbsentIDIsRefused() {
        let wrongLength = error(packet) { view throws(PacketError) in
            try setExtension(view, id: 3, [1, 2, 3])
        }
        #expect(wrongLength == .invalidLength)
        let absent = error(packet) { view throws(PacketError) in
            try setExtension(view, id: 9, [1, 2])
        }
        #expect(absent == .invalidHeaderExtension)
        // A packet with no extension at all.
        let plain: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA]
        let none = error(plain) { view throws(PacketError) in
            try setExtension(view, id: 1, [1])
        }
        #expect(none == .invalidHeaderExtension)
    }

    @Test func emptyTwoByteExtensionValueCanBeRewrittenWithEmpty() {
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
            0x10, 0x00, 0x00, 0x01, 0x07, 0x00, 0x00, 0x00,
        ]
        let out = mutate(bytes) { view throws(PacketError) in
            try view.setExtensionValue(id: 7, UnsafeRawBufferPointer(start: nil, count: 0))
        }
        #expect(out == bytes)
    }

    @Test func validatesLikeTheReadOnlyView() {
        var rng = SeededGenerator(seed: 0x4D52_5450)
        for _ in 0..<5000 {
            var bytes = rng.bytes(.random(in: 0...80, using: &rng))
            if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            let readOnly = bytes.withUnsafeBytes { raw -> PacketError? in
                do throws(PacketError) {
                    _ = try RTPPacketView(validating: raw)
                    return nil
                } catch {
                    return error
                }
            }
            let mutable = error(bytes) { view in
                // Every setter on a valid packet: none may trap.
                view.setSSRC(SSRC(1))
                view.setSequenceNumber(2)
                view.setTimestamp(3)
                view.setMarker(true)
                _ = try? view.setPayloadType(4)
                _ = view.payload.count
                for element in view.view.headerExtensions {
                    _ = view.mutableExtensionValue(id: element.id)
                }
            }
            #expect(readOnly == mutable)
        }
    }

    @Test func settersLeaveEveryOtherByteAlone() throws {
        var rng = SeededGenerator(seed: 0x4D52_5451)
        for _ in 0..<1000 {
            let ssrc = SSRC(.random(in: .min ... .max, using: &rng))
            let sequence = UInt16.random(in: .min ... .max, using: &rng)
            let timestamp = UInt32.random(in: .min ... .max, using: &rng)
            let payloadType = UInt8.random(in: 0...127, using: &rng)
            let marker = Bool.random(using: &rng)
            let out = mutate(packet) { view throws(PacketError) in
                view.setSSRC(ssrc)
                view.setSequenceNumber(sequence)
                view.setTimestamp(timestamp)
                try view.setPayloadType(payloadType)
                view.setMarker(marker)
            }
            #expect(out[0] == packet[0])
            #expect(Array(out[12...]) == Array(packet[12...]))
            out.withUnsafeBytes { raw in
                guard let view = try? RTPPacketView(validating: raw) else {
                    Issue.record("rewritten packet no longer parses")
                    return
                }
                #expect(view.ssrc == ssrc)
                #expect(view.sequenceNumber == sequence)
                #expect(view.timestamp == timestamp)
                #expect(view.payloadType == payloadType)
                #expect(view.marker == marker)
            }
        }
    }
}
