#ifndef HUB_CZLIB_SHIM_H
#define HUB_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 and inflateInit2 are macros over the *_ functions: Swift cannot call macros.

/// Starts a gzip (RFC 1952) deflate stream: windowBits 15 + 16 selects the gzip wrapper.
static inline int hub_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// Starts an inflate stream that accepts gzip or zlib (windowBits 15 + 32: automatic header detection).
static inline int hub_inflate_init_auto(z_streamp stream) {
    return inflateInit2(stream, 15 + 32);
}

#endif
