/*
 * fake_proto: decode Kubernetes protobuf bodies into JSON (see
 * fake_proto.h).
 *
 * The messages are described by the shared schema tables
 * (cache/pb_schema.h), one row per field in Go struct order, which is the
 * order the apiserver's JSON uses. Decoding a message first collects
 * members as they come on the wire, then copies them out in table order.
 * A non-pointer scalar on the wire with its zero value is omitted from
 * the JSON, as Go's `omitempty` omits it; a pointer (PB_PTR) one is kept.
 */
#include "fake_proto.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/pb_kinds.h"
#include "config/buf.h"

/* --- wire format ---------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
};

/* How deep messages may nest: a CRD's schema nests itself (properties,
 * items, not...), and a body is untrusted; real schemas stay far below. */
#define MAX_DEPTH 128

struct dctx {
	char *err;
	size_t errlen;
	int depth;
};

static bool fail(struct dctx *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct dctx *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
	return false;
}

static bool rd_varint(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* A length-delimited value: its bytes as a sub-reader. */
static bool rd_bytes(struct rd *r, struct rd *out)
{
	uint64_t n;
	if (!rd_varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	out->p = r->p;
	out->end = r->p + n;
	r->p += n;
	return true;
}

/* Skip one value of wire type wt (groups, unused by Kubernetes, are
 * refused). */
static bool rd_skip(struct rd *r, unsigned wt)
{
	uint64_t v;
	struct rd sub;
	switch (wt) {
	case 0:
		return rd_varint(r, &v);
	case 1:
	case 5: {
		size_t n = wt == 1 ? 8 : 4;
		if ((size_t)(r->end - r->p) < n)
			return false;
		r->p += n;
		return true;
	}
	case 2:
		return rd_bytes(r, &sub);
	default:
		return false;
	}
}

/* Read the next tag; false at the end (or on a malformed tag, which
 * sets *bad). */
static bool rd_tag(struct rd *r, unsigned *num, unsigned *wt, bool *bad)
{
	uint64_t t;
	if (r->p >= r->end)
		return false;
	if (!rd_varint(r, &t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) {
		*bad = true;
		return false;
	}
	*num = (unsigned)(t >> 3);
	*wt = (unsigned)(t & 7);
	return true;
}

/* The string field 1 of a small message (Quantity), "" when absent. */
static bool first_string(struct rd m, struct rd *s)
{
	unsigned num, wt;
	bool bad = false;
	s->p = s->end = m.p;
	while (rd_tag(&m, &num, &wt, &bad)) {
		if (num == 1 && wt == 2) {
			if (!rd_bytes(&m, s))
				return false;
		} else if (!rd_skip(&m, wt)) {
			return false;
		}
	}
	return !bad;
}

static void add_base64(struct buf *b, const uint8_t *p, size_t n)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				 "tuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		buf_addc(b, al[(v >> 18) & 63]);
		buf_addc(b, al[(v >> 12) & 63]);
		buf_addc(b, i + 1 < n ? al[(v >> 6) & 63] : '=');
		buf_addc(b, i + 2 < n ? al[v & 63] : '=');
	}
}

static json_t *json_bytes(const uint8_t *p, size_t n)
{
	struct buf b = BUF_INIT;
	json_t *j;
	add_base64(&b, p, n);
	j = buf_ok(&b) ? json_stringn(b.p ? b.p : "", b.len) : NULL;
	buf_free(&b);
	return j;
}

/* meta/v1 Time (whole seconds: the apiserver drops the nanos too) or,
 * with micro, MicroTime (6 decimals). The zero time travels as an empty
 * message and is null in JSON; *zero says so. */
static json_t *json_time(struct dctx *d, struct rd m, bool micro, bool *zero)
{
	uint64_t secs = 0, nanos = 0, v;
	unsigned num, wt;
	bool bad = false;
	char out[48];
	struct tm tm;
	/* Go's zero Time is written as an empty message; a message that
	 * carries fields, even {0, 0}, is a time: the epoch. */
	bool empty = m.p == m.end;

	while (rd_tag(&m, &num, &wt, &bad)) {
		if ((num == 1 || num == 2) && wt == 0) {
			if (!rd_varint(&m, num == 1 ? &secs : &nanos))
				return NULL;
		} else if (wt == 0 ? !rd_varint(&m, &v) : !rd_skip(&m, wt)) {
			return NULL;
		}
	}
	if (bad)
		return NULL;
	*zero = empty;
	if (empty)
		return json_null();
	time_t t = (time_t)(int64_t)secs;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 1 ||
	    tm.tm_year + 1900 > 9999 || nanos >= 1000000000u) {
		fail(d, "time out of range: %lld.%09llu",
		     (long long)(int64_t)secs, (unsigned long long)nanos);
		return NULL;
	}
	/* the year in four digits, zero-padded, as Go's RFC 3339 writes it
	 * (strftime's %Y does not pad years before 1000) */
	int n = snprintf(out, sizeof(out), "%04d-%02d-%02dT%02d:%02d:%02d",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (!micro)
		snprintf(out + n, sizeof(out) - (size_t)n, "Z");
	else
		snprintf(out + n, sizeof(out) - (size_t)n, ".%06uZ",
			 (unsigned)(nanos / 1000));
	return json_string(out);
}

/* A double (wire type 1, little-endian IEEE 754): an integer when it is
 * whole, as Go's encoding/json writes 5 for 5.0. */
static json_t *json_double(uint64_t bits)
{
	double x;
	memcpy(&x, &bits, sizeof(x));
	/* the range first: converting a double outside int64's is undefined */
	if (x > -9007199254740992.0 && x < 9007199254740992.0 &&
	    x == (double)(int64_t)x)
		return json_integer((json_int_t)x);
	return json_real(x);
}

/* {1 raw}: JSON text (RawExtension, apiextensions JSON, FieldsV1); an
 * empty or absent raw is null. */
static json_t *json_raw(struct rd m, bool *ok)
{
	struct rd s;
	*ok = first_string(m, &s);
	if (!*ok)
		return NULL;
	if (s.p == s.end)
		return json_null();
	json_t *v = json_loadb((const char *)s.p, (size_t)(s.end - s.p),
			       JSON_DECODE_ANY, NULL);
	*ok = v != NULL;
	return v;
}

static json_t *json_intstr(struct rd m)
{
	uint64_t type = 0, iv = 0;
	struct rd s = { NULL, NULL };
	unsigned num, wt;
	bool bad = false;

	while (rd_tag(&m, &num, &wt, &bad)) {
		if ((num == 1 || num == 2) && wt == 0) {
			if (!rd_varint(&m, num == 1 ? &type : &iv))
				return NULL;
		} else if (num == 3 && wt == 2) {
			if (!rd_bytes(&m, &s))
				return NULL;
		} else if (!rd_skip(&m, wt)) {
			return NULL;
		}
	}
	if (bad)
		return NULL;
	if (type == 1)
		return json_stringn(s.p ? (const char *)s.p : "",
				    s.p ? (size_t)(s.end - s.p) : 0);
	return json_integer((int32_t)iv);
}

static json_t *decode_msg(struct dctx *d, const struct pb_msg *m, struct rd r);

/* One map entry {1 key, 2 value} into the object at f->json of into. */
static bool map_entry(struct dctx *d, const struct pb_field *f, struct rd e,
		      json_t *into)
{
	struct rd k = { e.p, e.p }, v = { e.p, e.p };
	unsigned num, wt;
	bool bad = false;
	json_t *val, *map;

	while (rd_tag(&e, &num, &wt, &bad)) {
		if ((num == 1 || num == 2) && wt == 2) {
			if (!rd_bytes(&e, num == 1 ? &k : &v))
				return fail(d, "%s: truncated map entry",
					    f->json);
		} else if (!rd_skip(&e, wt)) {
			return fail(d, "%s: malformed map entry", f->json);
		}
	}
	if (bad)
		return fail(d, "%s: malformed map entry", f->json);
	if (f->kind == PB_MAP_BYTES) {
		val = json_bytes(v.p, (size_t)(v.end - v.p));
	} else if (f->kind == PB_MAP_MSG) {
		if (!(val = decode_msg(d, f->msg, v)))
			return false;
	} else if (f->kind == PB_MAP_TIME) {
		bool zero;
		if (!(val = json_time(d, v, false, &zero)))
			return *d->err ? false :
					 fail(d, "%s: malformed time", f->json);
	} else {
		if (f->kind == PB_MAP_QTY && !first_string(v, &v))
			return fail(d, "%s: malformed quantity", f->json);
		val = json_stringn((const char *)v.p, (size_t)(v.end - v.p));
	}
	char *key =
		val ? strndup((const char *)k.p, (size_t)(k.end - k.p)) : NULL;
	if (!val || !key || memchr(k.p, 0, (size_t)(k.end - k.p))) {
		json_decref(val);
		free(key);
		return fail(d, "%s: invalid UTF-8 or NUL in a map entry",
			    f->json);
	}
	if (!json_is_object(map = json_object_get(into, f->json))) {
		map = json_object();
		json_object_set_new(into, f->json, map);
	}
	int rc = json_object_set_new(map, key, val);
	free(key);
	return rc == 0 || fail(d, "%s: invalid map key", f->json);
}

/* Store v (a new reference; NULL means "omit") under f in into. */
static void put(json_t *into, const struct pb_field *f, json_t *v, bool zero)
{
	if (!v)
		return;
	if (f->flags & PB_REP) {
		json_t *a = json_object_get(into, f->json);
		if (!json_is_array(a)) {
			a = json_array();
			json_object_set_new(into, f->json, a);
		}
		json_array_append_new(a, v);
	} else if (zero && !(f->flags & (PB_PTR | PB_KEEP))) {
		json_decref(v);
	} else {
		json_object_set_new(into, f->json, v);
	}
}

static bool scalar(const struct pb_field *f, uint64_t v, json_t *into)
{
	if (f->kind == PB_BOOL)
		put(into, f, json_boolean(v != 0), v == 0);
	else
		put(into, f, json_integer((json_int_t)(int64_t)v), v == 0);
	return true;
}

/* The object v of message m, opened by its kind and apiVersion (PB_TYPED);
 * steals v. */
static json_t *typed(const struct pb_msg *m, json_t *v)
{
	json_t *out =
		json_pack("{s:s,s:s}", "kind", m->name, "apiVersion", "v1");
	const char *k;
	json_t *x;

	if (out)
		json_object_foreach(v, k, x) json_object_set(out, k, x);
	json_decref(v);
	return out;
}

/* Decode the fields of message m from r into the object into (in wire
 * order; the caller orders them). */
static bool decode_fields(struct dctx *d, const struct pb_msg *m, struct rd r,
			  json_t *into)
{
	unsigned num, wt;
	bool bad = false;

	while (rd_tag(&r, &num, &wt, &bad)) {
		const struct pb_field *f = m->f;
		while (f->num && f->num != num)
			f++;
		if (!f->num) { /* unknown: skipped */
			if (!rd_skip(&r, wt))
				return fail(d,
					    "%s: malformed field %u (wire "
					    "type %u)",
					    m->name, num, wt);
			continue;
		}
		if (f->kind == PB_BOOL || f->kind == PB_INT) {
			uint64_t v;
			if (wt == 0) {
				if (!rd_varint(&r, &v))
					return fail(d,
						    "%s.%s: truncated varint",
						    m->name, f->json);
				scalar(f, v, into);
				continue;
			}
			struct rd pk; /* packed repeated */
			if (wt != 2 || !(f->flags & PB_REP) ||
			    !rd_bytes(&r, &pk))
				return fail(d,
					    "%s.%s: wire type %u, want a "
					    "varint",
					    m->name, f->json, wt);
			while (pk.p < pk.end)
				if (!rd_varint(&pk, &v) || !scalar(f, v, into))
					return fail(d,
						    "%s.%s: malformed packed "
						    "varints",
						    m->name, f->json);
			continue;
		}
		if (f->kind == PB_DOUBLE) {
			uint64_t bits = 0;
			if (wt != 1 || r.end - r.p < 8)
				return fail(
					d, "%s.%s: wire type %u, want a double",
					m->name, f->json, wt);
			for (int i = 7; i >= 0; i--)
				bits = bits << 8 | r.p[i];
			r.p += 8;
			put(into, f, json_double(bits), bits == 0);
			continue;
		}
		struct rd s;
		if (wt != 2 || !rd_bytes(&r, &s))
			return fail(d,
				    "%s.%s: wire type %u, want "
				    "length-delimited",
				    m->name, f->json, wt);
		size_t n = (size_t)(s.end - s.p);
		json_t *v = NULL;
		bool ok = true, zero = f->kind == PB_STR && n == 0;
		switch (f->kind) {
		case PB_STR:
			v = json_stringn((const char *)s.p, n);
			ok = v != NULL;
			break;
		case PB_BYTES:
			v = json_bytes(s.p, n);
			ok = v != NULL;
			break;
		case PB_MSG:
			v = decode_msg(d, f->msg, s);
			if (!v)
				return false;
			if (f->flags & PB_TYPED)
				v = typed(f->msg, v);
			break;
		case PB_INLINE:
			if (!decode_fields(d, f->msg, s, into))
				return false;
			continue;
		case PB_MAP_STR:
		case PB_MAP_BYTES:
		case PB_MAP_QTY:
		case PB_MAP_MSG:
		case PB_MAP_TIME:
			if (!map_entry(d, f, s, into))
				return false;
			continue;
		case PB_TIME:
		case PB_MICROTIME:
			v = json_time(d, s, f->kind == PB_MICROTIME, &zero);
			ok = v != NULL;
			break;
		case PB_RAW:
			v = json_raw(s, &ok);
			break;
		case PB_DOUBLE:
			break;
		case PB_QTY:
			ok = first_string(s, &s) &&
			     (v = json_stringn((const char *)s.p,
					       (size_t)(s.end - s.p)));
			break;
		case PB_INTSTR:
			ok = (v = json_intstr(s)) != NULL;
			break;
		case PB_FIELDSV1:
			v = json_raw(s, &ok);
			break;
		}
		if (!ok) {
			json_decref(v);
			if (!*d->err)
				fail(d,
				     "%s.%s: malformed value (or invalid "
				     "UTF-8)",
				     m->name, f->json);
			return false;
		}
		/* A message present on the wire is kept even when empty:
		 * Go writes its struct members (resources: {}) always. */
		put(into, f, v, zero);
	}
	return !bad || fail(d, "%s: malformed tag", m->name);
}

/* The JSON of a PB_KEEP field absent from the wire (see pb_schema.h). */
static json_t *zero_value(struct dctx *d, const struct pb_field *f)
{
	static const uint8_t none;
	if (f->flags & (PB_REP | PB_PTR))
		return json_null();
	switch (f->kind) {
	case PB_STR:
		return json_string("");
	case PB_INT:
	case PB_INTSTR:
	case PB_DOUBLE:
		return json_integer(0);
	case PB_BOOL:
		return json_false();
	case PB_QTY:
		return json_string("0");
	case PB_MSG:
		return decode_msg(d, f->msg, (struct rd){ &none, &none });
	default: /* bytes, maps, times, raw JSON */
		return json_null();
	}
}

/* Copy the members of from into to in the table's order, the absent
 * PB_KEEP ones as their zero value. */
static bool order(struct dctx *d, const struct pb_msg *m, json_t *from,
		  json_t *to)
{
	for (const struct pb_field *f = m->f; f->num; f++) {
		json_t *v;
		if (f->kind == PB_INLINE) {
			if (!order(d, f->msg, from, to))
				return false;
		} else if ((v = json_object_get(from, f->json))) {
			json_object_set(to, f->json, v);
		} else if (f->flags & PB_KEEP) {
			if (!(v = zero_value(d, f)))
				return false;
			json_object_set_new(to, f->json, v);
		}
	}
	return true;
}

/* The JSON of a message of another form (pb_schema.h's enum pb_form),
 * from the object of its fields; steals obj. */
static json_t *reshape(const struct pb_msg *m, json_t *obj)
{
	json_t *pick = NULL, *a;

	switch (m->form) {
	case PB_FORM_LIST:
		pick = json_object_get(obj, "items");
		break;
	case PB_FORM_OR_ARRAY:
		a = json_object_get(obj, "jSONSchemas");
		pick = json_array_size(a) ? a : json_object_get(obj, "schema");
		break;
	case PB_FORM_OR_BOOL:
		pick = json_object_get(obj, "schema");
		if (json_is_null(pick) || !pick)
			pick = json_object_get(obj, "allows");
		break;
	case PB_FORM_OR_STRS:
		a = json_object_get(obj, "property");
		pick = json_array_size(a) ? a : json_object_get(obj, "schema");
		break;
	default:
		return obj;
	}
	pick = pick ? json_incref(pick) : json_null();
	json_decref(obj);
	return pick;
}

static json_t *decode_msg(struct dctx *d, const struct pb_msg *m, struct rd r)
{
	json_t *tmp, *out;
	bool ok;

	if (d->depth >= MAX_DEPTH) {
		fail(d, "%s: messages nest deeper than %d", m->name, MAX_DEPTH);
		return NULL;
	}
	d->depth++;
	tmp = json_object();
	ok = decode_fields(d, m, r, tmp);
	d->depth--;
	if (!ok) {
		json_decref(tmp);
		return NULL;
	}
	out = json_object();
	if (!order(d, m, tmp, out)) {
		json_decref(tmp);
		json_decref(out);
		return NULL;
	}
	json_decref(tmp);
	return reshape(m, out);
}

bool fake_proto_knows(const char *api_version, const char *kind)
{
	return pb_kinds_find(api_version, kind) != NULL;
}

/* runtime.Unknown's fields. */
struct unknown {
	struct rd api_version, kind, raw, encoding;
};

static bool parse_unknown(struct dctx *d, struct rd r, struct unknown *u)
{
	unsigned num, wt;
	bool bad = false;

	memset(u, 0, sizeof(*u));
	while (rd_tag(&r, &num, &wt, &bad)) {
		struct rd s, *dst = NULL;
		if (wt != 2) {
			if (!rd_skip(&r, wt))
				return fail(d,
					    "runtime.Unknown: malformed field "
					    "%u",
					    num);
			continue;
		}
		if (!rd_bytes(&r, &s))
			return fail(d,
				    "runtime.Unknown: field %u runs past the "
				    "end",
				    num);
		if (num == 1) { /* TypeMeta {1 apiVersion, 2 kind} */
			unsigned n2, w2;
			bool bad2 = false;
			while (rd_tag(&s, &n2, &w2, &bad2)) {
				struct rd t;
				if (w2 != 2) {
					if (!rd_skip(&s, w2))
						return fail(
							d,
							"TypeMeta: malformed");
					continue;
				}
				if (!rd_bytes(&s, &t))
					return fail(d, "TypeMeta: truncated");
				if (n2 == 1)
					u->api_version = t;
				else if (n2 == 2)
					u->kind = t;
			}
			if (bad2)
				return fail(d, "TypeMeta: malformed tag");
			continue;
		}
		if (num == 2)
			dst = &u->raw;
		else if (num == 3)
			dst = &u->encoding;
		if (dst)
			*dst = s;
	}
	return !bad || fail(d, "runtime.Unknown: malformed tag");
}

json_t *fake_proto_decode(const void *body, size_t len, char *err,
			  size_t errlen)
{
	struct dctx d = { err, errlen, 0 };
	struct rd r = { body, (const uint8_t *)body + len };
	struct unknown u;
	const struct pb_msg *m = NULL;
	char kind[64];

	*err = '\0';
	if (len < 4 || memcmp(body, "k8s\0", 4) != 0) {
		fail(&d, "provided object is not a Kubernetes protobuf message "
			 "(no \"k8s\\x00\" prefix)");
		return NULL;
	}
	r.p += 4;
	if (!parse_unknown(&d, r, &u))
		return NULL;
	if (u.encoding.p && u.encoding.end > u.encoding.p) {
		fail(&d, "unsupported contentEncoding in runtime.Unknown");
		return NULL;
	}
	size_t kn = u.kind.p ? (size_t)(u.kind.end - u.kind.p) : 0;
	snprintf(kind, sizeof(kind), "%.*s", (int)(kn < 63 ? kn : 63),
		 kn ? (const char *)u.kind.p : "");
	char av[128];
	size_t an = u.api_version.p ?
			    (size_t)(u.api_version.end - u.api_version.p) :
			    0;
	snprintf(av, sizeof(av), "%.*s", (int)(an < 127 ? an : 127),
		 an ? (const char *)u.api_version.p : "");
	if (strlen(kind) == kn && strlen(av) == an)
		m = pb_kinds_find(av, kind);
	if (!m) {
		fail(&d,
		     "no protobuf decoding for kind \"%s\" (%s) in the fake "
		     "apiserver",
		     kind, av);
		return NULL;
	}
	struct rd raw = u.raw.p ? u.raw : (struct rd){ r.p, r.p };
	json_t *obj = decode_msg(&d, m, raw);
	if (!obj)
		return NULL;
	/* An empty list has no items on the wire; the apiserver's JSON
	 * says "items":[], not the null of a nil slice. */
	json_t *items = json_object_get(obj, "items");
	if (json_is_null(items) && kn > 4 && strcmp(kind + kn - 4, "List") == 0)
		json_object_set_new(obj, "items", json_array());
	json_t *out = json_pack("{s:s,s:s}", "kind", kind, "apiVersion", av);
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) json_object_set(out, k, v);
	json_decref(obj);
	return out;
}
