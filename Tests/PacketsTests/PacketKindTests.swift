import Packets
import Testing

@Suite struct PacketKindTests {
    private func kind(_ bytes: [UInt8]) -> PacketKind {
        bytes.withUnsafeBytes { PacketKind(classifying: $0) }
    }

    @Test func classifiesByFirstByteAsRFC7983Says() {
        #expect(kind([]) == .unknown)
        #expect(kind([0x00, 0x01]) == .stun)
        #expect(kind([0x03]) == .stun)
        #expect(kind([4]) == .unknown)
        #expect(kind([16]) == .zrtp)
        #expect(kind([19]) == .zrtp)
        #expect(kind([20]) == .dtls)
        #expect(kind([22, 0xFE, 0xFD]) == .dtls)
        #expect(kind([63]) == .dtls)
        #expect(kind([64]) == .turnChannel)
        #expect(kind([79]) == .turnChannel)
        #expect(kind([80]) == .unknown)
        #expect(kind([127]) == .unknown)
        #expect(kind([191, 96]) == .rtp)
        #expect(kind([192, 96]) == .unknown)
        #expect(kind([255, 96]) == .unknown)
    }

    @Test func separatesRTCPFromRTPBySecondByte() {
        #expect(kind([0x80, 96]) == .rtp)
        #expect(kind([0x80, 0x80 | 96]) == .rtp)  // marker set, PT 96
        #expect(kind([0x80, 200]) == .rtcp)  // SR
        #expect(kind([0x81, 201]) == .rtcp)  // RR
        #expect(kind([0x81, 205]) == .rtcp)  // RTPFB
        #expect(kind([0x81, 206]) == .rtcp)  // PSFB
        #expect(kind([0x80, 191]) == .rtp)
        #expect(kind([0x80, 224]) == .rtp)
        #expect(kind([0x80]) == .rtp)  // too short to tell: the RTP parser refuses it
    }
}
