/// The DTLS-SRTP protection profiles Vroom negotiates (RFC 5764 section
/// 4.1.2, RFC 7714 section 14.2), in preference order.
public enum SRTPProfile: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// SRTP_AEAD_AES_128_GCM (0x0007): 16-byte key, 12-byte salt, 16-byte tag.
    case aeadAES128GCM
    /// SRTP_AES128_CM_HMAC_SHA1_80 (0x0001): 16-byte key, 14-byte salt,
    /// 10-byte tag. About 4x the CPU of GCM here (C-LIBRARIES.md).
    case aes128CMSHA1_80

    /// The profile's number in the use_srtp extension (RFC 5764 section 4.1.2).
    public var protectionProfileID: UInt16 {
        switch self {
        case .aeadAES128GCM: 0x0007
        case .aes128CMSHA1_80: 0x0001
        }
    }

    public init?(protectionProfileID: UInt16) {
        switch protectionProfileID {
        case 0x0007: self = .aeadAES128GCM
        case 0x0001: self = .aes128CMSHA1_80
        default: return nil
        }
    }

    /// Master key length in bytes.
    public var keyLength: Int { 16 }

    /// Master salt length in bytes: 14 for AES-CM (RFC 3711 section 8.2),
    /// 12 for AES-GCM (RFC 7714 section 12).
    public var saltLength: Int {
        switch self {
        case .aeadAES128GCM: 12
        case .aes128CMSHA1_80: 14
        }
    }

    public var description: String {
        switch self {
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aes128CMSHA1_80: "SRTP_AES128_CM_SHA1_80"
        }
    }
}

/// The SRTP master keys a DTLS handshake exported (RFC 5764 section 4.2):
/// each is key || salt, as libsrtp takes it. `local` protects what this end
/// sends; `remote` unprotects what it receives.
public struct SRTPKeyingMaterial: Sendable, Equatable {
    public var profile: SRTPProfile
    public var local: [UInt8]
    public var remote: [UInt8]

    public init(profile: SRTPProfile, local: [UInt8], remote: [UInt8]) {
        self.profile = profile
        self.local = local
        self.remote = remote
    }
}
