import COpenSSL

/// AEAD_AES_128_GCM for SRTP and SRTCP (RFC 7714): one EVP_CIPHER_CTX per
/// key (RTP, RTCP), keyed once at init with a 12-byte IV length; each
/// packet only sets its IV (`EVP_EncryptInit_ex(ctx, NULL, NULL, NULL,
/// iv)`: no re-keying, no allocation, measured), feeds the header as AAD
/// and en/decrypts the payload in one pass. 16-byte tag.
///
/// IVs (RFC 7714 sections 8.1 and 9.1), XORed with the 12-byte session salt:
///   SRTP:  00 00 | SSRC (4) | ROC (4) | SEQ (2)
///   SRTCP: 00 00 | SSRC (4) | 00 00 | 0 | SRTCP index (31 bits)
/// SRTCP: AAD = first 8 bytes || E + index; the E + index word follows the
/// tag (section 9.2): header | ciphertext | tag | E+index.
final class SRTPCipherAESGCM: SRTPCipher {
    let tagLength = 16
    let rtcpIndexOffsetFromEnd = 4
    private let encrypting: Bool
    private let rtp: OpaquePointer
    private let rtcp: OpaquePointer
    /// rtp salt (12) | rtcp salt (12) | IV scratch (12) | E+index scratch (4).
    private let scratch: UnsafeMutablePointer<UInt8>

    /// nil when OpenSSL refuses a key (or a key has the wrong length).
    init?(rtp rtpKeys: SRTPSessionKeys, rtcp rtcpKeys: SRTPSessionKeys, encrypting: Bool) {
        guard rtpKeys.encryption.count == 16, rtcpKeys.encryption.count == 16,
            rtpKeys.salt.count == 12, rtcpKeys.salt.count == 12,
            let rtp = SRTPCipherAESGCM.context(key: rtpKeys.encryption, encrypting: encrypting)
        else { return nil }
        guard let rtcp = SRTPCipherAESGCM.context(key: rtcpKeys.encryption, encrypting: encrypting) else {
            EVP_CIPHER_CTX_free(rtp)
            return nil
        }
        self.encrypting = encrypting
        self.rtp = rtp
        self.rtcp = rtcp
        scratch = .allocate(capacity: 40)
        scratch.initialize(repeating: 0, count: 40)
        for i in 0..<12 {
            scratch[i] = rtpKeys.salt[i]
            scratch[12 + i] = rtcpKeys.salt[i]
        }
    }

    private static func context(key: [UInt8], encrypting: Bool) -> OpaquePointer? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        let ok = encrypting
            ? EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, vroom_EVP_CTRL_GCM_SET_IVLEN(), 12, nil) == 1
                && EVP_EncryptInit_ex(context, nil, nil, key, nil) == 1
            : EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, vroom_EVP_CTRL_GCM_SET_IVLEN(), 12, nil) == 1
                && EVP_DecryptInit_ex(context, nil, nil, key, nil) == 1
        guard ok else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        return context
    }

    deinit {
        EVP_CIPHER_CTX_free(rtp)
        EVP_CIPHER_CTX_free(rtcp)
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

    /// Sets the IV, feeds `aad`/`aadLength` (and `aad2`, 4 bytes, if any)
    /// and runs the payload from `input` to `output`.
    @inline(__always)
    private func run(
        _ context: OpaquePointer, aad: UnsafeRawPointer, aadLength: Int, aad2: UnsafeRawPointer?,
        input: UnsafeRawPointer, output: UnsafeMutableRawPointer, length: Int
    ) -> Bool {
        var written: Int32 = 0
        let ivBytes = iv.assumingMemoryBound(to: UInt8.self)
        if encrypting {
            guard EVP_EncryptInit_ex(context, nil, nil, nil, ivBytes) == 1,
                aadLength == 0 || EVP_EncryptUpdate(context, nil, &written, aad.assumingMemoryBound(to: UInt8.self), Int32(aadLength)) == 1,
                aad2 == nil || EVP_EncryptUpdate(context, nil, &written, aad2?.assumingMemoryBound(to: UInt8.self), 4) == 1,
                length == 0 || EVP_EncryptUpdate(
                    context, output.assumingMemoryBound(to: UInt8.self), &written,
                    input.assumingMemoryBound(to: UInt8.self), Int32(length)) == 1
            else { return false }
        } else {
            guard EVP_DecryptInit_ex(context, nil, nil, nil, ivBytes) == 1,
                aadLength == 0 || EVP_DecryptUpdate(context, nil, &written, aad.assumingMemoryBound(to: UInt8.self), Int32(aadLength)) == 1,
                aad2 == nil || EVP_DecryptUpdate(context, nil, &written, aad2?.assumingMemoryBound(to: UInt8.self), 4) == 1,
                length == 0 || EVP_DecryptUpdate(
                    context, output.assumingMemoryBound(to: UInt8.self), &written,
                    input.assumingMemoryBound(to: UInt8.self), Int32(length)) == 1
            else { return false }
        }
        return true
    }

    /// Encrypts `length` more bytes of the packet begun by `run` (GCM streams:
    /// any split of the payload gives the same ciphertext and tag).
    @inline(__always)
    private func update(_ context: OpaquePointer, input: UnsafeRawPointer, output: UnsafeMutableRawPointer, length: Int)
        -> Bool
    {
        var written: Int32 = 0
        return length == 0
            || EVP_EncryptUpdate(
                context, output.assumingMemoryBound(to: UInt8.self), &written,
                input.assumingMemoryBound(to: UInt8.self), Int32(length)) == 1
    }

    /// Finishes an encryption and writes the tag at `tag`.
    @inline(__always)
    private func finishSeal(_ context: OpaquePointer, tag: UnsafeMutableRawPointer) -> Bool {
        var written: Int32 = 0
        return EVP_EncryptFinal_ex(context, tag.assumingMemoryBound(to: UInt8.self), &written) == 1
            && EVP_CIPHER_CTX_ctrl(context, vroom_EVP_CTRL_GCM_GET_TAG(), 16, tag) == 1
    }

    /// Checks the tag at `tag` against what was decrypted.
    @inline(__always)
    private func finishOpen(_ context: OpaquePointer, tag: UnsafeMutableRawPointer) -> Bool {
        var written: Int32 = 0
        // SET_TAG copies the 16 bytes into the context: the buffer is not
        // written. DecryptFinal compares in constant time (GCM's own check).
        guard EVP_CIPHER_CTX_ctrl(context, vroom_EVP_CTRL_GCM_SET_TAG(), 16, tag) == 1 else { return false }
        return EVP_DecryptFinal_ex(context, tag.assumingMemoryBound(to: UInt8.self), &written) == 1
    }

    func sealRTP(
        packet: UnsafeMutableRawPointer, headerLength: Int, inPlaceLength: Int, payload: UnsafeRawPointer,
        payloadLength: Int, ssrc: UInt32, index: UInt64
    ) -> Bool {
        setIV(salt: 0, ssrc: ssrc, counter: index)
        let start = packet + headerLength
        return run(rtp, aad: packet, aadLength: headerLength, aad2: nil, input: start, output: start, length: inPlaceLength)
            && update(rtp, input: payload, output: start + inPlaceLength, length: payloadLength)
            && finishSeal(rtp, tag: start + inPlaceLength + payloadLength)
    }

    func openRTP(packet: UnsafeMutableRawPointer, headerLength: Int, length: Int, ssrc: UInt32, index: UInt64) -> Bool {
        setIV(salt: 0, ssrc: ssrc, counter: index)
        let payloadLength = length - headerLength - 16
        return run(rtp, aad: packet, aadLength: headerLength, aad2: nil, input: packet + headerLength,
                   output: packet + headerLength, length: payloadLength)
            && finishOpen(rtp, tag: packet + headerLength + payloadLength)
    }

    func sealRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32) -> Int? {
        setIV(salt: 12, ssrc: ssrc, counter: UInt64(index))
        trailer.storeBigEndian(index | 0x8000_0000, at: 0)
        guard run(rtcp, aad: packet, aadLength: 8, aad2: trailer, input: packet + 8, output: packet + 8,
                  length: length - 8),
            finishSeal(rtcp, tag: packet + length)
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
            ? run(rtcp, aad: packet, aadLength: 8, aad2: trailer, input: packet + 8, output: packet + 8,
                  length: plainLength - 8)
            : run(rtcp, aad: packet, aadLength: plainLength, aad2: trailer, input: packet, output: packet, length: 0)
        return ok && finishOpen(rtcp, tag: packet + plainLength) ? plainLength : nil
    }
}
