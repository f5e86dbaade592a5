#ifndef VROOM_CSRTP_SHIM_H
#define VROOM_CSRTP_SHIM_H
#include <srtp2/srtp.h>

// libsrtp needs this many spare bytes after a packet for the auth tag/trailer.
static const int vroom_srtp_max_trailer_len = SRTP_MAX_TRAILER_LEN;

// Profiles by name (the crypto policy setters for AES-CM are macros).
static inline void vroom_srtp_policy_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *p) { srtp_crypto_policy_set_rtp_default(p); }
static inline void vroom_srtp_policy_aes_gcm_128(srtp_crypto_policy_t *p) { srtp_crypto_policy_set_aes_gcm_128_16_auth(p); }
#endif
