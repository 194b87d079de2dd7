#ifndef HUB_CCRYPTO_SHIM_H
#define HUB_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (Debian libssl-dev), which libcurl already links: HMAC-SHA256 for the
// session tokens' MAC and a constant-time comparison. The hash is OpenSSL's; the HMAC below is
// RFC 2104's construction over it, keyed once (the same as OpenSSL's own `HMAC_Init_ex` does),
// checked against RFC 4231's vectors and swift-crypto's HMAC on random keys by HubCryptoTests.
//
// The `SHA256_*` functions are deprecated in OpenSSL 3 (in favour of EVP) but still part of its
// API, and the only one whose state is a plain struct: a keyed state is copied, not
// duplicated on the heap. With EVP, re-keying an HMAC context duplicated two digest contexts per
// MAC (two allocations, `EVP_MD_CTX_copy_ex`), a third of the MAC's time on `GET /view?uri=`.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

/// An HMAC-SHA256 key schedule: the hash states after the inner and outer padded key blocks.
/// Immutable once made, so it can be read by any number of threads at once.
typedef struct {
    SHA256_CTX inner;
    SHA256_CTX outer;
} hub_hmac_sha256_key;

/// Keys `schedule` with `key` (RFC 2104: a key longer than the block is hashed first); 1 on success.
static inline int hub_hmac_sha256_key_init(hub_hmac_sha256_key *schedule, const void *key, size_t key_length) {
    unsigned char block[SHA256_CBLOCK];
    unsigned char pad[SHA256_CBLOCK];
    memset(block, 0, sizeof block);
    if (key_length > SHA256_CBLOCK) {
        if (SHA256((const unsigned char *)key, key_length, block) == NULL) return 0;
    } else if (key_length > 0) {
        memcpy(block, key, key_length);
    }
    int ok = 1;
    for (size_t i = 0; i < SHA256_CBLOCK; i++) pad[i] = block[i] ^ 0x36;
    ok &= SHA256_Init(&schedule->inner) == 1 && SHA256_Update(&schedule->inner, pad, SHA256_CBLOCK) == 1;
    for (size_t i = 0; i < SHA256_CBLOCK; i++) pad[i] = block[i] ^ 0x5c;
    ok &= SHA256_Init(&schedule->outer) == 1 && SHA256_Update(&schedule->outer, pad, SHA256_CBLOCK) == 1;
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
    return ok;
}

/// HMAC-SHA256 of `prefix` followed by `data` into `out` (32 bytes) under `schedule`; 1 on
/// success. Works on copies of the schedule's states (on the stack): `schedule` is only read.
static inline int hub_hmac_sha256_keyed2(const hub_hmac_sha256_key *schedule, const unsigned char *prefix,
                                         size_t prefix_length, const unsigned char *data, size_t length,
                                         unsigned char *out) {
    SHA256_CTX state = schedule->inner;
    unsigned char inner_digest[SHA256_DIGEST_LENGTH];
    int ok = SHA256_Update(&state, prefix, prefix_length) == 1 && SHA256_Update(&state, data, length) == 1
        && SHA256_Final(inner_digest, &state) == 1;
    state = schedule->outer;
    ok = ok && SHA256_Update(&state, inner_digest, sizeof inner_digest) == 1 && SHA256_Final(out, &state) == 1;
    OPENSSL_cleanse(&state, sizeof state);
    OPENSSL_cleanse(inner_digest, sizeof inner_digest);
    return ok;
}

/// Compares `length` bytes in time that does not depend on where they differ; 0 when equal.
static inline int hub_constant_time_compare(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length);
}

#endif
