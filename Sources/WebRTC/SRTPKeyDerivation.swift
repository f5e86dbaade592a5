import COpenSSL

/// The keys of one direction of SRTP or SRTCP, derived from a master key.
struct SRTPSessionKeys: Sendable, Equatable {
    /// k_e: the AES-128 key.
    var encryption: [UInt8]
    /// k_s: 14 bytes for AES-CM, 12 for AES-GCM.
    var salt: [UInt8]
    /// k_a: the HMAC-SHA1 key (20 bytes); empty for AES-GCM, whose tag is GCM's own.
    var authentication: [UInt8]
}

/// SRTP's key derivation (RFC 3711 section 4.3) with the AES-CM PRF and a
/// key derivation rate of 0 (what DTLS-SRTP uses, RFC 5764 section 4.1.2),
/// for both profiles: RFC 7714 section 11 keeps this KDF for AES-GCM, whose
/// 12-byte master salt is padded on the right with zeros to the KDF's 112
/// bits (as libsrtp does), and whose derived salt is 12 bytes.
///
/// Runs once per SRTPContext, not per packet: it allocates freely.
enum SRTPKeyDerivation {
    /// The labels of RFC 3711 section 4.3.2 (RTP) and 4.3.2/3.4 (RTCP).
    enum Label: UInt8 {
        case rtpEncryption = 0x00
        case rtpAuthentication = 0x01
        case rtpSalt = 0x02
        case rtcpEncryption = 0x03
        case rtcpAuthentication = 0x04
        case rtcpSalt = 0x05
    }

    /// The RTP and RTCP session keys of `profile` from master key || salt
    /// (as the DTLS export gives it); nil when the length is wrong.
    static func sessionKeys(profile: SRTPProfile, master: [UInt8]) -> (rtp: SRTPSessionKeys, rtcp: SRTPSessionKeys)? {
        guard master.count == profile.keyLength + profile.saltLength else { return nil }
        let key = Array(master[0..<profile.keyLength])
        let salt = Array(master[profile.keyLength...])
        let authLength = profile == .aes128CMSHA1_80 ? 20 : 0
        func derive(_ label: Label, _ length: Int) -> [UInt8]? {
            length == 0 ? [] : SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: label, length: length)
        }
        guard let rtpKey = derive(.rtpEncryption, 16), let rtpSalt = derive(.rtpSalt, profile.saltLength),
            let rtpAuth = derive(.rtpAuthentication, authLength), let rtcpKey = derive(.rtcpEncryption, 16),
            let rtcpSalt = derive(.rtcpSalt, profile.saltLength), let rtcpAuth = derive(.rtcpAuthentication, authLength)
        else { return nil }
        return (SRTPSessionKeys(encryption: rtpKey, salt: rtpSalt, authentication: rtpAuth),
                SRTPSessionKeys(encryption: rtcpKey, salt: rtcpSalt, authentication: rtcpAuth))
    }

    /// PRF_n(k_master, x) with x = key_id XOR master_salt, key_id = label ||
    /// r (r = 0 at rate 0): AES-CM keystream from IV x * 2^16 (RFC 3711
    /// section 4.3.1 and 4.3.3).
    static func derive(masterKey: [UInt8], masterSalt: [UInt8], label: Label, length: Int) -> [UInt8]? {
        guard masterKey.count == 16, masterSalt.count <= 14 else { return nil }
        var iv = [UInt8](repeating: 0, count: 16)
        for (i, byte) in masterSalt.enumerated() { iv[i] = byte }
        // key_id is 56 bits (label, then 48 bits of r = 0) aligned with the
        // salt's last 7 of 14 bytes: the label lands on byte 7.
        iv[7] ^= label.rawValue
        return aesCounterKeystream(key: masterKey, iv: iv, count: length)
    }

    /// `count` bytes of AES-128 counter-mode keystream (RFC 3711 section
    /// 4.1.1) from `iv`, the first counter block.
    static func aesCounterKeystream(key: [UInt8], iv: [UInt8], count: Int) -> [UInt8]? {
        guard key.count == 16, iv.count == 16, count >= 0, count <= Int(Int32.max),
            let context = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: count)
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, iv) == 1 else { return nil }
        if count == 0 { return out }
        let zeros = [UInt8](repeating: 0, count: count)
        var written: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_EncryptUpdate(context, $0.baseAddress, &written, zeros, Int32(count)) }
        return ok == 1 && Int(written) == count ? out : nil
    }
}
