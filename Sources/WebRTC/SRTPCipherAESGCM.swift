import COpenSSL

/// AEAD_AES_128_GCM for SRTP and SRTCP (RFC 7714): per key (RTP, RTCP), one
/// ECB EVP_CIPHER_CTX keyed once and an OpenSSL GCM128 context over it
/// (`vroom_gcm_seal`, `vroom_gcm_open`). A packet sets its IV, feeds the
/// header as AAD and en/decrypts the payload in one pass, with no
/// allocation and none of EVP's per-IV and per-tag parameter lookups.
/// 16-byte tag.
///
/// IVs (RFC 7714 sections 8.1 and 9.1), XORed with the 12-byte session salt:
///   SRTP:  00 00 | SSRC (4) | ROC (4) | SEQ (2)
///   SRTCP: 00 00 | SSRC (4) | 00 00 | 0 | SRTCP index (31 bits)
/// SRTCP: AAD = first 8 bytes || E + index; the E + index word follows the
/// tag (section 9.2): header | ciphertext | tag | E+index.
final class SRTPCipherAESGCM: SRTPCipher {
    let tagLength = 16
    let rtcpIndexOffsetFromEnd = 4
    /// RTP then RTCP: the ECB contexts, which the GCM128 contexts point to.
    private let keys: UnsafeMutablePointer<vroom_gcm_key>
    private let rtp: OpaquePointer
    private let rtcp: OpaquePointer
    /// rtp salt (12) | rtcp salt (12) | IV scratch (12) | E+index scratch (4).
    private let scratch: UnsafeMutablePointer<UInt8>

    /// nil when OpenSSL refuses a key (or a key has the wrong length).
    /// Counter mode and GHASH are the same both ways: the direction only
    /// chooses seal or open, per call.
    init?(rtp rtpKeys: SRTPSessionKeys, rtcp rtcpKeys: SRTPSessionKeys) {
        guard rtpKeys.salt.count == 12, rtcpKeys.salt.count == 12,
            let rtpECB = AES128ECB.makeContext(key: rtpKeys.encryption)
        else { return nil }
        guard let rtcpECB = AES128ECB.makeContext(key: rtcpKeys.encryption) else {
            EVP_CIPHER_CTX_free(rtpECB)
            return nil
        }
        keys = .allocate(capacity: 2)
        keys.initialize(to: vroom_gcm_key(ecb: rtpECB, failed: 0))
        (keys + 1).initialize(to: vroom_gcm_key(ecb: rtcpECB, failed: 0))
        guard let rtp = vroom_gcm_new(keys) else {
            Self.free(keys, nil, nil)
            return nil
        }
        guard let rtcp = vroom_gcm_new(keys + 1) else {
            Self.free(keys, rtp, nil)
            return nil
        }
        self.rtp = rtp
        self.rtcp = rtcp
        scratch = .allocate(capacity: 40)
        scratch.initialize(repeating: 0, count: 40)
        for i in 0..<12 {
            scratch[i] = rtpKeys.salt[i]
            scratch[12 + i] = rtcpKeys.salt[i]
        }
    }

    /// Frees the GCM128 contexts (which cleanse their hash keys) and the
    /// ECB contexts (which cleanse their key schedules).
    private static func free(_ keys: UnsafeMutablePointer<vroom_gcm_key>, _ rtp: OpaquePointer?, _ rtcp: OpaquePointer?) {
        CRYPTO_gcm128_release(rtp)
        CRYPTO_gcm128_release(rtcp)
        EVP_CIPHER_CTX_free(keys[0].ecb)
        EVP_CIPHER_CTX_free(keys[1].ecb)
        keys.deinitialize(count: 2)
        keys.deallocate()
    }

    deinit {
        Self.free(keys, rtp, rtcp)
        OPENSSL_cleanse(scratch, 40)
        scratch.deallocate()
    }

    private var iv: UnsafeMutableRawPointer { UnsafeMutableRawPointer(scratch + 24) }
    private var trailer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(scratch + 36) }

    /// Writes the 12-byte IV: `salt` XOR (00 00 | ssrc | counter (6 bytes)).
    @inline(__always)
    private func setIV(salt: Int, ssrc: UInt32, counter: UInt64) {
        let iv = self.iv
        iv.copyMemory(from: scratch + salt, byteCount: 12)
        iv.xorBigEndian(ssrc, at: 2)
        iv.xorBigEndian(UInt16(truncatingIfNeeded: counter >> 32), at: 6)
        iv.xorBigEndian(UInt32(truncatingIfNeeded: counter), at: 8)
    }

    private var ivBytes: UnsafePointer<UInt8> { UnsafePointer(scratch + 24) }

    /// Seals with `key`'s contexts: `aad` (and `aad2`, 4 bytes, if any) as
    /// AAD, `length` bytes from `input` into `output`, then `secondLength`
    /// from `second` into `secondOutput`, the tag at `tag`.
    @inline(__always)
    private func seal(
        _ key: Int, aad: UnsafeRawPointer, aadLength: Int, aad2: UnsafeRawPointer?,
        input: UnsafeRawPointer, output: UnsafeMutableRawPointer, length: Int,
        then second: UnsafeRawPointer? = nil, into secondOutput: UnsafeMutableRawPointer? = nil,
        length secondLength: Int = 0, tag: UnsafeMutableRawPointer
    ) -> Bool {
        vroom_gcm_seal(
            key == 0 ? rtp : rtcp, keys + key, ivBytes, aad.assumingMemoryBound(to: UInt8.self), aadLength,
            aad2?.assumingMemoryBound(to: UInt8.self), aad2 == nil ? 0 : 4,
            input.assumingMemoryBound(to: UInt8.self), output.assumingMemoryBound(to: UInt8.self), length,
            second?.assumingMemoryBound(to: UInt8.self), secondOutput?.assumingMemoryBound(to: UInt8.self), secondLength,
            tag.assumingMemoryBound(to: UInt8.self)) == 1
    }

    /// Opens in place with `key`'s contexts: `length` bytes at `data`,
    /// checked against the tag at `tag`.
    @inline(__always)
    private func open(
        _ key: Int, aad: UnsafeRawPointer, aadLength: Int, aad2: UnsafeRawPointer?,
        data: UnsafeMutableRawPointer, length: Int, tag: UnsafeRawPointer
    ) -> Bool {
        vroom_gcm_open(
            key == 0 ? rtp : rtcp, keys + key, ivBytes, aad.assumingMemoryBound(to: UInt8.self), aadLength,
            aad2?.assumingMemoryBound(to: UInt8.self), aad2 == nil ? 0 : 4,
            data.assumingMemoryBound(to: UInt8.self), length, tag.assumingMemoryBound(to: UInt8.self)) == 1
    }

    func sealRTP(
        packet: UnsafeMutableRawPointer, headerLength: Int, inPlaceLength: Int, payload: UnsafeRawPointer,
        payloadLength: Int, ssrc: UInt32, index: UInt64
    ) -> Bool {
        setIV(salt: 0, ssrc: ssrc, counter: index)
        let start = packet + headerLength
        return seal(0, aad: packet, aadLength: headerLength, aad2: nil, input: start, output: start,
                    length: inPlaceLength, then: payload, into: start + inPlaceLength, length: payloadLength,
                    tag: start + inPlaceLength + payloadLength)
    }

    func openRTP(packet: UnsafeMutableRawPointer, headerLength: Int, length: Int, ssrc: UInt32, index: UInt64) -> Bool {
        setIV(salt: 0, ssrc: ssrc, counter: index)
        let payloadLength = length - headerLength - 16
        return open(0, aad: packet, aadLength: headerLength, aad2: nil, data: packet + headerLength,
                    length: payloadLength, tag: packet + headerLength + payloadLength)
    }

    func sealRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32) -> Int? {
        setIV(salt: 12, ssrc: ssrc, counter: UInt64(index))
        trailer.storeBigEndian(index | 0x8000_0000, at: 0)
        guard seal(1, aad: packet, aadLength: 8, aad2: trailer, input: packet + 8, output: packet + 8,
                   length: length - 8, tag: packet + length)
        else { return nil }
        (packet + length + 16).copyMemory(from: trailer, byteCount: 4)
        return length + 20
    }

    func openRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32, encrypted: Bool) -> Int? {
        setIV(salt: 12, ssrc: ssrc, counter: UInt64(index))
        let plainLength = length - 20
        let trailer = UnsafeRawPointer(packet + length - 4)
        // Unencrypted SRTCP (E = 0): the whole packet is AAD (section 9.3).
        let ok = encrypted
            ? open(1, aad: packet, aadLength: 8, aad2: trailer, data: packet + 8, length: plainLength - 8,
                   tag: packet + plainLength)
            : open(1, aad: packet, aadLength: plainLength, aad2: trailer, data: packet, length: 0,
                   tag: packet + plainLength)
        return ok ? plainLength : nil
    }
}
