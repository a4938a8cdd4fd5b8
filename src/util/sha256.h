/* A small SHA-256 (FIPS 180-4), enough for rule digests; no crypto library
 * is among the allowed dependencies. */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* Lower-case hex of the digest of data: out gets 64 digits and a NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);
