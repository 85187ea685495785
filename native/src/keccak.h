/* Keccak-256 (the pre-standard padding Ethereum uses): one-shot hashing of a byte string. */
#ifndef BASALT_KECCAK_H
#define BASALT_KECCAK_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 32-byte Keccak-256 digest of data[0..len) to out. */
void basalt_keccak256(const uint8_t *data, size_t len, uint8_t out[32]);

#endif
