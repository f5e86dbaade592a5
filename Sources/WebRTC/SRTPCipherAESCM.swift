import COpenSSL

/// AES_CM_128_HMAC_SHA1_80 for SRTP and SRTCP (RFC 3711 sections 4.1.1 and
/// 4.2): AES-128 in counter mode over one ECB EVP_CIPHER_CTX per key (RTP,
/// RTCP), keyed once and never re-initialised: each packet's keystream is
/// its counter blocks encrypted in one call (`vroom_aes_ctr_xor`), which
/// spares OpenSSL 3.0's per-IV parameter lookup. HMAC-SHA1 with
/// the key's inner and outer pad blocks hashed once at init
/// (`vroom_hmac_sha1_key`): a MAC is two SHA-1 passes over copied states,
/// no allocation (OpenSSL 3.0's EVP_MAC re-init allocates twice per packet).
/// The tag is the MAC's first 10 bytes.
///
/// IV = (k_s * 2^16) XOR (SSRC * 2^64) XOR (i * 2^16): the 14-byte salt, the
/// SSRC XORed into bytes 4..7 and the 48-bit index (SRTCP: the 31-bit index)
/// into bytes 8..13; the last 2 bytes count blocks.
/// SRTP authenticates header || ciphertext || ROC; SRTCP authenticates
/// header || ciphertext || E + index, and the tag follows the index.
final class SRTPCipherAESCM: SRTPCipher {
    let tagLength = 10
    let rtcpIndexOffsetFromEnd = 14
    private let rtp: OpaquePointer
    private let rtcp: OpaquePointer
    /// RTP then RTCP MAC keys, as precomputed SHA-1 states.
    private let macKeys: UnsafeMutablePointer<vroom_hmac_sha1_key>
    /// rtp salt (14) | rtcp salt (14) | pad (4) | IV (16) | MAC (20) | ROC or E+index (4).
    private let scratch: UnsafeMutablePointer<UInt8>
    private static let scratchSize = 72

    init?(rtp rtpKeys: SRTPSessionKeys, rtcp rtcpKeys: SRTPSessionKeys) {
        guard rtpKeys.encryption.count == 16, rtcpKeys.encryption.count == 16,
            rtpKeys.salt.count == 14, rtcpKeys.salt.count == 14,
            rtpKeys.authentication.count == 20, rtcpKeys.authentication.count == 20,
            let rtp = AES128ECB.makeContext(key: rtpKeys.encryption)
        else { return nil }
        guard let rtcp = AES128ECB.makeContext(key: rtcpKeys.encryption) else {
            EVP_CIPHER_CTX_free(rtp)
            return nil
        }
        self.rtp = rtp
        self.rtcp = rtcp
        macKeys = .allocate(capacity: 2)
        macKeys.initialize(repeating: vroom_hmac_sha1_key(), count: 2)
        scratch = .allocate(capacity: Self.scratchSize)
        scratch.initialize(repeating: 0, count: Self.scratchSize)
        for i in 0..<14 {
            scratch[i] = rtpKeys.salt[i]
            scratch[14 + i] = rtcpKeys.salt[i]
        }
        guard vroom_hmac_sha1_key_init(macKeys, rtpKeys.authentication, 20) == 1,
            vroom_hmac_sha1_key_init(macKeys + 1, rtcpKeys.authentication, 20) == 1
        else { return nil }
    }

    deinit {
        EVP_CIPHER_CTX_free(rtp)
        EVP_CIPHER_CTX_free(rtcp)
        OPENSSL_cleanse(macKeys, MemoryLayout<vroom_hmac_sha1_key>.stride * 2)
        macKeys.deinitialize(count: 2)
        macKeys.deallocate()
        OPENSSL_cleanse(scratch, Self.scratchSize)
        scratch.deallocate()
    }

    private var iv: UnsafeMutablePointer<UInt8> { scratch + 32 }
    private var mac: UnsafeMutablePointer<UInt8> { scratch + 48 }
    private var suffix: UnsafeMutableRawPointer { UnsafeMutableRawPointer(scratch + 68) }

    /// Runs the keystream of (`salt`, `ssrc`, `index`) over `length` bytes
    /// from `input` into `output` (which may be the same), and on over
    /// `secondLength` bytes from `second` into `secondOutput` (counter mode
    /// streams: the split does not change the output).
    @inline(__always)
    private func crypt(
        _ context: OpaquePointer, salt: Int, ssrc: UInt32, index: UInt64,
        input: UnsafeRawPointer, output: UnsafeMutableRawPointer, length: Int,
        then second: UnsafeRawPointer? = nil, into secondOutput: UnsafeMutableRawPointer? = nil, length secondLength: Int = 0
    ) -> Bool {
        guard length > 0 || secondLength > 0 else { return true }
        let iv = UnsafeMutableRawPointer(self.iv)
        iv.copyMemory(from: scratch + salt, byteCount: 14)
        iv.storeBytes(of: 0, toByteOffset: 14, as: UInt16.self)
        iv.xorBigEndian(ssrc, at: 4)
        iv.xorBigEndian(UInt16(truncatingIfNeeded: index >> 32), at: 8)
        iv.xorBigEndian(UInt32(truncatingIfNeeded: index), at: 10)
        return vroom_aes_ctr_xor(
            context, self.iv, input.assumingMemoryBound(to: UInt8.self), output.assumingMemoryBound(to: UInt8.self), length,
            second?.assumingMemoryBound(to: UInt8.self), secondOutput?.assumingMemoryBound(to: UInt8.self), secondLength) == 1
    }

    /// HMAC-SHA1 of `data[0..<length]` || the 4 bytes in `suffix` into `mac`.
    @inline(__always)
    private func authenticate(_ key: Int, _ data: UnsafeRawPointer, length: Int) -> Bool {
        vroom_hmac_sha1_keyed(macKeys + key, data, length, suffix, 4, mac) == 1
    }

    func sealRTP(
        packet: UnsafeMutableRawPointer, headerLength: Int, inPlaceLength: Int, payload: UnsafeRawPointer,
        payloadLength: Int, ssrc: UInt32, index: UInt64
    ) -> Bool {
        let start = packet + headerLength
        guard crypt(rtp, salt: 0, ssrc: ssrc, index: index, input: start, output: start, length: inPlaceLength,
                    then: payload, into: start + inPlaceLength, length: payloadLength)
        else { return false }
        suffix.storeBigEndian(UInt32(truncatingIfNeeded: index >> 16), at: 0)
        let length = headerLength + inPlaceLength + payloadLength
        guard authenticate(0, packet, length: length) else { return false }
        (packet + length).copyMemory(from: mac, byteCount: 10)
        return true
    }

    func openRTP(packet: UnsafeMutableRawPointer, headerLength: Int, length: Int, ssrc: UInt32, index: UInt64) -> Bool {
        let authenticated = length - 10
        suffix.storeBigEndian(UInt32(truncatingIfNeeded: index >> 16), at: 0)
        guard authenticate(0, packet, length: authenticated),
            CRYPTO_memcmp(mac, packet + authenticated, 10) == 0
        else { return false }
        return crypt(rtp, salt: 0, ssrc: ssrc, index: index, input: packet + headerLength,
                     output: packet + headerLength, length: authenticated - headerLength)
    }

    func sealRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32) -> Int? {
        guard crypt(rtcp, salt: 14, ssrc: ssrc, index: UInt64(index), input: packet + 8, output: packet + 8,
                    length: length - 8)
        else { return nil }
        packet.storeBigEndian(index | 0x8000_0000, at: length)
        suffix.storeBytes(of: 0, as: UInt32.self)
        // The E + index word is part of the packet here: no suffix.
        guard vroom_hmac_sha1_keyed(macKeys + 1, packet, length + 4, suffix, 0, mac) == 1 else { return nil }
        (packet + length + 4).copyMemory(from: mac, byteCount: 10)
        return length + 14
    }

    func openRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32, encrypted: Bool) -> Int? {
        let authenticated = length - 10
        guard vroom_hmac_sha1_keyed(macKeys + 1, packet, authenticated, suffix, 0, mac) == 1,
            CRYPTO_memcmp(mac, packet + authenticated, 10) == 0
        else { return nil }
        let plainLength = length - 14
        guard !encrypted
            || crypt(rtcp, salt: 14, ssrc: ssrc, index: UInt64(index), input: packet + 8, output: packet + 8,
                     length: plainLength - 8)
        else { return nil }
        return plainLength
    }
}
