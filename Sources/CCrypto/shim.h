#ifndef HUB_CCRYPTO_SHIM_H
#define HUB_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (Debian libssl-dev), which libcurl already links: HMAC-SHA256 for the
// session tokens' MAC and a constant-time comparison. No hand-written cryptography.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/// HMAC-SHA256 of `data` under `key` into `out` (32 bytes); 1 on success.
static inline int hub_hmac_sha256(const void *key, int key_length, const unsigned char *data, size_t data_length,
                                  unsigned char *out) {
    unsigned int length = 0;
    return HMAC(EVP_sha256(), key, key_length, data, data_length, out, &length) != NULL && length == 32;
}

/// Compares `length` bytes in time that does not depend on where they differ; 0 when equal.
static inline int hub_constant_time_compare(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length);
}

#endif
