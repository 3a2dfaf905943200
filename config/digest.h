/*
 * digest: SHA-256 of one or two byte strings, for the keys of the
 * proxy's caches and pools (tokens, Authorization values), never kept
 * in the clear.
 *
 * Any thread. The algorithm is fetched once per process (OpenSSL 3's
 * one-shot SHA256() looks it up on every call, under locks every thread
 * would share) and each thread keeps one digest context, freed when the
 * thread ends.
 */
#ifndef CONFIG_DIGEST_H
#define CONFIG_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define CONFIG_SHA256_LEN 32

/* SHA-256 of a[0, an) then b[0, bn) (b may be NULL when bn is 0) into
 * out. Returns 0, or -ENOMEM when OpenSSL could not do it. */
int config_sha256(const void *a, size_t an, const void *b, size_t bn,
		  uint8_t out[CONFIG_SHA256_LEN]);

#endif
