import COpenSSL

/// AES-128 ECB contexts for counter-mode keystreams: SRTP's AES-CM
/// (`vroom_aes_ctr_xor`) and the counter blocks under AES-GCM's mode code
/// (`vroom_gcm_ctr32`). Counter mode is its own inverse, so one encrypting
/// context serves both directions; whole blocks only, so no padding.
enum AES128ECB {
    /// A context keyed with `key` (16 bytes), owned by the caller
    /// (`EVP_CIPHER_CTX_free`); nil when OpenSSL refuses the key.
    static func makeContext(key: [UInt8]) -> OpaquePointer? {
        guard key.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        return context
    }
}
