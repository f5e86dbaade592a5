import Packets
import Testing
import VroomTesting

@Suite struct CRC32Tests {
    private func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { CRC32.checksum($0) }
    }

    @Test func matchesTheStandardCheckValue() {
        // The "check" value of CRC-32/ISO-HDLC (the IEEE 802.3 CRC).
        #expect(crc(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func matchesKnownValues() {
        #expect(crc([]) == 0)
        #expect(crc([0x00]) == 0xD202_EF8D)
        #expect(crc([0xFF, 0xFF, 0xFF, 0xFF]) == 0xFFFF_FFFF)
        #expect(crc(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test func updateChainsLikeOneChecksum() {
        var g = SeededGenerator(seed: 0xC4C3_2)
        for _ in 0..<200 {
            let bytes = g.bytes(Int.random(in: 0...300, using: &g))
            let cut = Int.random(in: 0...bytes.count, using: &g)
            let whole = crc(bytes)
            let chained = bytes.withUnsafeBytes { all in
                CRC32.update(
                    CRC32.checksum(UnsafeRawBufferPointer(rebasing: all[0..<cut])),
                    with: UnsafeRawBufferPointer(rebasing: all[cut...]))
            }
            #expect(chained == whole)
        }
    }

    @Test func detectsEverySingleBitFlip() {
        var g = SeededGenerator(seed: 7)
        let bytes = g.bytes(64)
        let reference = crc(bytes)
        for i in 0..<(bytes.count * 8) {
            var flipped = bytes
            flipped[i / 8] ^= 1 << UInt8(i % 8)
            #expect(crc(flipped) != reference)
        }
    }
}
