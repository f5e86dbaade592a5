import Testing
@testable import WebRTC

/// Bytes from hex digits (spaces ignored).
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// The RFCs' test vectors, byte for byte: RFC 3711 appendix B.2 (AES-CM
/// keystream) and B.3 (key derivation), RFC 7714 sections 16 and 17
/// (AEAD_AES_128_GCM SRTP and SRTCP, from session keys).
@Suite struct SRTPVectorTests {
    @Test func aesCounterModeKeystreamIsRFC3711AppendixB2() throws {
        // Session key, salt F0..FD shifted, SSRC 0, index 0: the IV is the
        // salt * 2^16, and 65282 blocks of keystream follow.
        let key = hexBytes("2B7E151628AED2A6ABF7158809CF4F3C")
        let stream = try #require(SRTPKeyDerivation.aesCounterKeystream(
            key: key, iv: hexBytes("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"), count: 65282 * 16))
        #expect(Array(stream[0..<48]) == hexBytes("""
            E03EAD0935C95E80E166B16DD92B4EB4 D23513162B02D0F72A43A2FE4A5F97AB 41E95B3BB0A2E8DD477901E4FCA894C0
            """))
        #expect(Array(stream[(0xFEFF * 16)...]) == hexBytes("""
            EC8CDF7398607CB0F2D21675EA9EA1E4 362B7C3C6773516318A077D7FC5073AE 6A2CC3787889374FBEB4C81B17BA6C44
            """))
    }

    @Test func keyDerivationIsRFC3711AppendixB3() throws {
        let key = hexBytes("E1F97A0D3E018BE0D64FA32C06DE4139")
        let salt = hexBytes("0EC675AD498AFEEBB6960B3AABE6")
        #expect(SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpEncryption, length: 16)
            == hexBytes("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpSalt, length: 14)
            == hexBytes("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpAuthentication, length: 94)
            == hexBytes("""
                CEBE321F6FF7716B6FD4AB49AF256A15 6D38BAA48F0A0ACF3C34E2359E6CDBCE E049646C43D9327AD175578EF7227098
                6371C10C9A369AC2F94A8C5FBCDDDC25 6D6E919A48B610EF17C2041E47403576 6B68642C59BBFC2F34DB60DBDFB2
                """))
        // The profile's keys take the first 20 bytes of k_a.
        let keys = try #require(SRTPKeyDerivation.sessionKeys(profile: .aes128CMSHA1_80, master: key + salt))
        #expect(keys.rtp.encryption == hexBytes("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(keys.rtp.authentication == hexBytes("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"))
        #expect(keys.rtcp.encryption != keys.rtp.encryption)
    }

    // RFC 7714 section 16.1 (SRTP) and 17.1 (SRTCP), AEAD_AES_128_GCM:
    // session key and salt given directly, no KDF.
    static let gcmKeys = SRTPSessionKeys(
        encryption: hexBytes("000102030405060708090a0b0c0d0e0f"), salt: hexBytes("517569642070726f2071756f"),
        authentication: [])
    static let gcmRTP = hexBytes("""
        8040f17b 8041f8d3 5501a0b2 47616c6c 69612065 7374206f 6d6e6973 20646976 69736120 696e2070 61727465 73207472 6573
        """)
    static let gcmSRTP = hexBytes("""
        8040f17b 8041f8d3 5501a0b2 f24de3a3 fb34de6c acba861c 9d7e4bca be633bd5 0d294e6f 42a5f47a 51c7d19b
        36de3adf 8833899d 7f27beb1 6a9152cf 765ee439 0cce
        """)
    static let gcmRTCP = hexBytes("""
        81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef deadbeef deadbeef
        """)
    static let gcmSRTCP = hexBytes("""
        81c8000d 4d617273 63e94885 dcdab67c a727d766 2f6b7e99 7ff5c0f7 6c06f32d c676a5f1 730d6fda 4ce09b46 86303ded
        0bb9275b c84aa458 96cf4d2f c5abf872 45d9eade 800005d4
        """)

    static func gcmContext() throws -> SRTPContext {
        let keys = (rtp: gcmKeys, rtcp: gcmKeys)
        return try SRTPContext(profile: .aeadAES128GCM, local: keys, remote: keys)
    }

    @Test func aesGCMSRTPIsRFC7714Section16() throws {
        let context = try SRTPVectorTests.gcmContext()
        let slot = PacketSlot()
        // Sequence number 0xf17b with ROC 0: the stream's first packet.
        let length = try #require(context.protectRTP(slot.buffer, length: slot.load(SRTPVectorTests.gcmRTP)))
        #expect(slot.bytes(length) == SRTPVectorTests.gcmSRTP)
        let receiver = try SRTPVectorTests.gcmContext()
        #expect(receiver.unprotectRTP(slot.buffer, length: slot.load(SRTPVectorTests.gcmSRTP))
            == .plaintext(length: SRTPVectorTests.gcmRTP.count))
        #expect(slot.bytes(SRTPVectorTests.gcmRTP.count) == SRTPVectorTests.gcmRTP)
    }

    @Test func aesGCMSRTCPIsRFC7714Section17() throws {
        // The vector's SRTCP index is 0x5d4: seal at the cipher, which takes it.
        let cipher = try #require(SRTPCipherAESGCM(rtp: SRTPVectorTests.gcmKeys, rtcp: SRTPVectorTests.gcmKeys))
        let slot = PacketSlot()
        let plain = SRTPVectorTests.gcmRTCP
        let length = try #require(cipher.sealRTCP(
            packet: slot.buffer.baseAddress!, length: slot.load(plain), ssrc: 0x4d61_7273, index: 0x5d4))
        #expect(slot.bytes(length) == SRTPVectorTests.gcmSRTCP)
        // And the context reads it (E flag, index after the tag).
        let receiver = try SRTPVectorTests.gcmContext()
        #expect(receiver.unprotectRTCP(slot.buffer, length: slot.load(SRTPVectorTests.gcmSRTCP))
            == .plaintext(length: plain.count))
        #expect(slot.bytes(plain.count) == plain)
        #expect(receiver.unprotectRTCP(slot.buffer, length: slot.load(SRTPVectorTests.gcmSRTCP)) == .dropped(.replay))
    }

    @Test func rfc7714VectorsFailWhenAByteChanges() throws {
        let receiver = try SRTPVectorTests.gcmContext()
        let slot = PacketSlot()
        var tampered = SRTPVectorTests.gcmSRTP
        tampered[5] ^= 1  // in the header: AAD
        #expect(receiver.unprotectRTP(slot.buffer, length: slot.load(tampered)) == .dropped(.authentication))
        var tamperedRTCP = SRTPVectorTests.gcmSRTCP
        tamperedRTCP[tamperedRTCP.count - 1] ^= 1  // the index: AAD too
        #expect(receiver.unprotectRTCP(slot.buffer, length: slot.load(tamperedRTCP)) == .dropped(.authentication))
    }
}
