#ifndef HUB_CCRYPTO_SHIM_H
#define HUB_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (Debian libssl-dev), which libcurl already links: HMAC-SHA256 for the
// session tokens' MAC and a constant-time comparison. No hand-written cryptography.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

/// A reusable HMAC-SHA256 context keyed with `key` (NULL on failure). OSSL_PARAM arrays are
/// built from C string macros Swift cannot call, hence this shim.
static inline EVP_MAC_CTX *hub_hmac_sha256_new(const void *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  // the context holds its own reference
    if (context == NULL) return NULL;
    OSSL_PARAM params[2] = { OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0), OSSL_PARAM_construct_end() };
    if (EVP_MAC_init(context, key, key_length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

/// HMAC-SHA256 of `data` into `out` (32 bytes) with a context from `hub_hmac_sha256_new`, started
/// again with its key (no key schedule or algorithm lookup per MAC); 1 on success.
static inline int hub_hmac_sha256_compute(EVP_MAC_CTX *context, const unsigned char *data, size_t length, unsigned char *out) {
    size_t written = 0;
    return EVP_MAC_init(context, NULL, 0, NULL) == 1 && EVP_MAC_update(context, data, length) == 1
        && EVP_MAC_final(context, out, &written, 32) == 1 && written == 32;
}

/// `hub_hmac_sha256_compute` over `prefix` followed by `data` (two updates: no concatenation).
static inline int hub_hmac_sha256_compute2(EVP_MAC_CTX *context, const unsigned char *prefix, size_t prefix_length,
                                           const unsigned char *data, size_t length, unsigned char *out) {
    size_t written = 0;
    return EVP_MAC_init(context, NULL, 0, NULL) == 1 && EVP_MAC_update(context, prefix, prefix_length) == 1
        && EVP_MAC_update(context, data, length) == 1 && EVP_MAC_final(context, out, &written, 32) == 1 && written == 32;
}

static inline void hub_hmac_sha256_free(EVP_MAC_CTX *context) { EVP_MAC_CTX_free(context); }

/// Compares `length` bytes in time that does not depend on where they differ; 0 when equal.
static inline int hub_constant_time_compare(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length);
}

#endif
