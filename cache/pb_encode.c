/*
 * pb_encode: compact JSON objects to Kubernetes protobuf (see
 * pb_encode.h and docs/PROTOBUF.md).
 *
 * One pass per message level, over the JSON text itself (no tree): the
 * members of an object are listed (key and value spans, skipped
 * structurally without being looked into), then the message's fields
 * are written in ascending field number, each from its member or, when
 * the member is absent, as the apiserver writes an unset field. Every
 * byte of the input is validated by the level that reads it: a nested
 * object by its own message's pass, a scalar when it is converted, a raw
 * JSON value (FieldsV1) by a full validating scan. So the text is
 * skipped once per enclosing level but validated exactly once.
 *
 * A length-delimited field reserves one byte for its length and moves
 * its contents when the length needs more (messages of 128 bytes and
 * up): no size pass, no temporary buffers.
 */
#include "cache/pb_encode.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/pb_json.h"
#include "cache/pb_kinds.h"
#include "cache/pb_schema_meta.h"
#include "cache/pb_write.h"
#include "config/alloc.h"
#include "config/limits.h"

/* Nested messages deeper than this are refused (a recursive schema such
 * as a CRD's JSONSchemaProps is the only way to get near it). */
#define PB_MAX_DEPTH 512

/* --- encoder state -------------------------------------------------- */


/* Path bookkeeping: push ".name" (or "[i]"), pop back to a mark. */
static size_t path_push(struct pb_enc *e, const char *s, size_t n, bool dot)
{
	size_t mark = e->pathlen;
	size_t room = sizeof(e->path) - e->pathlen - 1;
	/* on every field of every object: copies, not a printf */
	if (dot && room) {
		e->path[e->pathlen++] = '.';
		room--;
	}
	if (n > room)
		n = room;
	memcpy(e->path + e->pathlen, s, n);
	e->pathlen += n;
	e->path[e->pathlen] = '\0';
	return mark;
}

static size_t path_index(struct pb_enc *e, size_t i)
{
	char tmp[24];
	int w = snprintf(tmp, sizeof(tmp), "[%zu]", i);
	return path_push(e, tmp, (size_t)w, false);
}

/*
 * List the members of the object [p, end) onto e's member stack (its
 * range starts at *first, *n members), checking the object's own
 * syntax; the values are only skipped.
 */
static int collect(struct pb_enc *e, const char *p, const char *end,
		   size_t *first, size_t *n)
{
	*first = e->nms;
	*n = 0;
	p = pb_json_skip_ws(p, end);
	if (p >= end || *p != '{')
		return pb_enc_fail(e, -EINVAL, "not a JSON object");
	p = pb_json_skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return pb_json_skip_ws(p + 1, end) == end ?
			       0 :
			       pb_enc_fail(e, -EINVAL, "malformed JSON");
	for (;;) {
		struct pb_member m = { 0 };
		if (p >= end || *p != '"')
			return pb_enc_fail(e, -EINVAL,
					   "malformed JSON: want a key");
		m.k = p;
		if (!(p = pb_json_skip_string(p, end)))
			return pb_enc_fail(e, -EINVAL,
					   "malformed JSON: open string");
		m.kn = (size_t)(p - m.k);
		p = pb_json_skip_ws(p, end);
		if (p >= end || *p != ':')
			return pb_enc_fail(e, -EINVAL,
					   "malformed JSON: want ':'");
		p = pb_json_skip_ws(p + 1, end);
		m.v = p;
		if (!(p = pb_json_skip_value(p, end)))
			return pb_enc_fail(e, -EINVAL, "malformed JSON value");
		m.vn = (size_t)(p - m.v);
		m.order = *n;
		if (e->nms == e->cap) {
			size_t cap = e->cap ? e->cap * 2 : 64;
			struct pb_member *ms =
				xrealloc(e->ms, cap * sizeof(*ms));
			if (!ms)
				return pb_enc_nomem(e);
			e->ms = ms;
			e->cap = cap;
		}
		e->ms[e->nms++] = m;
		(*n)++;
		p = pb_json_skip_ws(p, end);
		if (p < end && *p == ',') {
			p = pb_json_skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}' && pb_json_skip_ws(p + 1, end) == end)
			return 0;
		return pb_enc_fail(e, -EINVAL,
				   "malformed JSON: want ',' or '}'");
	}
}

/* Whether member key (raw literal) is name. */
static bool key_is(const struct pb_member *m, const char *name)
{
	/* most keys differ from most names at their first byte: unless that
	 * byte starts an escape, it is the decoded key's first too */
	if (m->kn > 2 && m->k[1] != name[0] && m->k[1] != '\\')
		return false;
	size_t n = strlen(name);
	if (m->kn == n + 2 && memcmp(m->k + 1, name, n) == 0)
		return true;
	if (memchr(m->k, '\\', m->kn) == NULL)
		return false;
	char tmp[128];
	struct pb_json_sink s = { NULL, tmp, sizeof(tmp), 0 };
	return pb_json_str_decode(m->k, m->kn, &s) == 0 && s.len == n &&
	       memcmp(tmp, name, n) == 0;
}

/* Whether message m (or a struct inlined in it) has a member name. */
static bool knows(const struct pb_msg *m, const struct pb_member *mb)
{
	for (const struct pb_field *f = m->f; f->num; f++) {
		if (f->kind == PB_INLINE ? knows(f->msg, mb) :
					   key_is(mb, f->json))
			return true;
	}
	return false;
}

/* --- values --------------------------------------------------------- */

static int enc_fields(struct pb_enc *e, const struct pb_msg *m, size_t first,
		      size_t n);
static int enc_object(struct pb_enc *e, const struct pb_msg *m, const char *v,
		      size_t vn, bool typed);
static int put_field(struct pb_enc *e, const struct pb_field *f,
		     const struct pb_member *m);

/* A core/v1 object embedded whole carries kind and apiVersion in JSON
 * only (a StatefulSet's volumeClaimTemplates). */
static bool is_typed(const struct pb_field *f)
{
#ifdef PB_TYPED
	return f->flags & PB_TYPED;
#else
	(void)f;
	return false;
#endif
}

static int cmp_keys(const void *a, const void *b)
{
	const struct pb_member *x = a, *y = b;
	size_t n = x->kn < y->kn ? x->kn : y->kn;
	int c = n ? memcmp(x->k, y->k, n) : 0;
	if (c)
		return c;
	if (x->kn != y->kn)
		return x->kn < y->kn ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* map<string, V>: entries {1 key, 2 value} sorted by key, bytewise; the
 * value is written even when empty. A key given twice counts once, with
 * its last value, as Go's decoder keeps it. */
static int put_map(struct pb_enc *e, const struct pb_field *f, const char *v,
		   size_t vn)
{
	size_t first, n, kmark = e->keys.len, emark;
	int rc;

	if ((rc = collect(e, v, v + vn, &first, &n)))
		return rc;
	/* decode the keys into e->keys, then point the members at them */
	size_t *off = n ? xmalloc(n * 2 * sizeof(*off)) : NULL;
	if (n && !off)
		return pb_enc_nomem(e);
	for (size_t i = 0; i < n; i++) {
		struct pb_member *m = &e->ms[first + i];
		off[2 * i] = e->keys.len;
		struct pb_json_sink sk = { &e->keys, NULL, 0, 0 };
		if ((rc = pb_json_str_decode(m->k, m->kn, &sk))) {
			rc = rc == -ENOMEM ?
				     pb_enc_nomem(e) :
				     pb_enc_fail(e, rc, "malformed map key");
			goto out;
		}
		off[2 * i + 1] = e->keys.len - off[2 * i];
	}
	for (size_t i = 0; i < n; i++) {
		e->ms[first + i].k = e->keys.p ? e->keys.p + off[2 * i] : "";
		e->ms[first + i].kn = off[2 * i + 1];
	}
	qsort(e->ms + first, n, sizeof(*e->ms), cmp_keys);
	/* back to offsets: a value's own maps may move e->keys */
	for (size_t i = 0; i < n; i++) {
		const struct pb_member *m = &e->ms[first + i];
		off[2 * i] = e->keys.p ? (size_t)(m->k - e->keys.p) : 0;
		off[2 * i + 1] = m->kn;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pb_member *m = &e->ms[first + i];
		const char *k = e->keys.p ? e->keys.p + off[2 * i] : "";
		size_t kn = off[2 * i + 1];
		if (i + 1 < n && off[2 * i + 3] == kn &&
		    (!kn || !memcmp(e->keys.p + off[2 * i + 2], k, kn)))
			continue; /* a later duplicate wins */
		size_t pm = path_push(e, k, kn, true);
		if ((rc = pb_enc_len_begin(e, f->num, &emark)) ||
		    (rc = pb_enc_bytes(e, 1, k, kn)))
			goto out;
		bool null = pb_json_is(m->v, m->vn, "null");
		switch (f->kind) {
		case PB_MAP_STR:
			rc = null ? pb_enc_bytes(e, 2, "", 0) :
				    pb_enc_string(e, 2, m->v, m->vn);
			break;
		case PB_MAP_BYTES:
			rc = null ? pb_enc_bytes(e, 2, "", 0) :
				    pb_enc_base64(e, 2, m->v, m->vn);
			break;
		case PB_MAP_QTY:
			rc = pb_enc_qty(e, 2, null ? NULL : m->v, m->vn);
			break;
		case PB_MAP_TIME:
			rc = pb_enc_time(e, 2, m->v, m->vn, false);
			break;
		default: { /* PB_MAP_MSG */
			size_t vm;
			if ((rc = pb_enc_len_begin(e, 2, &vm)) ||
			    (!null && (rc = enc_object(e, f->msg, m->v, m->vn,
						       false))) ||
			    (rc = pb_enc_len_end(e, vm)))
				goto out;
			break;
		}
		}
		if (rc || (rc = pb_enc_len_end(e, emark)))
			goto out;
		e->pathlen = pm;
	}
	rc = 0;
out:
	free(off);
	e->nms = first;
	e->keys.len = kmark;
	return rc;
}

/* One value of field f, present in the JSON (an array's element, or the
 * member itself). */
static int put_one(struct pb_enc *e, const struct pb_field *f, const char *v,
		   size_t vn)
{
	bool null = pb_json_is(v, vn, "null");
	int64_t iv;
	int rc;

	switch (f->kind) {
	case PB_STR:
		return null ? pb_enc_bytes(e, f->num, "", 0) :
			      pb_enc_string(e, f->num, v, vn);
	case PB_BYTES:
		return null ? pb_enc_bytes(e, f->num, "", 0) :
			      pb_enc_base64(e, f->num, v, vn);
	case PB_BOOL:
		if (null || pb_json_is(v, vn, "false"))
			return pb_enc_varint(e, f->num, 0);
		if (pb_json_is(v, vn, "true"))
			return pb_enc_varint(e, f->num, 1);
		return pb_enc_fail(e, -EINVAL, "want true or false");
	case PB_INT:
		iv = 0;
		if (!null && (rc = pb_enc_int(e, v, vn, &iv)))
			return rc;
		return pb_enc_varint(e, f->num, (uint64_t)iv);
	case PB_MSG: {
		size_t mark;
		if ((rc = pb_enc_len_begin(e, f->num, &mark)))
			return rc;
		if (!null && (rc = enc_object(e, f->msg, v, vn, is_typed(f))))
			return rc;
		return pb_enc_len_end(e, mark);
	}
	case PB_TIME:
	case PB_MICROTIME:
		return pb_enc_time(e, f->num, v, vn, f->kind == PB_MICROTIME);
	case PB_DOUBLE:
		return pb_enc_double(e, f->num, null ? NULL : v, vn);
	case PB_QTY:
		return pb_enc_qty(e, f->num, null ? NULL : v, vn);
	case PB_INTSTR:
		return pb_enc_intstr(e, f->num, null ? NULL : v, vn);
	case PB_RAW:
	case PB_FIELDSV1:
		return pb_enc_raw(e, f->num, v, vn);
	case PB_MAP_STR:
	case PB_MAP_BYTES:
	case PB_MAP_QTY:
	case PB_MAP_MSG:
	case PB_MAP_TIME:
		return null ? 0 : put_map(e, f, v, vn);
	default:
		return pb_enc_fail(e, -EINVAL, "field kind %u has no encoding",
				   f->kind);
	}
}

/* Field f whose member is absent from the JSON (or null): what the
 * apiserver writes for an unset field. Pointers, slices and maps are nil
 * and absent; a non-pointer scalar is written with its zero value; a
 * non-pointer Time is an empty message, a Quantity "0", an IntOrString
 * {0, 0, ""}. A nested message absent from JSON was a nil pointer (Go's
 * JSON encoder writes non-pointer structs always, even empty). */
static int put_absent(struct pb_enc *e, const struct pb_field *f)
{
	if (f->flags & (PB_PTR | PB_REP))
		return 0;
	switch (f->kind) {
	case PB_STR:
		return pb_enc_bytes(e, f->num, "", 0);
	case PB_BOOL:
	case PB_INT:
		return pb_enc_varint(e, f->num, 0);
	case PB_TIME:
	case PB_MICROTIME:
		return pb_enc_time(e, f->num, "null", 4,
				   f->kind == PB_MICROTIME);
	case PB_DOUBLE:
		return pb_enc_double(e, f->num, NULL, 0);
	case PB_RAW: /* a RawExtension value: an empty message */
		return pb_enc_raw(e, f->num, "null", 4);
	case PB_MSG: /* a struct value: its zero, non-pointer fields set */
		if (!(f->flags & PB_KEEP) || f->msg->form != PB_FORM_OBJECT)
			return 0;
		size_t mark;
		int rc;
		if ((rc = pb_enc_len_begin(e, f->num, &mark)) ||
		    (rc = enc_fields(e, f->msg, e->nms, 0)))
			return rc;
		return pb_enc_len_end(e, mark);
	case PB_QTY:
		return pb_enc_qty(e, f->num, NULL, 0);
	case PB_INTSTR:
		return pb_enc_intstr(e, f->num, NULL, 0);
	default: /* bytes, messages, maps, raw JSON: nil */
		return 0;
	}
}

static int put_field(struct pb_enc *e, const struct pb_field *f,
		     const struct pb_member *m)
{
	int rc;

	if (!m || pb_json_is(m->v, m->vn, "null"))
		return put_absent(e, f);
	if (!(f->flags & PB_REP))
		return put_one(e, f, m->v, m->vn);
	/* an array: one field per element, never packed */
	const char *p = pb_json_skip_ws(m->v, m->v + m->vn),
		   *end = m->v + m->vn;
	if (p >= end || *p != '[')
		return pb_enc_fail(e, -EINVAL, "want an array");
	p = pb_json_skip_ws(p + 1, end);
	if (p < end && *p == ']')
		return pb_json_skip_ws(p + 1, end) == end ?
			       0 :
			       pb_enc_fail(e, -EINVAL, "malformed JSON array");
	for (size_t i = 0;; i++) {
		const char *v = p;
		if (!(p = pb_json_skip_value(p, end)))
			return pb_enc_fail(e, -EINVAL, "malformed JSON array");
		size_t pm = path_index(e, i);
		if ((rc = put_one(e, f, v, (size_t)(p - v))))
			return rc;
		e->pathlen = pm;
		p = pb_json_skip_ws(p, end);
		if (p < end && *p == ',') {
			p = pb_json_skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == ']' && pb_json_skip_ws(p + 1, end) == end)
			return 0;
		return pb_enc_fail(e, -EINVAL, "malformed JSON array");
	}
}

/* The fields of m, from the members [first, first + n), in ascending
 * field number. */
static int enc_fields(struct pb_enc *e, const struct pb_msg *m, size_t first,
		      size_t n)
{
	unsigned last = 0;
	int rc;

	for (;;) {
		/* the next field number up: tables are small, and mostly
		 * in order already */
		const struct pb_field *f = NULL;
		for (const struct pb_field *g = m->f; g->num; g++)
			if (g->num > last && (!f || g->num < f->num))
				f = g;
		if (!f)
			return 0;
		last = f->num;
		if (f->kind == PB_INLINE) {
			size_t mark;
			if ((rc = pb_enc_len_begin(e, f->num, &mark)) ||
			    (rc = enc_fields(e, f->msg, first, n)) ||
			    (rc = pb_enc_len_end(e, mark)))
				return rc;
			continue;
		}
		const struct pb_member *mb = NULL;
		for (size_t i = n; i-- > 0;) /* the last one wins */
			if (key_is(&e->ms[first + i], f->json)) {
				mb = &e->ms[first + i];
				break;
			}
		size_t pm = path_push(e, f->json, strlen(f->json), true);
		if ((rc = put_field(e, f, mb)))
			return rc;
		e->pathlen = pm;
	}
}

/* Whether m is a kind's own type, whose Go struct embeds TypeMeta: its
 * JSON may carry kind and apiVersion wherever it is nested (the items of
 * a PartialObjectMetadataList, a StatefulSet's volumeClaimTemplates), and
 * the wire never does. */
static bool has_type_meta(const struct pb_msg *m)
{
	size_t n;
	const struct pb_kind_row *rows = pb_kinds_all(&n);

	if (m == &pb_partial_object_metadata || m == &pb_status)
		return true;
	for (size_t i = 0; i < n; i++)
		if (rows[i].msg == m)
			return true;
	return false;
}

/* The JSON object [v, v + vn) as message m (no tag: the caller framed
 * it). Top-level kind/apiVersion are skipped by pb_encode_msg. */
static int enc_members(struct pb_enc *e, const struct pb_msg *m, const char *v,
		       size_t vn, bool top)
{
	size_t first, n;
	int rc;

	if (++e->depth > PB_MAX_DEPTH) {
		rc = pb_enc_fail(e, -EINVAL, "nested too deep");
		goto out;
	}
	if ((rc = collect(e, v, v + vn, &first, &n)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct pb_member *mb = &e->ms[first + i];
		if (knows(m, mb))
			continue;
		if ((key_is(mb, "kind") || key_is(mb, "apiVersion")) &&
		    (top || has_type_meta(m))) {
			/* TypeMeta's strings: checked, not written */
			struct pb_json_sink none = { 0 };
			if (!pb_json_is(mb->v, mb->vn, "null") &&
			    (mb->vn < 2 || mb->v[0] != '"' ||
			     pb_json_str_decode(mb->v, mb->vn, &none))) {
				path_push(e, mb->k + 1, mb->kn - 2, true);
				rc = pb_enc_fail(e, -EINVAL, "want a string");
				goto out;
			}
			mb->kn = 0; /* matches no field */
			continue;
		}
		path_push(e, mb->k + 1, mb->kn > 2 ? mb->kn - 2 : 0, true);
		rc = pb_enc_fail(e, -ENOENT, "unknown member for %s", m->name);
		goto out;
	}
	rc = enc_fields(e, m, first, n);
	e->nms = first;
out:
	e->depth--;
	return rc;
}

static const struct pb_field *row(const struct pb_msg *m, unsigned num)
{
	for (const struct pb_field *f = m->f; f->num; f++)
		if (f->num == num)
			return f;
	return NULL;
}

/* The JSON value [v, v + vn) as message m, by m's JSON form (the
 * apiextensions either-types are an object, an array or a bool). */
static int enc_object(struct pb_enc *e, const struct pb_msg *m, const char *v,
		      size_t vn, bool typed)
{
	struct pb_member mb = { .v = v, .vn = vn };
	const struct pb_field *obj_row, *other_row;
	int rc;

	if (m->form == PB_FORM_OBJECT)
		return enc_members(e, m, v, vn, typed);
	if (m->form == PB_FORM_LIST) /* a bare array of the one field */
		return put_field(e, m->f, &mb);
	obj_row = row(m, m->form == PB_FORM_OR_BOOL ? 2 : 1);
	other_row = row(m, m->form == PB_FORM_OR_BOOL ? 1 : 2);
	if (!obj_row || !other_row)
		return pb_enc_fail(e, -EINVAL, "%s: incomplete table", m->name);
	if (vn && v[0] == '{') {
		if (m->form == PB_FORM_OR_BOOL && (rc = pb_enc_varint(e, 1, 1)))
			return rc;
		return put_field(e, obj_row, &mb);
	}
	if (m->form == PB_FORM_OR_BOOL ?
		    (pb_json_is(v, vn, "true") || pb_json_is(v, vn, "false")) :
		    (vn && v[0] == '['))
		return put_field(e, other_row, &mb);
	return pb_enc_fail(e, -EINVAL, "want an object or %s",
			   m->form == PB_FORM_OR_BOOL ? "a bool" : "an array");
}

int pb_encode_msg(const struct pb_msg *m, const char *json, size_t len,
		  struct buf *out, char *err, size_t errlen)
{
	struct pb_enc e = { .out = out, .err = err, .errlen = errlen };
	int rc;

	if (err && errlen)
		*err = '\0';
	path_push(&e, m->name, strlen(m->name), false);
	const char *p = pb_json_skip_ws(json, json + len), *end = json + len;
	while (end > p && pb_json_ws(end[-1]))
		end--;
	rc = enc_members(&e, m, p, (size_t)(end - p), true);
	free(e.ms);
	buf_free(&e.keys);
	return rc;
}

/* --- framing -------------------------------------------------------- */

int pb_encode_envelope(const char *api_version, const char *kind,
		       const void *raw, size_t rawlen, struct buf *out)
{
	size_t av = strlen(api_version), kn = strlen(kind);
	size_t tm = 1 + pb_varint_len(av) + av + 1 + pb_varint_len(kn) + kn;

	if (buf_add(out, PB_MAGIC, PB_MAGIC_LEN) || pb_put_tag(out, 1, 2) ||
	    pb_put_varint(out, tm) || pb_put_bytes(out, 1, api_version, av) ||
	    pb_put_bytes(out, 2, kind, kn) ||
	    pb_put_bytes(out, 2, raw, rawlen) || pb_put_bytes(out, 3, "", 0) ||
	    pb_put_bytes(out, 4, "", 0))
		return -ENOMEM;
	return 0;
}

int pb_encode_body(const char *api_version, const char *kind,
		   const struct pb_msg *m, const char *json, size_t len,
		   struct buf *out, char *err, size_t errlen)
{
	struct buf raw = BUF_INIT;
	int rc = pb_encode_msg(m, json, len, &raw, err, errlen);

	if (!rc && pb_encode_envelope(api_version, kind, raw.p ? raw.p : "",
				      raw.len, out))
		rc = -ENOMEM;
	buf_free(&raw);
	return rc;
}

void pb_list_init(struct pb_list *l, const struct pb_msg *item,
		  const char *name)
{
	memset(l, 0, sizeof(*l));
	l->f[0] = (struct pb_field){ 1, "metadata", PB_MSG, 0, &pb_list_meta };
	l->f[1] = (struct pb_field){ 2, "items", PB_MSG, PB_REP, item };
	l->msg.name = name;
	l->msg.f = l->f;
}

int pb_encode_watch_frame(const char *type, const void *body, size_t len,
			  struct buf *out)
{
	size_t tn = strlen(type);
	size_t raw = 1 + pb_varint_len(len) + len;
	uint64_t n = 1 + pb_varint_len(tn) + tn + 1 + pb_varint_len(raw) + raw;
	uint8_t be[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16),
			  (uint8_t)(n >> 8), (uint8_t)n };

	if (n > UINT32_MAX)
		return -E2BIG;
	if (buf_add(out, be, 4) || pb_put_bytes(out, 1, type, tn) ||
	    pb_put_tag(out, 2, 2) || pb_put_varint(out, raw) ||
	    pb_put_bytes(out, 1, body, len))
		return -ENOMEM;
	return 0;
}

const struct pb_msg *pb_encode_find(const char *api_version, const char *kind,
				    struct pb_list *l)
{
	const struct pb_msg *m = pb_kinds_find(api_version, kind);
	size_t kn = strlen(kind);

	if (m)
		return m;
	if (!strcmp(api_version, "meta.k8s.io/v1")) {
		if (!strcmp(kind, "PartialObjectMetadata"))
			return &pb_partial_object_metadata;
		if (!strcmp(kind, "PartialObjectMetadataList"))
			return &pb_partial_object_metadata_list;
		return NULL;
	}
	if (!strcmp(kind, "Status") && !strcmp(api_version, "v1"))
		return &pb_status;
	if (kn > 4 && kn < 128 && !strcmp(kind + kn - 4, "List")) {
		char item[128];
		memcpy(item, kind, kn - 4);
		item[kn - 4] = '\0';
		if ((m = pb_kinds_find(api_version, item))) {
			pb_list_init(l, m, kind);
			return &l->msg;
		}
	}
	return NULL;
}

/* The top-level string member key of the object json, decoded into out
 * ("" when absent or not a plain string). */
static int top_string(struct pb_enc *e, const char *json, size_t len,
		      const char *key, char *out, size_t cap)
{
	size_t first, n;
	int rc;

	*out = '\0';
	if ((rc = collect(e, json, json + len, &first, &n)))
		return rc;
	for (size_t i = n; i-- > 0;) {
		const struct pb_member *m = &e->ms[first + i];
		struct pb_json_sink s = { NULL, out, cap - 1, 0 };
		if (!key_is(m, key))
			continue;
		if (m->vn >= 2 && m->v[0] == '"' &&
		    pb_json_str_decode(m->v, m->vn, &s) == 0 &&
		    !memchr(out, 0, s.len))
			out[s.len] = '\0';
		else
			*out = '\0';
		break;
	}
	e->nms = first;
	return 0;
}

int pb_encode_doc(const char *json, size_t len, struct buf *out, char *err,
		  size_t errlen)
{
	struct pb_enc e = { .out = out, .err = err, .errlen = errlen };
	char av[128], kind[128];
	struct pb_list l;
	const struct pb_msg *m;
	int rc;

	if (err && errlen)
		*err = '\0';
	rc = top_string(&e, json, len, "apiVersion", av, sizeof(av));
	if (!rc)
		rc = top_string(&e, json, len, "kind", kind, sizeof(kind));
	free(e.ms);
	if (rc)
		return rc;
	if (!(m = pb_encode_find(av, kind, &l))) {
		if (err && errlen)
			snprintf(
				err, errlen,
				"no protobuf message for kind \"%s\" of \"%s\"",
				kind, av);
		return -ENOENT;
	}
	return pb_encode_body(av, kind, m, json, len, out, err, errlen);
}
