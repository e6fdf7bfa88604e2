/* sha256.h - SHA-256 (FIPS 180-4) for the tests that compare data with published hashes.
   sha256_hex(data, n, out) writes 64 lowercase hex digits and a NUL into out[65]; for data
   too large to hold at once, sha256_init / sha256_update / sha256_final. */
#ifndef LLM_TESTS_SHA256_H
#define LLM_TESTS_SHA256_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct sha256_ctx { uint32_t h[8]; uint8_t buf[64]; size_t used; uint64_t bytes; } sha256_ctx;

/* The rounds are written out with macros and whole blocks are hashed where they lie: the
   tests hash tens of megabytes, and unoptimized sanitizer builds pay for every call. */
#define SHA256_ROTR(x, n) ((x) >> (n) | (x) << (32 - (n)))
#define SHA256_ROUND(a, b, c, d, e, f, g, h, i)                                                              \
    t1 = h + (SHA256_ROTR(e, 6) ^ SHA256_ROTR(e, 11) ^ SHA256_ROTR(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i]; \
    t2 = (SHA256_ROTR(a, 2) ^ SHA256_ROTR(a, 13) ^ SHA256_ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));          \
    d += t1;                                                                                                    \
    h = t1 + t2;

/* Test code, not the library's: the sanitizer builds leave it uninstrumented. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define SHA256_UNCHECKED __attribute__((no_sanitize("address", "undefined")))
#else
#define SHA256_UNCHECKED
#endif

SHA256_UNCHECKED static void sha256_block(sha256_ctx *c, const uint8_t *p) {
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
        0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
        0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
        0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
        0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 };
    uint32_t w[64], a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3], e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7], t1, t2;
    int i;
    for (i = 0; i < 16; i++) w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 64; i++)
        w[i] = w[i - 16] + (SHA256_ROTR(w[i - 15], 7) ^ SHA256_ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
               (SHA256_ROTR(w[i - 2], 17) ^ SHA256_ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10));
    /* eight rounds a turn, the working variables' roles rotating instead of their values */
    for (i = 0; i < 64; i += 8) {
        SHA256_ROUND(a, b, cc, d, e, f, g, h, i)
        SHA256_ROUND(h, a, b, cc, d, e, f, g, i + 1)
        SHA256_ROUND(g, h, a, b, cc, d, e, f, i + 2)
        SHA256_ROUND(f, g, h, a, b, cc, d, e, i + 3)
        SHA256_ROUND(e, f, g, h, a, b, cc, d, i + 4)
        SHA256_ROUND(d, e, f, g, h, a, b, cc, i + 5)
        SHA256_ROUND(cc, d, e, f, g, h, a, b, i + 6)
        SHA256_ROUND(b, cc, d, e, f, g, h, a, i + 7)
    }
    c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d; c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}

static void sha256_init(sha256_ctx *c) {
    static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(c->h, h0, sizeof h0);
    c->used = 0;
    c->bytes = 0;
}

static void sha256_update(sha256_ctx *c, const void *data, size_t n) {
    const uint8_t *p = (const uint8_t *)data;
    c->bytes += n;
    while (n) {
        size_t k = 64 - c->used < n ? 64 - c->used : n;
        if (c->used == 0 && n >= 64) { sha256_block(c, p); p += 64; n -= 64; continue; }
        memcpy(c->buf + c->used, p, k);
        c->used += k; p += k; n -= k;
        if (c->used == 64) { sha256_block(c, c->buf); c->used = 0; }
    }
}

static void sha256_final(sha256_ctx *c, char out[65]) {
    uint64_t bits = c->bytes * 8;
    uint8_t pad = 0x80, len[8];
    int i;
    sha256_update(c, &pad, 1);
    pad = 0;
    while (c->used != 56) sha256_update(c, &pad, 1);
    for (i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(c, len, 8);
    for (i = 0; i < 8; i++) sprintf(out + 8 * i, "%08x", (unsigned)c->h[i]);
}

static void sha256_hex(const void *data, size_t n, char out[65]) {
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, data, n);
    sha256_final(&c, out);
}

#endif
