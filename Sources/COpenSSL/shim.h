#ifndef VROOM_COPENSSL_SHIM_H
#define VROOM_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include <openssl/modes.h>
#include <stdint.h>
#include <string.h>

// Swift does not import OpenSSL's function-like macros, variadic functions or
// SSL_OP_* constants (they contain casts); these wrappers re-export the ones
// Vroom uses. See ../shared/C-LIBRARIES.md.

static inline long vroom_DTLS_set_link_mtu(SSL *ssl, long mtu) { return DTLS_set_link_mtu(ssl, mtu); }
static inline long vroom_SSL_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }
static inline long vroom_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv) { return DTLSv1_get_timeout(ssl, tv); }
static inline long vroom_DTLSv1_handle_timeout(SSL *ssl) { return DTLSv1_handle_timeout(ssl); }
static inline long vroom_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
static inline long vroom_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return SSL_CTX_set1_groups_list(ctx, list); }
static inline long vroom_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long vroom_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) { return SSL_CTX_set_read_ahead(ctx, yes); }
static inline long vroom_BIO_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
static inline size_t vroom_BIO_pending(BIO *bio) { return BIO_pending(bio); }
static inline long vroom_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline uint64_t vroom_SSL_OP_NO_QUERY_MTU(void) { return SSL_OP_NO_QUERY_MTU; }
static inline uint64_t vroom_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline EVP_PKEY *vroom_EVP_EC_gen_p256(void) { return EVP_EC_gen("P-256"); }
static inline const char *vroom_openssl_version_text(void) { return OpenSSL_version(OPENSSL_VERSION); }

/// One-shot HMAC-SHA1 (STUN MESSAGE-INTEGRITY). Writes 20 bytes to `out`;
/// returns 1 on success. OpenSSL 3 allocates a MAC context inside HMAC(): fine
/// for STUN (a few checks per second per peer), not for the RTP path.
static inline int vroom_hmac_sha1(const void *key, size_t key_len,
                                  const void *data, size_t data_len,
                                  unsigned char out[20]) {
    unsigned int out_len = 0;
    return HMAC(EVP_sha1(), key, (int)key_len, (const unsigned char *)data, data_len, out, &out_len) != NULL
        && out_len == 20;
}
// DTLS transport (Sources/WebRTC: DTLSCertificate, DTLSEndpoint).
static inline long vroom_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_max_proto_version(ctx, version); }
static inline int vroom_MBSTRING_ASC(void) { return MBSTRING_ASC; }
static inline int vroom_DTLS1_2_VERSION(void) { return DTLS1_2_VERSION; }
static inline unsigned long vroom_SRTP_AEAD_AES_128_GCM(void) { return SRTP_AEAD_AES_128_GCM; }
static inline unsigned long vroom_SRTP_AES128_CM_SHA1_80(void) { return SRTP_AES128_CM_SHA1_80; }
static inline long vroom_SSL_MODE_AUTO_RETRY(void) { return SSL_MODE_AUTO_RETRY; }
/// Verify callback that accepts any chain: WebRTC certificates are
/// self-signed; the peer's certificate is checked against the SDP
/// fingerprint after the handshake (RFC 8122 section 5).
static inline int vroom_verify_accept_all(int preverify_ok, X509_STORE_CTX *ctx) { (void)preverify_ok; (void)ctx; return 1; }
static inline void vroom_SSL_set_verify_accept_all(SSL *ssl) {
    SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, vroom_verify_accept_all);
}
// SRTP (Sources/WebRTC: SRTPCipherAESCM, SRTPCipherAESGCM).
static inline int vroom_EVP_CTRL_GCM_SET_IVLEN(void) { return EVP_CTRL_GCM_SET_IVLEN; }
static inline int vroom_EVP_CTRL_GCM_GET_TAG(void) { return EVP_CTRL_GCM_GET_TAG; }
static inline int vroom_EVP_CTRL_GCM_SET_TAG(void) { return EVP_CTRL_GCM_SET_TAG; }

/// HMAC-SHA1 (RFC 2104) keyed once: the SHA-1 states after the key's inner
/// and outer pad blocks. A MAC is then one struct copy per pass, no malloc:
/// OpenSSL 3.0's EVP_MAC_init(ctx, NULL, 0, NULL) re-init and
/// EVP_MD_CTX_copy_ex both duplicate the provider context (2 and 1 mallocs
/// per packet, measured), while SHA_CTX is a plain struct. The low-level
/// SHA1_* calls are deprecated in 3.0 but kept (and assembly-accelerated,
/// SHA-NI where present); the deprecation is silenced here only.
typedef struct {
    SHA_CTX inner;
    SHA_CTX outer;
} vroom_hmac_sha1_key;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// Keys `state` with `key` (at most 64 bytes, SHA-1's block: SRTP's is 20).
static inline int vroom_hmac_sha1_key_init(vroom_hmac_sha1_key *state, const unsigned char *key, size_t key_len) {
    unsigned char pad[64];
    if (key_len > sizeof pad) return 0;
    memset(pad, 0x36, sizeof pad);
    for (size_t i = 0; i < key_len; i++) pad[i] ^= key[i];
    if (!SHA1_Init(&state->inner) || !SHA1_Update(&state->inner, pad, sizeof pad)) return 0;
    memset(pad, 0x5c, sizeof pad);
    for (size_t i = 0; i < key_len; i++) pad[i] ^= key[i];
    if (!SHA1_Init(&state->outer) || !SHA1_Update(&state->outer, pad, sizeof pad)) return 0;
    OPENSSL_cleanse(pad, sizeof pad);
    return 1;
}

/// HMAC-SHA1(key, data || suffix) into `out` (20 bytes): SRTP authenticates
/// the packet followed by the ROC (RFC 3711 section 4.2). Returns 1 on success.
static inline int vroom_hmac_sha1_keyed(const vroom_hmac_sha1_key *state, const void *data, size_t data_len,
                                  const void *suffix, size_t suffix_len, unsigned char out[20]) {
    SHA_CTX ctx = state->inner;
    if (!SHA1_Update(&ctx, data, data_len)) return 0;
    if (suffix_len > 0 && !SHA1_Update(&ctx, suffix, suffix_len)) return 0;
    if (!SHA1_Final(out, &ctx)) return 0;
    ctx = state->outer;
    if (!SHA1_Update(&ctx, out, 20) || !SHA1_Final(out, &ctx)) return 0;
    return 1;
}
#pragma GCC diagnostic pop

/// `out[i] = in[i] ^ stream[i]` for `len` bytes, eight at a time.
static inline void vroom_xor_bytes(unsigned char *out, const unsigned char *in, const unsigned char *stream, size_t len) {
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t a, b;
        memcpy(&a, in + i, 8);
        memcpy(&b, stream + i, 8);
        a ^= b;
        memcpy(out + i, &a, 8);
    }
    for (; i < len; i++) out[i] = in[i] ^ stream[i];
}

/// Counter-mode keystream for AES-128 through an ECB context keyed once:
/// `blocks` blocks at `stream`, block `j` being E(k, IV with `counter + j`
/// in its last `width` bytes, big-endian, mod 2^(8 * width)). The IV comes
/// as its two 8-byte words, `high` and `low`, in memory order. SRTP's
/// AES-CM uses width 2 (RFC 3711 section 4.1.1), GCM width 4 (NIST SP
/// 800-38D's inc32). Both callers pass a constant width, so the inlined
/// loop makes two 8-byte stores per block (measured faster than a 16-byte
/// copy and byte stores). A CTR context would need a new IV per packet, and
/// in OpenSSL 3.0 each `EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv)` asks
/// the provider for the IV length through a parameter lookup by name
/// (strcmp): about 80 ns per packet, more than this ECB call over the
/// counter blocks costs. Returns 1 on success.
#define VROOM_CTR_CHUNK 1536
static inline int vroom_ctr_keystream(EVP_CIPHER_CTX *ecb, unsigned char *stream, size_t blocks,
                                      uint64_t high, uint64_t low, uint32_t counter, unsigned width) {
    const uint64_t mask = ((uint64_t)1 << (8 * width)) - 1;
    for (size_t b = 0; b < blocks; b++, counter++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        // The IV's last bytes are the word's most significant ones.
        const uint64_t word = (low & (UINT64_MAX >> (8 * width))) | __builtin_bswap64((uint64_t)counter & mask);
#else
        const uint64_t word = (low & ~mask) | ((uint64_t)counter & mask);
#endif
        memcpy(stream + 16 * b, &high, 8);
        memcpy(stream + 16 * b + 8, &word, 8);
    }
    int written = 0;
    return EVP_EncryptUpdate(ecb, stream, &written, stream, (int)(blocks * 16)) == 1 && written == (int)(blocks * 16);
}

/// AES-128 in counter mode (RFC 3711 section 4.1.1) through an ECB context
/// keyed once (`EVP_aes_128_ecb`, padding off): block `i` of the keystream is
/// E(k, IV + i). It runs over `len` bytes of `in` into `out`, then goes on
/// over `len2` bytes of `in2` into `out2` (each pair may be the same buffer).
/// The keystream is built on the stack, at most `VROOM_CTR_CHUNK` bytes per
/// ECB call, and is not cleansed: the bytes used are plaintext XOR
/// ciphertext, which the packet buffers reveal anyway, and the rest of the
/// last block belongs to a counter value no packet uses.
/// SRTP's IV ends in a 16-bit block counter: `iv[14]` and `iv[15]` must be 0,
/// and the two runs together at most 2^16 blocks. Returns 1 on success.
static inline int vroom_aes_ctr_xor(EVP_CIPHER_CTX *ecb, const unsigned char iv[16],
                                    const unsigned char *in, unsigned char *out, size_t len,
                                    const unsigned char *in2, unsigned char *out2, size_t len2) {
    unsigned char stream[VROOM_CTR_CHUNK] __attribute__((aligned(16)));
    const size_t total = len + len2;
    if (iv[14] != 0 || iv[15] != 0 || total > (size_t)65536 * 16) return 0;
    uint64_t high, low;
    memcpy(&high, iv, 8);
    memcpy(&low, iv + 8, 8);
    uint32_t block = 0;
    size_t done = 0;
    while (done < total) {
        const size_t chunk = total - done < sizeof stream ? total - done : sizeof stream;
        const size_t blocks = (chunk + 15) / 16;
        if (!vroom_ctr_keystream(ecb, stream, blocks, high, low, block, 2)) return 0;
        block += (uint32_t)blocks;
        // This chunk covers [done, done + chunk): its part in the first run,
        // then its part in the second.
        size_t used = 0;
        if (done < len) {
            used = len - done < chunk ? len - done : chunk;
            vroom_xor_bytes(out + done, in + done, stream, used);
        }
        if (used < chunk) {
            const size_t at = done + used - len;
            vroom_xor_bytes(out2 + at, in2 + at, stream + used, chunk - used);
        }
        done += chunk;
    }
    return 1;
}
/// AES-128-GCM (RFC 7714's AEAD_AES_128_GCM) through OpenSSL's GCM128 mode
/// code (`CRYPTO_gcm128_*`: GHASH with carry-less multiply where present)
/// over an ECB context keyed once. Through EVP, OpenSSL 3.0 looks up the IV
/// length by name on each new IV and goes through parameter arrays for the
/// tag (EVP_CTRL_GCM_GET_TAG, SET_TAG): about 170 ns of a 100-byte packet's
/// 550. This path gives up OpenSSL's stitched AES-GCM assembly, and
/// measured faster anyway at 100 and 1,200 bytes (docs/README.md, "AES-GCM
/// without EVP", session 40). GHASH runs in the mode code, outside any
/// provider: fine here, where no FIPS provider is required.
/// `failed` records an ECB failure inside the mode code's callbacks, which
/// cannot return one; the functions below check and clear it.
typedef struct {
    EVP_CIPHER_CTX *ecb;
    int failed;
} vroom_gcm_key;

/// GCM128's block function: one block through the ECB context.
static inline void vroom_gcm_block(const unsigned char in[16], unsigned char out[16], const void *key) {
    vroom_gcm_key *k = (vroom_gcm_key *)key;
    int written = 0;
    if (EVP_EncryptUpdate(k->ecb, out, &written, in, 16) != 1 || written != 16) {
        memset(out, 0, 16);
        k->failed = 1;
    }
}

/// GCM128's counter function: `blocks` blocks of `in` XOR E(k, ivec + j)
/// into `out`, the counter being ivec's last 4 bytes (big-endian, mod 2^32):
/// `vroom_ctr_keystream` at width 4, `VROOM_CTR_CHUNK` bytes per ECB call
/// (see `vroom_aes_ctr_xor` on why the keystream is not cleansed).
static inline void vroom_gcm_ctr32(const unsigned char *in, unsigned char *out, size_t blocks, const void *key,
                                   const unsigned char ivec[16]) {
    vroom_gcm_key *k = (vroom_gcm_key *)key;
    unsigned char stream[VROOM_CTR_CHUNK] __attribute__((aligned(16)));
    uint64_t high, low;
    memcpy(&high, ivec, 8);
    memcpy(&low, ivec + 8, 8);
    uint32_t counter = ((uint32_t)ivec[12] << 24) | ((uint32_t)ivec[13] << 16) | ((uint32_t)ivec[14] << 8) | ivec[15];
    while (blocks > 0) {
        const size_t n = blocks < sizeof stream / 16 ? blocks : sizeof stream / 16;
        if (!vroom_ctr_keystream(k->ecb, stream, n, high, low, counter, 4)) {
            memset(stream, 0, n * 16);
            k->failed = 1;
        }
        counter += (uint32_t)n;
        vroom_xor_bytes(out, in, stream, n * 16);
        in += n * 16;
        out += n * 16;
        blocks -= n;
    }
}

/// A GCM128 context over `key` (which must outlive it); NULL on failure,
/// including a failed ECB call for the hash key H = E(k, 0), which would
/// otherwise leave H zero and the tags independent of the data.
static inline GCM128_CONTEXT *vroom_gcm_new(vroom_gcm_key *key) {
    key->failed = 0;
    GCM128_CONTEXT *gcm = CRYPTO_gcm128_new(key, vroom_gcm_block);
    if (gcm != NULL && key->failed) {
        CRYPTO_gcm128_release(gcm);
        return NULL;
    }
    return gcm;
}

/// Starts a packet: the 12-byte IV, then `aad` and `aad2` (either may be
/// empty) as additional data. Returns 1 on success.
static inline int vroom_gcm_start(GCM128_CONTEXT *gcm, vroom_gcm_key *key, const unsigned char iv[12],
                                  const unsigned char *aad, size_t aad_len, const unsigned char *aad2, size_t aad2_len) {
    key->failed = 0;
    CRYPTO_gcm128_setiv(gcm, iv, 12);
    return (aad_len == 0 || CRYPTO_gcm128_aad(gcm, aad, aad_len) == 0)
        && (aad2_len == 0 || CRYPTO_gcm128_aad(gcm, aad2, aad2_len) == 0)
        && !key->failed;
}

/// Seals a packet: starts it, encrypts `len` bytes of `in` into `out`, then
/// `len2` bytes of `in2` into `out2` (any pair may be in place; GCM streams,
/// so the split does not change the output), and writes the 16-byte tag.
/// On failure the outputs are cleansed and no tag is written.
static inline int vroom_gcm_seal(GCM128_CONTEXT *gcm, vroom_gcm_key *key, const unsigned char iv[12],
                                 const unsigned char *aad, size_t aad_len, const unsigned char *aad2, size_t aad2_len,
                                 const unsigned char *in, unsigned char *out, size_t len,
                                 const unsigned char *in2, unsigned char *out2, size_t len2, unsigned char tag[16]) {
    if (!vroom_gcm_start(gcm, key, iv, aad, aad_len, aad2, aad2_len)
        || (len > 0 && CRYPTO_gcm128_encrypt_ctr32(gcm, in, out, len, vroom_gcm_ctr32) != 0)
        || (len2 > 0 && CRYPTO_gcm128_encrypt_ctr32(gcm, in2, out2, len2, vroom_gcm_ctr32) != 0)
        || key->failed) {
        if (len > 0) OPENSSL_cleanse(out, len);
        if (len2 > 0) OPENSSL_cleanse(out2, len2);
        return 0;
    }
    CRYPTO_gcm128_tag(gcm, tag, 16);
    return !key->failed;
}

/// Opens a packet in place: starts it, decrypts `len` bytes at `data` and
/// checks the 16-byte `tag` (in constant time). Returns 1 when it verifies;
/// on 0 the caller drops the packet, whose bytes may be decrypted already.
static inline int vroom_gcm_open(GCM128_CONTEXT *gcm, vroom_gcm_key *key, const unsigned char iv[12],
                                 const unsigned char *aad, size_t aad_len, const unsigned char *aad2, size_t aad2_len,
                                 unsigned char *data, size_t len, const unsigned char tag[16]) {
    return vroom_gcm_start(gcm, key, iv, aad, aad_len, aad2, aad2_len)
        && (len == 0 || CRYPTO_gcm128_decrypt_ctr32(gcm, data, data, len, vroom_gcm_ctr32) == 0)
        && CRYPTO_gcm128_finish(gcm, tag, 16) == 0
        && !key->failed;
}
#endif
