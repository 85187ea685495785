/*
 * Keccak-256 as Ethereum uses it: the Keccak[c=512] sponge over Keccak-f[1600] with the
 * original multi-rate padding (first pad byte 0x01, not SHA-3's 0x06). Written from the
 * Keccak reference specification (keccak.team, "The Keccak reference", 3.0): 24 rounds of
 * theta, rho, pi, chi, iota on 25 64-bit lanes, rate 136 bytes, lanes little-endian.
 */
#include "keccak.h"

#include <string.h>

#define KECCAK_ROUNDS 24
#define RATE_BYTES 136 /* (1600 - 2 * 256) / 8 */

static const uint64_t ROUND_CONSTANTS[KECCAK_ROUNDS] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/* rho rotation of lane x + 5y (the reference's offset table r[x][y]). */
static const unsigned RHO[25] = {
    0,  1,  62, 28, 27, /* y = 0 */
    36, 44, 6,  55, 20, /* y = 1 */
    3,  10, 43, 25, 39, /* y = 2 */
    41, 45, 15, 21, 8,  /* y = 3 */
    18, 2,  61, 56, 14, /* y = 4 */
};
/* pi: lane x + 5y moves to lane y + 5((2x + 3y) mod 5). */
static const unsigned PI_DEST[25] = {
    0,  10, 20, 5,  15, /* y = 0 */
    16, 1,  11, 21, 6,  /* y = 1 */
    7,  17, 2,  12, 22, /* y = 2 */
    23, 8,  18, 3,  13, /* y = 3 */
    14, 24, 9,  19, 4,  /* y = 4 */
};
static const unsigned MOD5[10] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4};

static inline uint64_t rotl64(uint64_t v, unsigned n) { return (v << n) | (v >> ((64 - n) & 63)); }

/* The constant tables let the compiler unroll every loop into straight-line code. */
static void keccak_f1600(uint64_t a[25]) {
  uint64_t c[5], d[5], b[25];
  for (int round = 0; round < KECCAK_ROUNDS; round++) {
    /* theta */
#pragma GCC unroll 5
    for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
#pragma GCC unroll 5
    for (int x = 0; x < 5; x++) d[x] = c[MOD5[x + 4]] ^ rotl64(c[MOD5[x + 1]], 1);
    /* theta applied, then rho and pi in one pass */
#pragma GCC unroll 25
    for (int i = 0; i < 25; i++) b[PI_DEST[i]] = rotl64(a[i] ^ d[MOD5[i % 5]], RHO[i]);
    /* chi */
#pragma GCC unroll 25
    for (int i = 0; i < 25; i++) {
      int x = i % 5, y5 = i - x;
      a[i] = b[i] ^ ((~b[y5 + MOD5[x + 1]]) & b[y5 + MOD5[x + 2]]);
    }
    /* iota */
    a[0] ^= ROUND_CONSTANTS[round];
  }
}

static inline uint64_t load64_le(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
#else
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
#endif
}

static inline void store64_le(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, 8);
#else
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static void absorb_block(uint64_t a[25], const uint8_t *block) {
  for (int i = 0; i < RATE_BYTES / 8; i++) a[i] ^= load64_le(block + 8 * i);
  keccak_f1600(a);
}

void basalt_keccak256(const uint8_t *data, size_t len, uint8_t out[32]) {
  uint64_t a[25];
  memset(a, 0, sizeof a);
  while (len >= RATE_BYTES) {
    absorb_block(a, data);
    data += RATE_BYTES;
    len -= RATE_BYTES;
  }
  uint8_t last[RATE_BYTES];
  memset(last, 0, sizeof last);
  if (len > 0) memcpy(last, data, len);
  last[len] |= 0x01;
  last[RATE_BYTES - 1] |= 0x80;
  absorb_block(a, last);
  for (int i = 0; i < 4; i++) store64_le(out + 8 * i, a[i]);
}
