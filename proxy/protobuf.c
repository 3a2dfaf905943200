/*
 * protobuf: Accept negotiation for protobuf, and the framing of the
 * cache's protobuf answers around kept object encodings (see
 * protobuf.h).
 */
#include "proxy/protobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/json.h"
#include "cache/pb_encode.h"
#include "cache/pb_kinds.h"
#include "cache/pb_schema_meta.h"
#include "cache/store.h"
#include "config/alloc.h"

/* ---- negotiation ---- */

/* Entries ranked on the stack, by Go's insertion sort; a header with
 * more is ranked in memory of its own (a stable merge sort). */
#define MAX_CLAUSES 32

struct clause {
	const char *p; /* the entry, spaces included */
	size_t n;
	double q;
	bool wild_type, wild_sub;
};

static bool space(char c)
{
	return c == ' ' || c == '\t';
}

/* The value of parameter name in entry [p, p+n), into v; false when
 * absent. Names are matched without case, as the apiserver reads them. */
static bool param(const char *p, size_t n, const char *name, char *v,
		  size_t vlen)
{
	size_t nl = strlen(name);
	const char *end = p + n;
	for (const char *s = memchr(p, ';', n); s;
	     s = s + 1 < end ? memchr(s + 1, ';', (size_t)(end - s - 1)) :
			       NULL) {
		const char *k = s + 1;
		while (k < end && space(*k))
			k++;
		if ((size_t)(end - k) <= nl || strncasecmp(k, name, nl) ||
		    k[nl] != '=')
			continue;
		const char *val = k + nl + 1, *ve = val;
		while (ve < end && *ve != ';')
			ve++;
		while (ve > val && space(ve[-1]))
			ve--;
		size_t l = (size_t)(ve - val);
		if (l >= vlen)
			l = vlen - 1;
		memcpy(v, val, l);
		v[l] = '\0';
		return true;
	}
	return false;
}

/* Whether the entry's type (parameters and spaces aside) is t. */
static bool type_is(const struct clause *c, const char *t)
{
	const char *s = c->p, *end = c->p + c->n;
	while (s < end && space(*s))
		s++;
	const char *e = s;
	while (e < end && *e != ';' && !space(*e))
		e++;
	size_t tl = strlen(t);
	return (size_t)(e - s) == tl && !strncasecmp(s, t, tl);
}

/* The apiserver's ranking (its Accept parser's "less"): a higher q
 * first, or else a concrete type before a wildcard one, a concrete
 * subtype before a wildcard one. Not an ordering on q alone: a concrete
 * type with a lower q still goes before * / * (Go's insertion sort, used
 * for a short list, applies it pairwise, as here). */
static bool ranks_before(const struct clause *a, const struct clause *b)
{
	if (a->q > b->q)
		return true;
	if (!a->wild_type && b->wild_type)
		return true;
	return !a->wild_sub && b->wild_sub;
}

/* The entries of accept that are media ranges, at most max of them, in
 * header order. */
static size_t parse_clauses(const char *accept, struct clause *cl, size_t max)
{
	size_t n = 0;
	for (const char *p = accept; *p && n < max;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct clause c = { .p = p, .n = len, .q = 1 };
		const char *s = p;
		while (s < p + len && space(*s))
			s++;
		const char *e = s;
		while (e < p + len && *e != ';' && !space(*e))
			e++;
		const char *slash = memchr(s, '/', (size_t)(e - s));
		p += len + (end ? 1 : 0);
		if (e - s == 1 && *s == '*') { /* "*" is * / * */
			c.wild_type = c.wild_sub = true;
		} else if (slash && slash > s && slash + 1 < e) {
			c.wild_type = slash - s == 1 && *s == '*';
			c.wild_sub = e - slash == 2 && slash[1] == '*';
		} else {
			continue; /* not a media range */
		}
		char qv[32];
		if (param(c.p, c.n, "q", qv, sizeof(qv))) {
			char *qe;
			c.q = strtod(qv, &qe);
			if (qe == qv || *qe)
				c.q = 0;
		}
		cl[n++] = c;
	}
	return n;
}

/* Rank cl[0, n) as the apiserver does: Go's insertion sort (equal
 * ranks stay in header order) for up to MAX_CLAUSES, a stable merge
 * sort with the same comparison, through tmp (n entries), for more: no
 * entry is left out, and the work stays n log n however long the
 * header. (Go sorts more than 12 entries otherwise, unstably; no client
 * sends so many.) */
static void rank_clauses(struct clause *cl, size_t n, struct clause *tmp)
{
	if (n <= MAX_CLAUSES) {
		for (size_t k = 1; k < n; k++) {
			struct clause c = cl[k];
			size_t i = k;
			while (i > 0 && ranks_before(&c, &cl[i - 1])) {
				cl[i] = cl[i - 1];
				i--;
			}
			cl[i] = c;
		}
		return;
	}
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				tmp[k++] = ranks_before(&cl[b], &cl[a]) ?
						   cl[b++] :
						   cl[a++];
			while (a < mid)
				tmp[k++] = cl[a++];
			while (b < hi)
				tmp[k++] = cl[b++];
		}
		memcpy(cl, tmp, n * sizeof(*cl));
	}
}

/* A conversion (as=) the apiserver makes for this entry: Table, or the
 * metadata forms, of meta.k8s.io v1 or v1beta1. Returns 0 for none, 1
 * Table, 2 metadata, -1 one it does not make. */
static int conversion(const struct clause *c, const char **version)
{
	char as[64], g[64], v[64];
	if (!param(c->p, c->n, "as", as, sizeof(as)))
		return 0;
	if (!param(c->p, c->n, "g", g, sizeof(g)) || strcmp(g, "meta.k8s.io") ||
	    !param(c->p, c->n, "v", v, sizeof(v)) ||
	    (strcmp(v, "v1") && strcmp(v, "v1beta1")))
		return -1;
	*version = strcmp(v, "v1") ? "v1beta1" : "v1";
	if (!strcmp(as, "Table"))
		return 1;
	if (!strcmp(as, "PartialObjectMetadata") ||
	    !strcmp(as, "PartialObjectMetadataList"))
		return 2;
	return -1;
}

/* The first entry of the ranked cl[0, n) the server can produce
 * decides (see proxy_pb_negotiate()). */
static enum proxy_pb_form decide(const struct clause *cl, size_t n, bool typed,
				 const char **meta_version)
{
	const char *ver = "v1";
	bool wanted = false; /* a protobuf entry passed over */
	for (size_t i = 0; i < n; i++) {
		const struct clause *c = &cl[i];
		char st[32];
		if (c->wild_type && c->wild_sub)
			return PROXY_PB_NONE; /* JSON, the first it produces */
		if (type_is(c, "application/json") ||
		    type_is(c, "application/yaml") ||
		    (type_is(c, "application/*"))) {
			if (conversion(c, &ver) < 0)
				continue;
			return PROXY_PB_NONE;
		}
		if (!type_is(c, PROXY_PB_MEDIA))
			continue;
		/* a stream other than watch is not one it has */
		if (param(c->p, c->n, "stream", st, sizeof(st)) && *st &&
		    strcmp(st, "watch"))
			continue;
		int conv = conversion(c, &ver);
		if (conv == 2) {
			*meta_version = ver;
			return PROXY_PB_METADATA;
		}
		if (conv) /* a Table has no protobuf form */
			continue;
		if (!typed) {
			wanted = true;
			continue;
		}
		return PROXY_PB_OBJECT;
	}
	return wanted ? PROXY_PB_REFUSED : PROXY_PB_NONE;
}

enum proxy_pb_form proxy_pb_negotiate(const char *accept, bool typed,
				      const char **meta_version)
{
	struct clause stack[MAX_CLAUSES], *cl = stack, *heap = NULL;
	*meta_version = "v1";
	if (!accept || !*accept)
		return PROXY_PB_NONE;
	/* every entry counts, however many: the one past a bound may be
	 * the fallback that decides */
	size_t max = 1;
	for (const char *p = accept; (p = strchr(p, ',')); p++)
		max++;
	if (max > MAX_CLAUSES) {
		heap = xmalloc(2 * max * sizeof(*heap));
		if (heap)
			cl = heap;
		else /* out of memory: the first ones only */
			max = MAX_CLAUSES;
	}
	size_t n = parse_clauses(accept, cl, max);
	rank_clauses(cl, n, heap ? heap + max : NULL);
	enum proxy_pb_form form = decide(cl, n, typed, meta_version);
	free(heap);
	return form;
}

/* ---- framing ---- */

int proxy_pb_object_head(struct buf *out, const char *api_version,
			 const char *kind, size_t raw_len)
{
	struct buf tm = BUF_INIT;
	int r = pb_put_bytes(&tm, 1, api_version, strlen(api_version));
	if (!r)
		r = pb_put_bytes(&tm, 2, kind, strlen(kind));
	if (!r)
		r = buf_add(out, PB_MAGIC, PB_MAGIC_LEN);
	if (!r)
		r = pb_put_bytes(out, 1, tm.p, tm.len);
	if (!r)
		r = pb_put_tag(out, 2, 2);
	if (!r)
		r = pb_put_varint(out, raw_len);
	buf_free(&tm);
	return r ? -ENOMEM : 0;
}

size_t proxy_pb_item_len(size_t n)
{
	return 1 + pb_varint_len(n) + n;
}

size_t proxy_pb_item_prefix(unsigned char *p, size_t n)
{
	size_t k = 0;
	p[k++] = 2 << 3 | 2; /* field 2, length-delimited */
	uint64_t v = n;
	while (v >= 0x80) {
		p[k++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[k++] = (unsigned char)v;
	return k;
}

int proxy_pb_list_head(struct buf *head, const char *api_version,
		       const char *list_kind, const void *listmeta,
		       size_t listmeta_len, size_t items_len)
{
	size_t list_len =
		1 + pb_varint_len(listmeta_len) + listmeta_len + items_len;
	int r = proxy_pb_object_head(head, api_version, list_kind, list_len);
	if (!r)
		r = pb_put_bytes(head, 1, listmeta, listmeta_len);
	return r ? -ENOMEM : 0;
}

int proxy_pb_watch_frame(struct buf *out, const char *type, const void *body,
			 size_t n)
{
	return pb_encode_watch_frame(type, body, n, out);
}

int proxy_pb_listmeta(struct buf *out, const char *json, size_t len)
{
	char err[128];
	int r = pb_encode_msg(&pb_list_meta, json, len, out, err, sizeof(err));
	return r == -ENOENT ? -EINVAL : r;
}

/* The body of the object json[0, len) of message m: its raw message in
 * the envelope of its own kind and apiVersion. */
static int json_body(struct buf *out, const struct pb_msg *m, const char *apiv,
		     const char *kind, const char *json, size_t len)
{
	struct buf raw = BUF_INIT;
	char err[160];
	int r = pb_encode_msg(m, json, len, &raw, err, sizeof(err));
	if (!r && !buf_ok(&raw))
		r = -ENOMEM;
	if (!r)
		r = proxy_pb_object_head(out, apiv, kind, raw.len);
	if (!r && raw.len)
		r = buf_add(out, raw.p, raw.len) ? -ENOMEM : 0;
	if (!r)
		r = buf_add(out, PROXY_PB_TAIL, PROXY_PB_TAIL_LEN) ? -ENOMEM :
								     0;
	buf_free(&raw);
	return r;
}

int proxy_pb_status(struct buf *out, const char *json, size_t len)
{
	int r = json_body(out, &pb_status, "v1", "Status", json, len);
	return r == -ENOENT ? -EINVAL : r;
}

int proxy_pb_metadata(struct buf *out, const char *json, size_t len,
		      bool raw_only)
{
	char err[160];
	if (raw_only)
		return pb_encode_msg(&pb_partial_object_metadata, json, len,
				     out, err, sizeof(err));
	/* apiVersion is meta.k8s.io/v1 or v1beta1, as the JSON says */
	const char *v = strstr(json, "\"apiVersion\":\"meta.k8s.io/v1beta1\"");
	return json_body(out, &pb_partial_object_metadata,
			 v && (size_t)(v - json) < len ? "meta.k8s.io/v1beta1" :
							 "meta.k8s.io/v1",
			 "PartialObjectMetadata", json, len);
}

int proxy_pb_frame_obj(struct buf *out, const char *type, struct cache_obj *o)
{
	const unsigned char *raw;
	size_t n;
	char apiv[CACHE_KIND_API_VERSION_MAX];
	int r = cache_obj_pb(o, &raw, &n, NULL, 0);
	if (r)
		return r;
	struct buf body = BUF_INIT;
	cache_kind_api_version(o->kind, apiv, sizeof(apiv));
	r = proxy_pb_object_head(&body, apiv, o->kind->kind, n);
	if (!r)
		r = buf_add(&body, raw, n);
	if (!r)
		r = buf_add(&body, PROXY_PB_TAIL, PROXY_PB_TAIL_LEN);
	if (!r)
		r = proxy_pb_watch_frame(out, type, body.p, body.len);
	buf_free(&body);
	return r ? (r < 0 ? r : -ENOMEM) : 0;
}

int proxy_pb_frame_json(struct buf *out, const char *line, size_t len)
{
	struct json_doc d = JSON_DOC_INIT;
	struct buf body = BUF_INIT;
	char type[32], apiv[CACHE_KIND_API_VERSION_MAX], kind[128];
	int r = -EINVAL;
	if (json_parse(&d, line, len, NULL, 0))
		goto out;
	int t = json_path(&d, 0, "type"), o = json_path(&d, 0, "object");
	if (t < 0 || o < 0 || json_type(&d, t) != JSMN_STRING ||
	    json_type(&d, o) != JSMN_OBJECT)
		goto out;
	int av = json_path(&d, o, "apiVersion"), k = json_path(&d, o, "kind");
	if (av < 0 || k < 0 || json_type(&d, av) != JSMN_STRING ||
	    json_type(&d, k) != JSMN_STRING)
		goto out;
	json_str(&d, t, type, sizeof(type));
	json_str(&d, av, apiv, sizeof(apiv));
	json_str(&d, k, kind, sizeof(kind));
	size_t os, oe;
	json_span(&d, o, &os, &oe);
	const struct pb_msg *m;
	if (!strcmp(kind, "Status") && !strcmp(apiv, "v1"))
		m = &pb_status;
	else if (!strcmp(kind, "PartialObjectMetadata"))
		m = &pb_partial_object_metadata;
	else
		m = pb_kinds_find(apiv, kind);
	r = m ? json_body(&body, m, apiv, kind, line + os, oe - os) : -ENOSYS;
	if (!r)
		r = proxy_pb_watch_frame(out, type, body.p, body.len) ?
			    -ENOMEM :
			    0;
out:
	buf_free(&body);
	json_doc_free(&d);
	return r;
}

int proxy_pb_event_frame(struct cache_event *ev, const unsigned char **p,
			 size_t *len)
{
	struct cache_blob *b = __atomic_load_n(&ev->twin, __ATOMIC_ACQUIRE);
	if (!b) {
		struct buf f = BUF_INIT;
		int r = proxy_pb_frame_obj(
			&f, cache_history_ev_type_name(ev->type), ev->obj);
		if (r == -ENOMEM || (!r && !buf_ok(&f))) {
			buf_free(&f);
			return -ENOMEM;
		}
		b = xmalloc(sizeof(*b) + (r ? 1 : f.len));
		if (!b) {
			buf_free(&f);
			return -ENOMEM;
		}
		b->err = r;
		b->len = r ? 0 : f.len;
		if (!r)
			memcpy(b->p, f.p, f.len);
		buf_free(&f);
		b = cache_blob_publish(&ev->twin, b);
	}
	if (b->err)
		return b->err;
	*p = b->p;
	*len = b->len;
	return 0;
}

int proxy_pb_check_watch(struct cache_resource *r)
{
	if (__atomic_load_n(&r->stats.pb_watch_failed, __ATOMIC_RELAXED))
		return -ENOENT;
	struct cache_snap *snap = cache_store_snap(r->store);
	struct cache_iter it;
	struct cache_obj *o;
	int e = 0;
	cache_store_iter_seek(&it, snap, "", "");
	while (!e && (o = cache_store_iter_next(&it))) {
		const unsigned char *raw;
		size_t len;
		e = cache_obj_pb(o, &raw, &len, NULL, 0);
	}
	cache_store_snap_put(snap);
	return e;
}

int proxy_pb_pass_reason(int err)
{
	return err == -ENOENT ? 0 : err == -ENOSYS ? 1 : 2;
}

const char *proxy_pb_pass_reason_name(int why)
{
	static const char *const names[PROXY_PB_PASS_NREASONS] = {
		"unknown_field", "no_schema", "invalid"
	};
	return why >= 0 && why < PROXY_PB_PASS_NREASONS ? names[why] :
							  "invalid";
}
