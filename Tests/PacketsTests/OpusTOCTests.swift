import Packets
import Testing
import VroomTesting

/// RFC 6716 section 3.1 (TOC byte, Table 2) and section 3.2 (frame packing).
@Suite struct OpusTOCTests {
    private func info(_ bytes: [UInt8]) -> Result<OpusPacketInfo, PacketError> {
        bytes.withUnsafeBytes { raw -> Result<OpusPacketInfo, PacketError> in
            do throws(PacketError) {
                return .success(try OpusPacketInfo(validating: raw))
            } catch {
                return .failure(error)
            }
        }
    }

    /// RFC 6716 Table 2, written out row by row: config -> (mode, bandwidth,
    /// frame duration in 48 kHz samples).
    private let table: [(OpusTOC.Mode, OpusTOC.Bandwidth, Int)] = [
        (.silk, .narrowband, 480), (.silk, .narrowband, 960), (.silk, .narrowband, 1920), (.silk, .narrowband, 2880),
        (.silk, .mediumband, 480), (.silk, .mediumband, 960), (.silk, .mediumband, 1920), (.silk, .mediumband, 2880),
        (.silk, .wideband, 480), (.silk, .wideband, 960), (.silk, .wideband, 1920), (.silk, .wideband, 2880),
        (.hybrid, .superwideband, 480), (.hybrid, .superwideband, 960),
        (.hybrid, .fullband, 480), (.hybrid, .fullband, 960),
        (.celt, .narrowband, 120), (.celt, .narrowband, 240), (.celt, .narrowband, 480), (.celt, .narrowband, 960),
        (.celt, .wideband, 120), (.celt, .wideband, 240), (.celt, .wideband, 480), (.celt, .wideband, 960),
        (.celt, .superwideband, 120), (.celt, .superwideband, 240), (.celt, .superwideband, 480),
        (.celt, .superwideband, 960),
        (.celt, .fullband, 120), (.celt, .fullband, 240), (.celt, .fullband, 480), (.celt, .fullband, 960),
    ]

    @Test func everyConfigMatchesTable2() {
        #expect(table.count == 32)
        for (config, row) in table.enumerated() {
            for low in UInt8(0)...7 {
                let toc = OpusTOC(UInt8(config) << 3 | low)
                #expect(toc.config == UInt8(config))
                #expect(toc.mode == row.0, "config \(config)")
                #expect(toc.bandwidth == row.1, "config \(config)")
                #expect(toc.frameDuration == row.2, "config \(config)")
                #expect(toc.isStereo == (low & 4 != 0))
                #expect(toc.frameCountCode == low & 3)
            }
        }
    }

    @Test func commonWebRTCPackets() throws {
        // 0x78: config 15 (hybrid FB 20 ms), mono, code 0.
        let hybrid = try info([0x78, 0x01, 0x02]).get()
        #expect(hybrid.toc.mode == .hybrid)
        #expect(hybrid.toc.bandwidth == .fullband)
        #expect(!hybrid.toc.isStereo)
        #expect(hybrid.frameCount == 1)
        #expect(hybrid.duration == 960)
        // 0xFC: config 31 (CELT FB 20 ms), stereo, code 0.
        let celt = try info([0xFC, 0xFF]).get()
        #expect(celt.toc.mode == .celt)
        #expect(celt.toc.isStereo)
        #expect(celt.duration == 960)
        // A TOC byte alone is a valid code 0 packet (a DTX frame); 0x08 is
        // config 1, SILK NB 20 ms.
        #expect(try info([0x08]).get().duration == 960)
    }

    @Test func frameCountByCode() throws {
        // Code 1: two equal frames; code 2: two frames with a length byte.
        #expect(try info([0x79, 0x00, 0x00]).get().frameCount == 2)
        #expect(try info([0x7A, 0x01, 0x00, 0x00]).get().frameCount == 2)
        #expect(try info([0x7A, 0x01, 0x00, 0x00]).get().duration == 1920)
        // Code 3: v=1 p=1 M=3 of CELT 10 ms (config 18).
        let code3 = try info([18 << 3 | 3, 0xC3, 0x00]).get()
        #expect(code3.frameCount == 3)
        #expect(code3.isVariableBitrate)
        #expect(code3.hasPadding)
        #expect(code3.duration == 1440)
        let cbr = try info([18 << 3 | 3, 0x02]).get()
        #expect(!cbr.isVariableBitrate)
        #expect(!cbr.hasPadding)
        #expect(cbr.frameCount == 2)
    }

    @Test func durationLimitIs120Milliseconds() throws {
        // 2 x 60 ms SILK (config 3, code 1) = 120 ms: the limit itself.
        #expect(try info([3 << 3 | 1]).get().duration == 5760)
        // 48 x 2.5 ms CELT (config 16, code 3, M=48) = 120 ms.
        #expect(try info([16 << 3 | 3, 48]).get().duration == 5760)
        #expect(info([16 << 3 | 3, 49]) == .failure(.invalidField))
        // 3 x 60 ms = 180 ms.
        #expect(info([3 << 3 | 3, 3]) == .failure(.invalidField))
        // M=63 of 20 ms.
        #expect(info([31 << 3 | 3, 0x3F]) == .failure(.invalidField))
    }

    @Test func refusesMalformedPackets() {
        #expect(info([]) == .failure(.truncated))
        #expect(info([0x7B]) == .failure(.truncated))  // code 3 without its count byte
        #expect(info([0x7B, 0x80]) == .failure(.invalidField))  // M = 0
    }

    @Test func randomBytesNeverTrap() {
        var rng = SeededGenerator(seed: 0x4F50_5553)
        var parsed = 0
        for _ in 0..<20_000 {
            let bytes = rng.bytes(.random(in: 0...8, using: &rng))
            if case .success(let packet) = info(bytes) {
                parsed += 1
                #expect(packet.duration <= OpusPacketInfo.maximumDuration)
                #expect(packet.duration == packet.frameCount * packet.toc.frameDuration)
                #expect((1...48).contains(packet.frameCount))
                _ = (packet.toc.mode, packet.toc.bandwidth, packet.toc.isStereo, packet.hasPadding)
                _ = packet.isVariableBitrate
            }
        }
        #expect(parsed > 10_000)
    }
}
