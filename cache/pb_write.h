/*
 * pb_write: the protobuf encoder's state, and writing one field: its
 * framing, errors, and the JSON scalars' wire forms. pb_encode.c does the
 * message level (objects, maps, lists) on top. Internal to
 * cache/pb_encode.c and cache/pb_write.c; the encoder's contract is
 * pb_encode.h. Pure functions on the caller's state; any thread.
 *
 * Every function appends to e->out and returns 0, or a negative errno
 * after writing the first error, with its path, into e->err
 * (pb_enc_fail: the innermost message wins).
 */
#ifndef CACHE_PB_WRITE_H
#define CACHE_PB_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/buf.h"

/* One member of an object being encoded: its key's raw text (escapes
 * not undone) and its value's text. */
struct pb_member {
	const char *k, *v;
	size_t kn, vn;
	size_t order; /* maps: position in the object, for duplicates */
};

struct pb_enc {
	struct buf *out;
	char *err;
	size_t errlen;
	struct pb_member *ms; /* a stack: each object level uses a range */
	size_t nms, cap;
	struct buf keys; /* decoded map keys */
	char path[256];	 /* where we are, for error messages */
	size_t pathlen;
	int depth;
};

int pb_enc_fail(struct pb_enc *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pb_enc_nomem(struct pb_enc *e);

/* A length-delimited field num: pb_enc_len_begin() writes its tag and
 * reserves one byte for the length at *mark; pb_enc_len_end() writes the
 * length of what was appended since, moving it when it needs more. */
int pb_enc_len_begin(struct pb_enc *e, unsigned num, size_t *mark);
int pb_enc_len_end(struct pb_enc *e, size_t mark);
int pb_enc_varint(struct pb_enc *e, unsigned num, uint64_t v);
int pb_enc_bytes(struct pb_enc *e, unsigned num, const void *p, size_t n);

/* Scalars: v[0, vn) is the member's JSON value text,
 * validated here; NULL where noted means the member is absent. */
/* a JSON string as field num (escapes undone) */
int pb_enc_string(struct pb_enc *e, unsigned num, const char *v, size_t vn);
/* a JSON integer into *out (no field written) */
int pb_enc_int(struct pb_enc *e, const char *v, size_t vn, int64_t *out);
/* []byte: canonical padded base64 */
int pb_enc_base64(struct pb_enc *e, unsigned num, const char *v, size_t vn);
/* metav1.Time (micro false) or MicroTime; "null" is the zero time */
int pb_enc_time(struct pb_enc *e, unsigned num, const char *v, size_t vn,
		bool micro);
/* resource.Quantity; v NULL: the zero Quantity */
int pb_enc_qty(struct pb_enc *e, unsigned num, const char *v, size_t vn);
/* intstr.IntOrString; v NULL: the zero value */
int pb_enc_intstr(struct pb_enc *e, unsigned num, const char *v, size_t vn);
/* FieldsV1 / RawExtension: the JSON text as it stands */
int pb_enc_raw(struct pb_enc *e, unsigned num, const char *v, size_t vn);
/* double; v NULL: 0 */
int pb_enc_double(struct pb_enc *e, unsigned num, const char *v, size_t vn);

#endif
