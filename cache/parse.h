/*
 * parse: scalar values written as text, outside any JSON document.
 *
 * The rules for a resourceVersion or limit in a query string and for an
 * RFC 3339 timestamp live here once, so the cache and the proxy's
 * handlers cannot disagree on what they accept. Pure functions.
 */
#ifndef CACHE_PARSE_H
#define CACHE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one resourceVersion rule (and limit's): decimal digits only, no
 * sign, space or leading '+', at most UINT64_MAX. False for anything
 * else, overflow included; s may be NULL. */
bool cache_parse_u64(const char *s, uint64_t *out);

/* Parse an RFC 3339 UTC timestamp ("2026-01-01T00:00:00Z", fractional
 * seconds: whatever lies between the seconds and the final Z is not
 * checked) of n bytes to unix seconds. Returns 0, or -EINVAL
 * when malformed (then *out is untouched). */
int cache_parse_time(const char *s, size_t n, int64_t *out);

#endif
