/*
 * pb_encode: compact JSON objects to Kubernetes protobuf (see
 * pb_encode.h and docs/PROTOBUF.md).
 *
 * The JSON is tokenized once by the cache's validating tokenizer
 * (cache/json.h), whose tokens record where each value ends: an object's
 * members are then listed without reading their values' text. Per
 * message level, each member is matched to its field once, and the
 * message's fields are written in ascending field number, each from its
 * member or, when the member is absent, as the apiserver writes an unset
 * field. A scalar is checked again when it is converted, a raw JSON
 * value (FieldsV1) by its own validating scan.
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

#include "cache/json.h"
#include "cache/pb_json.h"
#include "cache/pb_kinds.h"
#include "cache/pb_schema_meta.h"
#include "cache/pb_write.h"
#include "config/alloc.h"
#include "config/limits.h"

/* Nested messages deeper than this are refused (a recursive schema such
 * as a CRD's JSONSchemaProps is the only way to get near it). */
#define PB_MAX_DEPTH 512

/* About how long a message whose JSON is n bytes is: Kubernetes objects'
 * come to about five eighths (a pod's 5.5 KB of JSON to 3.5 KB), so its
 * length's room is mostly right the first time. */
#define MSG_GUESS(n) ((n) / 2 + (n) / 8)

/* What an encoding reserves of its output buffer ahead, at most. */
#define OUT_RESERVE_MAX (1024 * 1024)

/* --- encoder state -------------------------------------------------- */


/* Path bookkeeping (struct pb_step): push a name (n bytes, or
 * PB_NAME_Z) or an index; pop back to the mark returned. */
static size_t path_step(struct pb_enc *e, struct pb_step st)
{
	size_t mark = e->nsteps++;
	if (mark < PB_STEPS)
		e->steps[mark] = st;
	return mark;
}

static size_t path_push(struct pb_enc *e, const char *s, uint32_t n)
{
	return path_step(e, (struct pb_step){ s, n, 0, PB_STEP_NAME });
}

static size_t path_index(struct pb_enc *e, size_t i)
{
	return path_step(
		e, (struct pb_step){ NULL, 0, (uint32_t)i, PB_STEP_INDEX });
}

/* The text of token t, strings with their quotes. */
static const char *tok_text(const struct pb_enc *e, int t, size_t *n)
{
	size_t a, b;
	json_span(e->doc, t, &a, &b);
	*n = b - a;
	return e->doc->js + a;
}

/*
 * List the members of the object at token obj onto e's member stack (its
 * range starts at *first, *n members); the values are not looked into.
 */
static int collect(struct pb_enc *e, int obj, size_t *first, size_t *n)
{
	*first = e->nms;
	*n = 0;
	if (json_type(e->doc, obj) != JSMN_OBJECT)
		return pb_enc_fail(e, -EINVAL, "not a JSON object");
	for (int k = json_first(e->doc, obj); k > 0;
	     k = json_next(e->doc, obj, k)) {
		struct pb_member m = { 0 };
		m.k = tok_text(e, k, &m.kn);
		m.vt = k + 1;
		m.v = tok_text(e, k + 1, &m.vn);
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
	}
	return 0;
}

/* Whether member key (raw literal) is name. */
static bool key_is(const struct pb_member *m, const char *name)
{
	/* most keys differ from most names at their first byte: unless that
	 * byte starts an escape, it is the decoded key's first too */
	if (m->kn > 2 && m->k[1] != name[0] && m->k[1] != '\\')
		return false;
	/* the raw key holds no NUL (the tokenizer refuses control bytes) */
	size_t kn = m->kn - 2;
	if (strncmp(name, m->k + 1, kn) == 0 && name[kn] == '\0')
		return true;
	if (memchr(m->k, '\\', m->kn) == NULL)
		return false;
	size_t n = strlen(name);
	char tmp[128];
	struct pb_json_sink s = { NULL, tmp, sizeof(tmp), 0 };
	return pb_json_str_decode(m->k, m->kn, &s) == 0 && s.len == n &&
	       memcmp(tmp, name, n) == 0;
}

/* The field of message m (or of a struct inlined in it) that member mb
 * fills, or NULL. */
static const struct pb_field *match(const struct pb_msg *m,
				    const struct pb_member *mb)
{
	for (const struct pb_field *f = m->f; f->num; f++) {
		if (f->kind == PB_INLINE) {
			const struct pb_field *g = match(f->msg, mb);
			if (g)
				return g;
		} else if (key_is(mb, f->json)) {
			return f;
		}
	}
	return NULL;
}

/* --- values --------------------------------------------------------- */

static int enc_fields(struct pb_enc *e, const struct pb_msg *m, size_t first,
		      size_t n);
static int enc_field(struct pb_enc *e, const struct pb_field *f, size_t first,
		     size_t n);
static int enc_object(struct pb_enc *e, const struct pb_msg *m, int vt,
		      bool typed);
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
static int put_map(struct pb_enc *e, const struct pb_field *f, int vt)
{
	size_t first, n, kmark = e->keys.len, emark;
	int rc;

	if ((rc = collect(e, vt, &first, &n)))
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
		size_t pm = path_step(e, (struct pb_step){ NULL, (uint32_t)kn,
							   (uint32_t)off[2 * i],
							   PB_STEP_KEY });
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
			    (!null &&
			     (rc = enc_object(e, f->msg, m->vt, false))) ||
			    (rc = pb_enc_len_end(e, vm)))
				goto out;
			break;
		}
		}
		if (rc || (rc = pb_enc_len_end(e, emark)))
			goto out;
		e->nsteps = pm;
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
static int put_one(struct pb_enc *e, const struct pb_field *f, int vt)
{
	size_t vn;
	const char *v = tok_text(e, vt, &vn);
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
		if ((rc = pb_enc_len_guess(e, f->num, &mark, MSG_GUESS(vn))))
			return rc;
		if (!null && (rc = enc_object(e, f->msg, vt, is_typed(f))))
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
		return pb_enc_raw(e, f->num, v, vn, vt);
	case PB_MAP_STR:
	case PB_MAP_BYTES:
	case PB_MAP_QTY:
	case PB_MAP_MSG:
	case PB_MAP_TIME:
		return null ? 0 : put_map(e, f, vt);
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
		return pb_enc_raw(e, f->num, "null", 4, -1);
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
		return put_one(e, f, m->vt);
	/* an array: one field per element, never packed */
	if (json_type(e->doc, m->vt) != JSMN_ARRAY)
		return pb_enc_fail(e, -EINVAL, "want an array");
	size_t i = 0;
	for (int t = json_first(e->doc, m->vt); t > 0;
	     t = json_next(e->doc, m->vt, t), i++) {
		size_t pm = path_index(e, i);
		if ((rc = put_one(e, f, t)))
			return rc;
		e->nsteps = pm;
	}
	return 0;
}

/* Field f of a message whose members are [first, first + n), each
 * matched to its field (enc_members()). */
static int enc_field(struct pb_enc *e, const struct pb_field *f, size_t first,
		     size_t n)
{
	int rc;
	if (f->kind == PB_INLINE) {
		size_t mark;
		if ((rc = pb_enc_len_begin(e, f->num, &mark)) ||
		    (rc = enc_fields(e, f->msg, first, n)) ||
		    (rc = pb_enc_len_end(e, mark)))
			return rc;
		return 0;
	}
	const struct pb_member *mb = NULL;
	for (size_t i = n; i-- > 0;) /* the last one wins */
		if (e->ms[first + i].f == f) {
			mb = &e->ms[first + i];
			break;
		}
	size_t pm = path_push(e, f->json, PB_NAME_Z);
	if ((rc = put_field(e, f, mb)))
		return rc;
	e->nsteps = pm;
	return 0;
}

/* Tables longer than this that are not in field-number order are walked
 * by a search for each next field; none is. */
#define SORT_MAX 128

/* The fields of m, from the members [first, first + n), in ascending
 * field number. Most tables are in that order; some follow the Go
 * struct's order (a PodSpec's, a Container's), and are put in order on
 * the stack, an insertion sort of an almost sorted table. */
static int enc_fields(struct pb_enc *e, const struct pb_msg *m, size_t first,
		      size_t n)
{
	const struct pb_field *f, *ord[SORT_MAX];
	size_t k = 0;
	int rc;

	for (f = m->f; f->num && (!f[1].num || f[1].num > f->num); f++)
		;
	if (!f->num) {
		for (f = m->f; f->num; f++)
			if ((rc = enc_field(e, f, first, n)))
				return rc;
		return 0;
	}
	for (f = m->f; f->num && k < SORT_MAX; f++, k++) {
		size_t j = k;
		for (; j > 0 && ord[j - 1]->num > f->num; j--)
			ord[j] = ord[j - 1];
		ord[j] = f;
	}
	if (!f->num) {
		for (size_t i = 0; i < k; i++)
			if ((rc = enc_field(e, ord[i], first, n)))
				return rc;
		return 0;
	}
	for (unsigned last = 0;; last = f->num) {
		f = NULL;
		for (const struct pb_field *g = m->f; g->num; g++)
			if (g->num > last && (!f || g->num < f->num))
				f = g;
		if (!f)
			return 0;
		if ((rc = enc_field(e, f, first, n)))
			return rc;
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

/* The JSON object at token vt as message m (no tag: the caller framed
 * it). Top-level kind/apiVersion are checked and left out. */
static int enc_members(struct pb_enc *e, const struct pb_msg *m, int vt,
		       bool top)
{
	size_t first, n;
	int rc;

	if (++e->depth > PB_MAX_DEPTH) {
		rc = pb_enc_fail(e, -EINVAL, "nested too deep");
		goto out;
	}
	if ((rc = collect(e, vt, &first, &n)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct pb_member *mb = &e->ms[first + i];
		if ((mb->f = match(m, mb)))
			continue;
		if ((key_is(mb, "kind") || key_is(mb, "apiVersion")) &&
		    (top || has_type_meta(m))) {
			/* TypeMeta's strings: checked, not written */
			struct pb_json_sink none = { 0 };
			if (!pb_json_is(mb->v, mb->vn, "null") &&
			    (mb->vn < 2 || mb->v[0] != '"' ||
			     pb_json_str_decode(mb->v, mb->vn, &none))) {
				path_push(e, mb->k + 1, (uint32_t)(mb->kn - 2));
				rc = pb_enc_fail(e, -EINVAL, "want a string");
				goto out;
			}
			continue; /* mb->f NULL: fills no field */
		}
		path_push(e, mb->k + 1,
			  (uint32_t)(mb->kn > 2 ? mb->kn - 2 : 0));
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

/* The JSON value at token vt as message m, by m's JSON form (the
 * apiextensions either-types are an object, an array or a bool). */
static int enc_object(struct pb_enc *e, const struct pb_msg *m, int vt,
		      bool typed)
{
	struct pb_member mb = { .vt = vt };
	const struct pb_field *obj_row, *other_row;
	int rc;

	mb.v = tok_text(e, vt, &mb.vn);
	const char *v = mb.v;
	size_t vn = mb.vn;
	if (m->form == PB_FORM_OBJECT)
		return enc_members(e, m, vt, typed);
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

/*
 * What the tokenizer need not split: a FieldsV1 (metadata.managedFields[]
 * .fieldsV1) is written as its JSON text, and is most of an object's
 * managed fields, themselves up to half of a pod. It is still validated
 * byte for byte, as one token.
 */
static const struct json_shape_key mf_entry_keys[] = {
	{ "fieldsV1", 8, &json_shape_skip },
};
static const struct json_shape mf_entry = { NULL, 1, mf_entry_keys };
static const struct json_shape mf_list = { &mf_entry, 0, NULL };
static const struct json_shape_key meta_keys[] = {
	{ "managedFields", 13, &mf_list },
};
static const struct json_shape meta_shape = { NULL, 1, meta_keys };
static const struct json_shape_key top_keys[] = {
	{ "metadata", 8, &meta_shape },
};
static const struct json_shape top_shape = { NULL, 1, top_keys };

/* Tokenize json[0, len) into d; on malformed JSON, the error in err
 * after what (a message's name). */
static int parse(struct json_doc *d, const char *json, size_t len,
		 const char *what, char *err, size_t errlen)
{
	char why[128];
	int rc = json_parse_shaped(d, json, len, &top_shape, why, sizeof(why));
	if (rc && err && errlen)
		snprintf(err, errlen, "%s: %s", what,
			 rc == -ENOMEM ? "out of memory" : why);
	return rc;
}

/* pb_encode_msg() on a document already tokenized. */
static int encode_parsed(const struct pb_msg *m, const struct json_doc *d,
			 struct buf *out, char *err, size_t errlen)
{
	struct pb_enc e = {
		.out = out, .err = err, .errlen = errlen, .doc = d
	};
	int rc;

	/* the message is mostly shorter than its JSON: room for it at once
	 * rather than growing by doubling (up to OUT_RESERVE_MAX) */
	size_t room = d->len < OUT_RESERVE_MAX ? d->len : OUT_RESERVE_MAX;
	if (buf_reserve(out, room))
		return pb_enc_nomem(&e);
	path_push(&e, m->name, PB_NAME_Z);
	rc = enc_members(&e, m, 0, true);
	free(e.ms);
	buf_free(&e.keys);
	return rc;
}

static int body_parsed(const char *api_version, const char *kind,
		       const struct pb_msg *m, const struct json_doc *d,
		       struct buf *out, char *err, size_t errlen);

/* json[0, len) as m: the message alone, or (api_version not NULL) a
 * whole body. */
static int encode_json(const char *api_version, const char *kind,
		       const struct pb_msg *m, const char *json, size_t len,
		       struct buf *out, char *err, size_t errlen)
{
	struct json_doc d = JSON_DOC_INIT;
	int rc;

	if (err && errlen)
		*err = '\0';
	rc = parse(&d, json, len, m->name, err, errlen);
	if (!rc)
		rc = api_version ? body_parsed(api_version, kind, m, &d, out,
					       err, errlen) :
				   encode_parsed(m, &d, out, err, errlen);
	json_doc_free(&d);
	return rc;
}

int pb_encode_msg(const struct pb_msg *m, const char *json, size_t len,
		  struct buf *out, char *err, size_t errlen)
{
	return encode_json(NULL, NULL, m, json, len, out, err, errlen);
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

/* pb_encode_body() on a document already tokenized. */
static int body_parsed(const char *api_version, const char *kind,
		       const struct pb_msg *m, const struct json_doc *d,
		       struct buf *out, char *err, size_t errlen)
{
	struct buf raw = BUF_INIT;
	int rc = encode_parsed(m, d, &raw, err, errlen);

	if (!rc && pb_encode_envelope(api_version, kind, raw.p ? raw.p : "",
				      raw.len, out))
		rc = -ENOMEM;
	buf_free(&raw);
	return rc;
}

int pb_encode_body(const char *api_version, const char *kind,
		   const struct pb_msg *m, const char *json, size_t len,
		   struct buf *out, char *err, size_t errlen)
{
	return encode_json(api_version, kind, m, json, len, out, err, errlen);
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
	/* discovery: /api's APIVersions and the core group's
	 * APIResourceList carry no apiVersion in JSON, the others "v1" */
	if (!*api_version || !strcmp(api_version, "v1")) {
		static const struct {
			const char *kind;
			const struct pb_msg *m;
		} disc[] = {
			{ "APIVersions", &pb_api_versions },
			{ "APIGroupList", &pb_api_group_list },
			{ "APIGroup", &pb_api_group },
			{ "APIResourceList", &pb_api_resource_list },
		};
		for (size_t i = 0; i < sizeof(disc) / sizeof(disc[0]); i++)
			if (!strcmp(kind, disc[i].kind))
				return disc[i].m;
	}
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

/* The top-level string member key of the document's object, decoded
 * into out ("" when absent or not a plain string). */
static int top_string(struct pb_enc *e, const char *key, char *out, size_t cap)
{
	size_t first, n;
	int rc;

	*out = '\0';
	if ((rc = collect(e, 0, &first, &n)))
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
	struct json_doc d = JSON_DOC_INIT;
	struct pb_enc e = {
		.out = out, .err = err, .errlen = errlen, .doc = &d
	};
	char av[128], kind[128];
	struct pb_list l;
	const struct pb_msg *m;
	int rc;

	if (err && errlen)
		*err = '\0';
	if ((rc = parse(&d, json, len, "document", err, errlen)))
		goto out;
	rc = top_string(&e, "apiVersion", av, sizeof(av));
	if (!rc)
		rc = top_string(&e, "kind", kind, sizeof(kind));
	free(e.ms);
	if (rc)
		goto out;
	if (!(m = pb_encode_find(av, kind, &l))) {
		if (err && errlen)
			snprintf(
				err, errlen,
				"no protobuf message for kind \"%s\" of \"%s\"",
				kind, av);
		rc = -ENOENT;
		goto out;
	}
	rc = body_parsed(av, kind, m, &d, out, err, errlen);
out:
	json_doc_free(&d);
	return rc;
}
