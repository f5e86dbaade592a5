import Testing

import Packets

/// RFC 4571 framing as ICE-TCP uses it: a 2-byte big-endian length, then
/// the packet; 0 and over the maximum are corrupt streams.
@Suite struct RFC4571FramingTests {
    private func next(_ bytes: [UInt8], maximum: Int = RFC4571Framing.maximumPacketLength) -> RFC4571Framing.Next {
        bytes.withUnsafeBytes { RFC4571Framing.next(in: $0, maximum: maximum) }
    }

    @Test func wholeIncompleteAndInvalidFrames() {
        #expect(next([]) == .incomplete)
        #expect(next([0]) == .incomplete)
        #expect(next([0, 3, 1, 2]) == .incomplete)
        #expect(next([0, 3, 1, 2, 3]) == .packet(offset: 2, length: 3))
        #expect(next([0, 3, 1, 2, 3, 0, 9]) == .packet(offset: 2, length: 3))
        #expect(next([0, 0, 1]) == .invalidLength(0))
        #expect(next([0x06, 0x41]) == .invalidLength(1601))
        #expect(next([0x06, 0x40]) == .incomplete)  // 1600: allowed, waits for its bytes
        #expect(next([0xFF, 0xFF], maximum: 0xFFFF) == .incomplete)
    }

    @Test func headerIsBigEndian() {
        var out = [UInt8](repeating: 0, count: 2)
        out.withUnsafeMutableBytes { RFC4571Framing.writeHeader(length: 0x0123, to: $0) }
        #expect(out == [0x01, 0x23])
    }
}
