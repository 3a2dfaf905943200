/*
 * fake_json: read fields straight out of compact JSON bytes.
 *
 * The store keeps every object as the bytes it serves. To index an
 * object (name, namespace, labels, selectable fields) it needs only a few
 * values, so instead of building a tree it walks the bytes: skip a value,
 * find a member by dotted path, decode one string. Seeding 100k pods
 * goes through here, so it must run at memory speed.
 *
 * Spans are [start, end) pointers into the caller's bytes; a string's
 * span includes its quotes. Input may be malformed: every function
 * checks bounds and reports failure rather than reading past end.
 */
#ifndef FAKE_JSON_H
#define FAKE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The end of the value starting at p (leading white space allowed), or
 * NULL when it is malformed or runs past end. */
const char *fake_json_skip(const char *p, const char *end);

/* Find the value at a dotted member path ("metadata.labels") in the
 * object [p, end). Returns true and its span. */
bool fake_json_find(const char *p, const char *end, const char *path,
		    const char **vs, const char **ve);

/* The text of a value: a string unescaped, null as "", anything else
 * (number, bool, object) as its raw bytes. malloc'd; NULL on ENOMEM or a
 * malformed string. */
char *fake_json_text(const char *vs, const char *ve);

/* Call fn for each member of the object [vs, ve), with the key span
 * (quotes included) and the value span. Stops at the first non-zero
 * return of fn and returns it; returns -EINVAL when not an object. */
int fake_json_each(const char *vs, const char *ve,
		   int (*fn)(void *ctx, const char *ks, const char *ke,
			     const char *vs, const char *ve),
		   void *ctx);

/* A copy of json with the value of metadata.resourceVersion replaced by
 * "rv" (added after metadata.name's value is not supported: the member
 * must exist). malloc'd, *outlen set; NULL on failure. */
char *fake_json_set_rv(const char *json, size_t len, uint64_t rv,
		       size_t *outlen);

/* Base64url without padding (the continue token alphabet). encode
 * returns a malloc'd NUL-terminated string; decode returns the bytes
 * (NUL-terminated) or NULL with *bad_at set to the offending offset. */
char *fake_b64url_encode(const char *p, size_t n);
char *fake_b64url_decode(const char *s, size_t *outlen, size_t *bad_at);

#endif
