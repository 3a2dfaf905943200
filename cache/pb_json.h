/*
 * pb_json: the JSON text reads under the protobuf encoder (pb_encode.c,
 * which walks the document on cache/json.h's tokens, validated there):
 * strings decoded, numbers checked. Borrowed input, no allocation; pure
 * functions, any thread. Internal to cache/pb_*.c.
 */
#ifndef CACHE_PB_JSON_H
#define CACHE_PB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "config/buf.h"

/* Whether [p, p + n) is the literal lit. */
static inline bool pb_json_is(const char *p, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

/* Whether [p, end) is exactly one JSON number; *frac says whether it has
 * a fraction or an exponent. */
bool pb_json_number(const char *p, const char *end, bool *frac);

/* Where a decoded string goes: a buffer, a fixed array (-E2BIG when it
 * does not fit), or nowhere (only validated, counted in len). */
struct pb_json_sink {
	struct buf *b;
	char *fix;
	size_t cap, len;
};

/* Decode the JSON string literal [p, p + n) (quotes included) into out:
 * escapes undone, \\u escapes as UTF-8, a lone surrogate and each byte of
 * invalid UTF-8 as U+FFFD, as Go's decoder does. 0; -EINVAL for a
 * control byte or a bad escape; -ENOMEM or -E2BIG from the sink. */
int pb_json_str_decode(const char *p, size_t n, struct pb_json_sink *out);

/* Whether the string literal [p, p + n) needs no decoding: no escape, no
 * control byte, valid UTF-8. */
bool pb_json_str_plain(const char *p, size_t n);

#endif
