import Packets
import Testing
import VroomTesting

/// Random and mutated bytes through every RTCP parser: each must throw a
/// `PacketError` or succeed, and on success every accessor and iterator
/// must run without trapping (a trap kills the test process: that is the
/// failure) and view -> value -> write -> parse must give the same value.
@Suite struct RTCPRobustnessTests {
    /// Parses `bytes` every way there is; returns how many packets parsed.
    @discardableResult
    private func exercise(_ bytes: [UInt8]) throws -> Int {
        var parsed = 0
        try bytes.withRTCPBytes { raw throws in
            if let compound = try? RTCPCompoundPacket(validating: raw) {
                // Every header and typed packet, and the packets cover the bytes.
                #expect(throws: Never.self, "for \(bytes)") { try inspectRTCP(compound) }
                for packet in compound {
                    guard let typed = try? packet.typed() else { continue }
                    #expect(try RTCP.roundTrips(typed), "round trip failed for \(bytes)")
                    parsed += 1
                }
            }
            // Each typed view straight on the bytes, as one packet.
            forEachRTCPView(in: raw) { #expect(RTCP.touch($0) == nil, "for \(bytes)") }
            if let view = try? ReceptionReportView(validating: raw) {
                _ = view.cumulativeLost &+ Int32(bitPattern: view.delaySinceLastSR)
            }
        }
        return parsed
    }

    @Test func randomBytes() throws {
        var rng = SeededGenerator(seed: 0xB17E_5EED)
        for _ in 0..<20000 {
            try exercise(rng.bytes(Int.random(in: 0...200, using: &rng)))
        }
    }

    /// Random bodies behind a plausible header (V=2, an RTCP type, FMT/count
    /// and a length that matches), so the typed parsers see real work.
    @Test func randomBodiesBehindValidHeaders() throws {
        var rng = SeededGenerator(seed: 0x4845_4144)
        var parsed = 0
        for _ in 0..<20000 {
            var bytes = rng.bytes(4 * Int.random(in: 1...50, using: &rng))
            bytes[0] = 0x80 | bytes[0] & 0x3F
            if Int.random(in: 0..<4, using: &rng) != 0 { bytes[0] &= 0xDF }  // mostly no padding
            let formats: [UInt8] = [1, 4, 15, bytes[0] & 0x1F]
            bytes[0] = bytes[0] & 0xE0 | formats.randomElement(using: &rng)!
            bytes[1] = UInt8.random(in: 200...206, using: &rng)
            bytes[2] = UInt8((bytes.count / 4 - 1) >> 8)
            bytes[3] = UInt8((bytes.count / 4 - 1) & 0xFF)
            if bytes[1] == 206, bytes[0] & 0x1F == 15, bytes.count >= 16, Bool.random(using: &rng) {
                bytes.replaceSubrange(12..<16, with: Array("REMB".utf8))
            }
            if bytes[1] == 205, bytes[0] & 0x1F == 15, bytes.count >= 16, Bool.random(using: &rng) {
                bytes[14] = 0  // small status counts get past the chunk walk
                bytes[15] = UInt8.random(in: 0...40, using: &rng)
            }
            parsed += try exercise(bytes)
        }
        // Guards against a test that never gets past the header checks.
        #expect(parsed > 2000)
    }

    /// Valid compounds with bit flips, truncations, overwritten bytes and
    /// extensions.
    @Test func mutationsOfValidCompounds() throws {
        var rng = SeededGenerator(seed: 0x4D55_5441)
        for _ in 0..<5000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) { bytes += try RTCP.anyPacket(&rng).bytes }
            let original = bytes
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let index = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                }
            case 1:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng))
            case 2:
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = .random(in: .min ... .max, using: &rng)
                }
            default:
                bytes += rng.bytes(Int.random(in: 1...12, using: &rng))
            }
            try exercise(bytes)
            #expect(try exercise(original) > 0)
        }
    }
}
