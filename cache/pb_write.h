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

struct json_doc;
struct pb_field;

/* One member of an object being encoded: its key's raw text (escapes
 * not undone), its value's text and token (in pb_enc's doc), and the
 * field it fills (NULL: none, or not looked up yet). */
struct pb_member {
	const char *k, *v;
	size_t kn, vn;
	int vt;
	const struct pb_field *f;
	size_t order; /* maps: position in the object, for duplicates */
};

/* One step of the path to where the encoder is, for error messages,
 * written out only on an error: a name (s, n bytes or up to its NUL when
 * n is PB_NAME_Z), an array index (i), or a map's key, decoded, at
 * [i, i + n) of the encoder's keys (which move as they grow). */
#define PB_NAME_Z UINT32_MAX
enum {
	PB_STEP_NAME,
	PB_STEP_INDEX,
	PB_STEP_KEY
};
struct pb_step {
	const char *s;
	uint32_t n, i;
	int kind;
};

/* Steps kept; a path deeper than this is cut short in messages. */
#define PB_STEPS 64

struct pb_enc {
	struct buf *out;
	char *err;
	size_t errlen;
	const struct json_doc *doc; /* the input, tokenized and validated
				     * once: its strings are valid UTF-8
				     * without control bytes */
	struct pb_member *ms; /* a stack: each object level uses a range */
	size_t nms, cap;
	struct buf keys;		/* decoded map keys */
	struct pb_step steps[PB_STEPS]; /* where we are: */
	size_t nsteps;			/* those past PB_STEPS not kept */
	int depth;
};

int pb_enc_fail(struct pb_enc *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pb_enc_nomem(struct pb_enc *e);

/* A length-delimited field num: pb_enc_len_begin() writes its tag and
 * makes room for a one-byte length, its contents starting at *mark;
 * pb_enc_len_guess() makes room for the length guess would take (a
 * nested message's JSON length says about how long it will be);
 * pb_enc_len_end() writes the length of what was appended since, moving
 * it when the room was not its length's size. */
int pb_enc_len_begin(struct pb_enc *e, unsigned num, size_t *mark);
int pb_enc_len_guess(struct pb_enc *e, unsigned num, size_t *mark,
		     size_t guess);
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
int pb_enc_raw(struct pb_enc *e, unsigned num, const char *v, size_t vn,
	       int vt); /* vt: its token, or -1 for a literal v */
/* double; v NULL: 0 */
int pb_enc_double(struct pb_enc *e, unsigned num, const char *v, size_t vn);

#endif
