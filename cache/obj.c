/*
 * obj: parse one object's JSON into an immutable cache_obj (see obj.h).
 *
 * Layout of the single allocation:
 *   struct cache_obj | field pointers | labels | strings | json bytes
 * Sizes are computed from the token spans first, so the object is
 * allocated once and filled without a second parse.
 */
#include "cache/obj.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "cache/pb_encode.h"
#include "cache/pb_kinds.h"
#include "config/alloc.h"
#include "config/limits.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Drop white space outside strings, in place; returns the new length. */
static size_t compact(char *s, size_t n)
{
	size_t w = 0;
	bool in_str = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\' && i + 1 < n) {
				s[w++] = c;
				c = s[++i];
			} else if (c == '"') {
				in_str = false;
			}
		} else if (c == '"') {
			in_str = true;
		} else if (is_space(c)) {
			continue;
		}
		s[w++] = c;
	}
	s[w] = '\0';
	return w;
}

static int label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cache_label *)a)->key,
		      ((const struct cache_label *)b)->key);
}

/* What we pick out of the token array before sizing the object. */
struct picked {
	int name, ns, uid, rv, created, labels, managed;
	int fields[CACHE_KIND_MAX_FIELDS];
	/* Byte ranges of the input to leave out, in order: the kind and
	 * apiVersion members (written again as a fixed prefix) and
	 * metadata.managedFields when stripping. */
	struct {
		size_t from, to;
	} cut[3];
	int ncut;
};

/* The byte range to remove so that member key k (value k+1) of obj
 * disappears together with one adjoining comma. also (a key, or -1) is
 * cut too: a last member takes the comma after the nearest member that
 * stays, or the two cuts would leave "...,}" when both are last. */
static void member_cut(const struct json_doc *d, int obj, int k, int also,
		       size_t *from, size_t *to)
{
	size_t kb, ke, vb, ve;
	json_span(d, k, &kb, &ke);
	json_span(d, k + 1, &vb, &ve);
	int next = json_next(d, obj, k);
	if (next > 0) {
		size_t nb, ne;
		json_span(d, next, &nb, &ne);
		*from = kb;
		*to = nb;
		return;
	}
	/* Last member: take the comma before it, if any. */
	int prev = -1;
	for (int p = json_first(d, obj); p > 0 && p != k;
	     p = json_next(d, obj, p))
		if (p != also)
			prev = p;
	if (prev > 0) {
		size_t pb, pe;
		json_span(d, prev + 1, &pb, &pe);
		*from = pe;
	} else {
		*from = kb;
	}
	*to = ve;
}

static size_t strsize(const struct json_doc *d, int i)
{
	return i >= 0 ? json_str_len(d, i) + 1 : 1;
}

/* Copy string token i (or "") into the arena at *at. */
static const char *put_str(const struct json_doc *d, int i, char **at)
{
	char *s = *at;
	if (i < 0) {
		*s = '\0';
		*at += 1;
		return s;
	}
	/* the arena has room (strsize()); json_str() says what it wrote,
	 * so the string is scanned once here, not twice */
	int n = json_str(d, i, s, (size_t)-1);
	if (n < 0) { /* not a string: callers pass only strings */
		*s = '\0';
		n = 0;
	}
	*at += (size_t)n + 1;
	return s;
}

/* A field value as text: strings unescaped, primitives as written. */
static size_t field_size(const struct json_doc *d, int i)
{
	if (i < 0)
		return 0;
	if (json_type(d, i) == JSMN_STRING)
		return json_str_len(d, i) + 1;
	if (json_type(d, i) == JSMN_PRIMITIVE)
		return (size_t)(d->tok[i].end - d->tok[i].start) + 1;
	return 0;
}

static const char *put_field(const struct json_doc *d, int i, char **at)
{
	if (i < 0)
		return NULL;
	if (json_type(d, i) == JSMN_STRING)
		return put_str(d, i, at);
	if (json_type(d, i) != JSMN_PRIMITIVE)
		return NULL;
	size_t n;
	const char *raw = json_raw(d, i, &n);
	if (n == 4 && !memcmp(raw, "null", 4))
		return NULL;
	char *s = *at;
	memcpy(s, raw, n);
	s[n] = '\0';
	*at += n + 1;
	return s;
}

const char *cache_obj_reject_name(int why)
{
	static const char *const names[CACHE_REJECT_NREASONS] = {
		[CACHE_REJECT_INVALID] = "invalid",
		[CACHE_REJECT_NAME] = "name",
		[CACHE_REJECT_TOO_LARGE] = "too_large",
		[CACHE_REJECT_DEPTH] = "depth",
		[CACHE_REJECT_KEYS] = "keys",
	};
	return why >= 0 && why < CACHE_REJECT_NREASONS ? names[why] : "";
}

/* A name any kind may have (apimachinery's IsValidPathSegmentName), and
 * no control byte: none of the kinds' own rules allows one. */
static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || (n == 1 && s[0] == '.') ||
	    (n == 2 && !memcmp(s, "..", 2)))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || c == '/' || c == '%')
			return false;
	}
	return true;
}

/* A namespace: a DNS-1123 subdomain. Namespaces are labels (no '.'), but
 * the looser rule is enough for a sound key and costs no real object. */
static bool ns_ok(const char *s, size_t n)
{
	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && ((c != '-' && c != '.') || i == 0 || i == n - 1))
			return false;
	}
	return true;
}

/* Check string token i, unescaped, with ok(). */
static bool key_part_ok(const struct json_doc *d, int i,
			bool (*ok)(const char *, size_t))
{
	size_t n;
	const char *raw = json_raw(d, i, &n);
	if (!json_escaped(d, i))
		return ok(raw, n);
	size_t un = json_str_len(d, i);
	char *tmp = xmalloc(un + 1);
	if (!tmp)
		return false;
	json_str(d, i, tmp, un + 1);
	bool good = ok(tmp, un);
	free(tmp);
	return good;
}

/* escaped_is() once the raw name has a backslash where it parts from
 * name. */
static __attribute__((noinline)) bool
escaped_is_slow(const struct json_doc *d, int k, const char *name, size_t n)
{
	char tmp[128];
	if (n >= sizeof(tmp) || json_str_len(d, k) != n)
		return false;
	json_str(d, k, tmp, sizeof(tmp));
	return !memcmp(tmp, name, n);
}

/*
 * Whether key k is written with an escape and decodes to name[0..n).
 * Clients decode member names: to them "n\u0061me" is "name". Only keys
 * with a backslash pay for the decoding, and only in the objects the
 * cache reads members of.
 */
static inline bool escaped_is(const struct json_doc *d, int k, const char *name,
			      size_t n)
{
	size_t rn;
	const char *raw = json_raw(d, k, &rn);
	/* name has no backslash: up to the raw text's first one, the two
	 * must agree byte for byte, so most keys are told apart at once */
	size_t p = 0;
	while (p < rn && p < n && raw[p] == name[p])
		p++;
	if (p >= rn || raw[p] != '\\')
		return false;
	return escaped_is_slow(d, k, name, n);
}

/* The value of member name in object obj, or -1 when absent, or -2 when
 * the member is named twice, or with an escape: where a client (the last
 * of duplicates wins in Go's, Python's and JavaScript's decoders) and a
 * first-match reader could disagree (docs/JSON.md). */
static int member(const struct json_doc *d, int obj, const char *name)
{
	size_t n = strlen(name);
	int v = -1;
	for (int k = json_first(d, obj); k > 0; k = json_next(d, obj, k)) {
		size_t rn;
		const char *raw = json_raw(d, k, &rn);
		if (rn == n && !memcmp(raw, name, n)) {
			if (v >= 0)
				return -2;
			v = k + 1;
		} else if (escaped_is(d, k, name, n)) {
			return -2;
		}
	}
	return v;
}

/* A name's bit in member_paths()' filter: of its length and its first
 * and last bytes. */
static inline unsigned seg_hash(const char *p, size_t n)
{
	return n ? (unsigned)(n * 7 + (unsigned char)p[0] * 3 +
			      (unsigned char)p[n - 1]) &
			       63 :
		   0;
}

/*
 * The paths at[idx[0..n)] (dotted, relative to obj) resolved together
 * into out[idx[i]], each as member() would read it step by step (-1
 * where a step is absent or not in an object, -2 where a member on the
 * way is named twice or with an escape; a segment of 128 bytes or more
 * is never there), but with
 * one walk over each object on the way for all the paths that go
 * through it: a pod's five spec.* fields were five walks over spec's
 * twenty-odd members. Paths are at most CACHE_KIND_MAX_FIELDS.
 */
static void member_paths(const struct json_doc *d, int obj,
			 const char *const *at, const int *idx, int n, int *out)
{
	struct seg {
		const char *name;
		size_t len;
		int v; /* member()'s answer; -3: not looked for (-1) */
	} u[CACHE_KIND_MAX_FIELDS]; /* the distinct next segments */
	int which[CACHE_KIND_MAX_FIELDS], nu = 0;
	bool is_obj = json_type(d, obj) == JSMN_OBJECT;
	for (int i = 0; i < n; i++) {
		const char *p = at[idx[i]];
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		int j = 0;
		while (j < nu &&
		       !(u[j].len == len && !memcmp(u[j].name, p, len)))
			j++;
		if (j == nu) /* json_path_by() takes no segment this long */
			u[nu++] = (struct seg){ p, len,
						is_obj && len < 128 ? -1 : -3 };
		which[i] = j;
	}
	/* the segments' hashes: most keys have none of them and, without a
	 * backslash, cannot be one of them */
	uint64_t hashes = 0;
	for (int j = 0; j < nu; j++)
		hashes |= (uint64_t)1 << seg_hash(u[j].name, u[j].len);
	/* member() for every segment at once: -2 when named twice or
	 * with an escape */
	for (int k = is_obj ? json_first(d, obj) : -1; k > 0;
	     k = json_next(d, obj, k)) {
		size_t rn;
		const char *raw = json_raw(d, k, &rn);
		/* a key without a backslash can only be the name itself */
		bool esc = json_escaped(d, k);
		if (!esc && !(hashes >> seg_hash(raw, rn) & 1))
			continue;
		for (int j = 0; j < nu; j++) {
			if (u[j].v < -1)
				continue;
			if (esc) {
				if (escaped_is(d, k, u[j].name, u[j].len))
					u[j].v = -2;
			} else if (rn == u[j].len &&
				   !memcmp(raw, u[j].name, rn)) {
				u[j].v = u[j].v >= 0 ? -2 : k + 1;
			}
		}
	}
	for (int j = 0; j < nu; j++) {
		int deeper[CACHE_KIND_MAX_FIELDS], nd = 0;
		int v = u[j].v == -3 ? -1 : u[j].v;
		for (int i = 0; i < n; i++) {
			if (which[i] != j)
				continue;
			const char *rest = at[idx[i]] + u[j].len;
			if (*rest && v >= 0)
				deeper[nd++] = idx[i];
			else
				out[idx[i]] = v;
		}
		if (!nd)
			continue;
		/* the next segments, from each path's dot on */
		const char *next[CACHE_KIND_MAX_FIELDS];
		for (int i = 0; i < nd; i++)
			next[deeper[i]] = at[deeper[i]] + u[j].len + 1;
		member_paths(d, v, next, deeper, nd, out);
	}
}

/* The metadata members pick() reads, in one walk over metadata; -1 where
 * absent. Returns -EINVAL when one is named twice or with an escape
 * (member()). */
static int meta_members(const struct json_doc *d, int meta, struct picked *pk)
{
	static const struct {
		const char *name;
		size_t len;
		size_t at;
	} want[] = {
#define M(n, f) { n, sizeof(n) - 1, offsetof(struct picked, f) }
		M("name", name),
		M("namespace", ns),
		M("uid", uid),
		M("resourceVersion", rv),
		M("creationTimestamp", created),
		M("labels", labels),
		M("managedFields", managed),
#undef M
	};
	for (size_t w = 0; w < sizeof(want) / sizeof(*want); w++)
		*(int *)((char *)pk + want[w].at) = -1;
	for (int k = json_first(d, meta); k > 0; k = json_next(d, meta, k)) {
		size_t n;
		const char *key = json_raw(d, k, &n);
		bool esc = json_escaped(d, k);
		for (size_t w = 0; w < sizeof(want) / sizeof(*want); w++) {
			int *slot = (int *)((char *)pk + want[w].at);
			if (esc ? escaped_is(d, k, want[w].name, want[w].len) :
				  want[w].len == n &&
					    !memcmp(want[w].name, key, n)) {
				if (*slot >= 0 || esc)
					return -EINVAL;
				*slot = k + 1;
				break;
			}
		}
	}
	return 0;
}

static int pick(const struct cache_kind *kind, const struct json_doc *d,
		int root, bool strip, struct picked *pk, char *err,
		size_t errlen, int *why)
{
	*why = CACHE_REJECT_INVALID;
	if (json_type(d, root) != JSMN_OBJECT) {
		snprintf(err, errlen, "object is not a JSON object");
		return -EINVAL;
	}
	if (json_too_deep(d, root)) {
		/* the apiserver's decoder refuses it whole: no client of
		 * it could read this object */
		*why = CACHE_REJECT_DEPTH;
		snprintf(err, errlen, "object nested deeper than %d levels",
			 LIMIT_JSON_DEPTH);
		return -EINVAL;
	}
	int meta = member(d, root, "metadata");
	if (meta == -2 || (meta >= 0 && json_type(d, meta) == JSMN_OBJECT &&
			   meta_members(d, meta, pk))) {
		*why = CACHE_REJECT_KEYS;
		snprintf(err, errlen,
			 "object has a member the cache reads (metadata, or "
			 "one in it) named twice or written with an escape");
		return -EINVAL;
	}
	if (meta < 0 || json_type(d, meta) != JSMN_OBJECT) {
		snprintf(err, errlen, "object has no metadata");
		return -EINVAL;
	}
	if (pk->name < 0 || json_type(d, pk->name) != JSMN_STRING ||
	    d->tok[pk->name].end == d->tok[pk->name].start) {
		snprintf(err, errlen, "object has no metadata.name");
		return -EINVAL;
	}
	uint64_t rv;
	if (pk->rv < 0 || json_type(d, pk->rv) != JSMN_STRING ||
	    json_u64(d, pk->rv, &rv)) {
		snprintf(err, errlen,
			 "object has no numeric metadata.resourceVersion");
		return -EINVAL;
	}
	if (pk->ns >= 0 && json_type(d, pk->ns) != JSMN_STRING)
		pk->ns = -1;
	if (pk->uid >= 0 && json_type(d, pk->uid) != JSMN_STRING)
		pk->uid = -1;
	if (pk->created >= 0 && json_type(d, pk->created) != JSMN_STRING)
		pk->created = -1;
	if (pk->labels >= 0 && json_type(d, pk->labels) != JSMN_OBJECT)
		pk->labels = -1;
	if (pk->labels >= 0)
		for (int k = json_first(d, pk->labels); k > 0;
		     k = json_next(d, pk->labels, k))
			if (json_type(d, k + 1) != JSMN_STRING) {
				snprintf(err, errlen,
					 "label value is not a string");
				return -EINVAL;
			}
	int nf = 0, idx[CACHE_KIND_MAX_FIELDS];
	while (kind && kind->fields[nf]) {
		idx[nf] = nf;
		nf++;
	}
	if (nf)
		member_paths(d, root, kind->fields, idx, nf, pk->fields);
	for (int f = 0; f < nf; f++) {
		if (pk->fields[f] == -2) {
			*why = CACHE_REJECT_KEYS;
			snprintf(err, errlen,
				 "object has a member on the path %s named "
				 "twice or written with an escape",
				 kind->fields[f]);
			return -EINVAL;
		}
	}
	pk->ncut = 0;
	int kk = -1, ak = -1; /* the kind and apiVersion keys */
	for (int k = json_first(d, root); k > 0; k = json_next(d, root, k)) {
		bool is_kind = json_str_eq(d, k, "kind");
		if (!is_kind && !json_str_eq(d, k, "apiVersion")) {
			if (escaped_is(d, k, "kind", 4) ||
			    escaped_is(d, k, "apiVersion", 10)) {
				*why = CACHE_REJECT_KEYS;
				snprintf(err, errlen,
					 "object has its kind or apiVersion "
					 "written with an escape");
				return -EINVAL;
			}
			continue;
		}
		/* cut[] holds one of each plus managedFields; a member named
		 * twice is not an object any apiserver wrote */
		if ((is_kind ? kk : ak) >= 0) {
			*why = CACHE_REJECT_KEYS;
			snprintf(err, errlen,
				 "object has more than one %s member",
				 is_kind ? "kind" : "apiVersion");
			return -EINVAL;
		}
		*(is_kind ? &kk : &ak) = k;
	}
	if (kk >= 0) {
		member_cut(d, root, kk, ak, &pk->cut[pk->ncut].from,
			   &pk->cut[pk->ncut].to);
		pk->ncut++;
	}
	if (ak >= 0) {
		member_cut(d, root, ak, kk, &pk->cut[pk->ncut].from,
			   &pk->cut[pk->ncut].to);
		pk->ncut++;
	}
	int mf = strip ? pk->managed : -1;
	if (mf >= 0) {
		member_cut(d, meta, mf - 1, -1, &pk->cut[pk->ncut].from,
			   &pk->cut[pk->ncut].to);
		pk->ncut++;
	}
	for (int i = 1; i < pk->ncut; i++) /* insertion sort by position */
		for (int j = i; j > 0 && pk->cut[j].from < pk->cut[j - 1].from;
		     j--) {
			size_t f = pk->cut[j].from, t = pk->cut[j].to;
			pk->cut[j] = pk->cut[j - 1];
			pk->cut[j - 1].from = f;
			pk->cut[j - 1].to = t;
		}
	/* Two adjacent cuts may share the comma between them; merge
	 * overlaps so that no byte is counted twice. */
	for (int i = 1; i < pk->ncut; i++) {
		if (pk->cut[i].from < pk->cut[i - 1].to) {
			if (pk->cut[i].to > pk->cut[i - 1].to)
				pk->cut[i - 1].to = pk->cut[i].to;
			memmove(&pk->cut[i], &pk->cut[i + 1],
				(size_t)(pk->ncut - i - 1) *
					sizeof(pk->cut[0]));
			pk->ncut--;
			i--;
		}
	}
	/* last, so that a malformed object is told as such first */
	bool has_ns = pk->ns >= 0 && d->tok[pk->ns].end > d->tok[pk->ns].start;
	if (!key_part_ok(d, pk->name, name_ok)) {
		*why = CACHE_REJECT_NAME;
		snprintf(err, errlen,
			 "metadata.name is not a name the apiserver "
			 "stores (empty, \".\", \"..\", or with '/', '%%' or a "
			 "control character)");
		return -EINVAL;
	}
	if ((kind && kind->namespaced && !has_ns) ||
	    (kind && !kind->namespaced && has_ns) ||
	    (has_ns && !key_part_ok(d, pk->ns, ns_ok))) {
		*why = CACHE_REJECT_NAME;
		snprintf(err, errlen, "metadata.namespace is %s",
			 kind && kind->namespaced && !has_ns ?
				 "missing" :
			 kind && !kind->namespaced && has_ns ?
				 "set on a cluster-scoped object" :
				 "not a DNS-1123 subdomain");
		return -EINVAL;
	}
	return 0;
}

struct cache_obj *cache_obj_parse(const struct cache_kind *kind,
				  const char *json, size_t len,
				  bool strip_managed, char *err, size_t errlen)
{
	char ebuf[128];
	if (!err) {
		err = ebuf;
		errlen = sizeof(ebuf);
	}
	struct json_doc d = JSON_DOC_INIT;
	struct cache_obj *o = NULL;
	int r = json_parse(&d, json, len, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!r)
		o = cache_obj_from_doc(kind, &d, 0, strip_managed, err, errlen);
	json_doc_free(&d);
	return o;
}

/* The start of a kept object's text, {"kind":"K","apiVersion":"G/V",
 * (or "{" without a kind): its length, written at out unless NULL.
 * Names of any length (a group may have 253 bytes) fit: the caller
 * sizes the object with it. */
static size_t put_prefix(const struct cache_kind *kind, char *out)
{
	static const char k1[] = "{\"kind\":\"", k2[] = "\",\"apiVersion\":\"",
			  k3[] = "\",";
	if (!kind) {
		if (out)
			*out = '{';
		return 1;
	}
	const char *parts[] = { k1,  kind->kind,    k2, kind->group,
				"/", kind->version, k3 };
	size_t n = 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
		if ((i == 3 || i == 4) && !kind->group[0])
			continue; /* the core group: "v1" alone */
		size_t len = strlen(parts[i]);
		if (out)
			memcpy(out + n, parts[i], len);
		n += len;
	}
	return n;
}

struct cache_obj *cache_obj_from_doc(const struct cache_kind *kind,
				     const struct json_doc *dp, int root,
				     bool strip_managed, char *err,
				     size_t errlen)
{
	return cache_obj_from_doc_why(kind, dp, root, strip_managed, err,
				      errlen, NULL);
}

struct cache_obj *cache_obj_from_doc_why(const struct cache_kind *kind,
					 const struct json_doc *dp, int root,
					 bool strip_managed, char *err,
					 size_t errlen, int *why)
{
	const char *json = dp->js;
	struct cache_obj *o = NULL;
	struct picked pk;
	int whybuf;
	if (!why)
		why = &whybuf;
	if (pick(kind, dp, root, strip_managed, &pk, err, errlen, why))
		goto out;
	*why = -1; /* from here only ENOMEM fails */

	/* The kept text: a fixed kind/apiVersion prefix, then the object's
	 * members after its '{' minus the cuts. */
	size_t plen = put_prefix(kind, NULL);
	size_t begin, end;
	json_span(dp, root, &begin, &end);
	begin++; /* past '{' */
	while (begin < end && is_space(json[begin]))
		begin++;
	size_t jlen = plen + end - begin;
	for (int c = 0; c < pk.ncut; c++)
		jlen -= pk.cut[c].to - pk.cut[c].from;

	size_t nfields = 0;
	while (kind && kind->fields[nfields])
		nfields++;
	size_t nlabels = pk.labels >= 0 ? (size_t)dp->tok[pk.labels].size : 0;
	size_t strs =
		strsize(dp, pk.name) + strsize(dp, pk.ns) + strsize(dp, pk.uid);
	for (size_t f = 0; f < nfields; f++)
		strs += field_size(dp, pk.fields[f]);
	for (int k = json_first(dp, pk.labels); k > 0;
	     k = json_next(dp, pk.labels, k))
		strs += strsize(dp, k) + strsize(dp, k + 1);

	size_t size = sizeof(*o) + nfields * sizeof(char *) +
		      nlabels * sizeof(struct cache_label) + strs + jlen + 1;
	o = xmalloc(size);
	if (!o) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	char *at = (char *)(o + 1);
	const char **fields = (const char **)at;
	at += nfields * sizeof(char *);
	struct cache_label *labels = (struct cache_label *)at;
	at += nlabels * sizeof(struct cache_label);

	o->magic = CACHE_OBJ_MAGIC;
	o->refs = 1;
	o->pb = NULL;
	o->pretty_len = 0;
	o->kind = kind;
	json_u64(dp, pk.rv, &o->rv);
	o->name = put_str(dp, pk.name, &at);
	o->ns = put_str(dp, pk.ns, &at);
	o->uid = put_str(dp, pk.uid, &at);
	o->created = 0;
	if (pk.created >= 0) {
		size_t n;
		const char *t = json_raw(dp, pk.created, &n);
		int64_t ts;
		if (!cache_parse_time(t, n, &ts))
			o->created = ts;
	}
	for (size_t f = 0; f < nfields; f++)
		fields[f] = put_field(dp, pk.fields[f], &at);
	o->fields = nfields ? fields : NULL;
	size_t nl = 0;
	for (int k = json_first(dp, pk.labels); k > 0;
	     k = json_next(dp, pk.labels, k), nl++) {
		labels[nl].key = put_str(dp, k, &at);
		labels[nl].val = put_str(dp, k + 1, &at);
	}
	qsort(labels, nlabels, sizeof(*labels), label_cmp);
	/* keys decoded as clients decode them; one named twice would be
	 * the last one's value to them: not taken (docs/JSON.md) */
	for (size_t i = 1; i < nlabels; i++)
		if (!strcmp(labels[i].key, labels[i - 1].key)) {
			*why = CACHE_REJECT_KEYS;
			snprintf(err, errlen, "a label is named twice");
			free(o);
			o = NULL;
			goto out;
		}
	o->labels = labels;
	o->nlabels = (uint32_t)nlabels;
	o->table = NULL;

	char *j = at;
	put_prefix(kind, j);
	size_t w = plen, from = begin;
	for (int c = 0; c < pk.ncut; c++) {
		memcpy(j + w, json + from, pk.cut[c].from - from);
		w += pk.cut[c].from - from;
		from = pk.cut[c].to;
	}
	memcpy(j + w, json + from, end - from);
	w += end - from;
	j[w] = '\0';
	if (dp->newline && memchr(j, '\n', w))
		w = compact(
			j, w); /* pretty-printed upstream: one line per event */
	o->json = j;
	o->len = w;
	o->item_off = (uint32_t)plen;
out:
	return o;
}

/* o's bytes (shape: what the kind's objects tokenize), parsed again:
 * jumping over what shape skips (they were accepted when cached), or
 * validated whole without a shape. */
static int reparse(struct json_doc *d, const char *js, size_t len,
		   const struct json_shape *shape)
{
	return shape ? json_parse_trusted(d, js, len, shape) :
		       json_parse(d, js, len, NULL, 0);
}

struct cache_obj *cache_obj_with_rv(const struct cache_obj *o, uint64_t rv,
				    const struct json_shape *shape)
{
	struct json_doc d = JSON_DOC_INIT, e = JSON_DOC_INIT;
	struct cache_obj *n = NULL;
	char *js = NULL;
	if (reparse(&d, o->json, o->len, shape))
		goto out;
	int t = json_path(&d, 0, "metadata.resourceVersion");
	if (t < 0 || json_type(&d, t) != JSMN_STRING)
		goto out;
	size_t vs = (size_t)d.tok[t].start, ve = (size_t)d.tok[t].end;
	char num[24];
	int nl = snprintf(num, sizeof(num), "%llu", (unsigned long long)rv);
	size_t len = o->len - (ve - vs) + (size_t)nl;
	js = xmalloc(len + 1);
	if (!js)
		goto out;
	memcpy(js, o->json, vs);
	memcpy(js + vs, num, (size_t)nl);
	memcpy(js + vs + (size_t)nl, o->json + ve, o->len - ve);
	js[len] = '\0';
	/* digits in place of digits: still bytes the cache accepted */
	if (!reparse(&e, js, len, shape))
		n = cache_obj_from_doc(o->kind, &e, 0, false, NULL, 0);
out:
	free(js);
	json_doc_free(&d);
	json_doc_free(&e);
	return n;
}

void cache_obj_put(struct cache_obj *o)
{
	if (!o)
		return;
	if (__atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		o->magic = 0;
		free(o->pb); /* no reader left: nobody holds a reference */
		free(o);
	}
}

struct cache_blob *cache_blob_publish(struct cache_blob **slot,
				      struct cache_blob *b)
{
	struct cache_blob *none = NULL;
	if (!b)
		return NULL;
	if (__atomic_compare_exchange_n(slot, &none, b, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return b;
	free(b); /* another thread's encoding won: the same bytes */
	return none;
}

int cache_obj_pb(struct cache_obj *o, const unsigned char **raw, size_t *len,
		 char *err, size_t errlen)
{
	struct cache_blob *b = __atomic_load_n(&o->pb, __ATOMIC_ACQUIRE);
	if (!b) {
		char apiv[CACHE_KIND_API_VERSION_MAX], why[160] = "";
		cache_kind_api_version(o->kind, apiv, sizeof(apiv));
		const struct pb_msg *m = pb_kinds_find(apiv, o->kind->kind);
		struct buf out = BUF_INIT;
		int r = -ENOSYS;
		if (m)
			r = pb_encode_msg(m, o->json, o->len, &out, why,
					  sizeof(why));
		else
			snprintf(why, sizeof(why),
				 "no protobuf schema for %.60s %.60s", apiv,
				 o->kind->kind);
		if (!r && !buf_ok(&out))
			r = -ENOMEM;
		if (r == -ENOMEM) {
			buf_free(&out);
			if (err && errlen)
				snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		size_t n = r ? 0 : out.len;
		b = xmalloc(sizeof(*b) + (n ? n : 1));
		if (!b) {
			buf_free(&out);
			return -ENOMEM;
		}
		b->len = n;
		b->err = r;
		if (n)
			memcpy(b->p, out.p, n);
		buf_free(&out);
		if (r && err && errlen)
			snprintf(err, errlen, "%s", why);
		b = cache_blob_publish(&o->pb, b);
	} else if (b->err && err && errlen) {
		snprintf(err, errlen, "cannot be encoded in protobuf");
	}
	if (b->err)
		return b->err;
	*raw = b->p;
	*len = b->len;
	return 0;
}

const char *cache_obj_label(const struct cache_obj *o, const char *key)
{
	size_t lo = 0, hi = o->nlabels;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(o->labels[mid].key, key);
		if (c == 0)
			return o->labels[mid].val;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int cache_obj_keycmp(const char *ns1, const char *name1, const char *ns2,
		     const char *name2)
{
	/* Byte order of the keys "ns/name" (just "name" when cluster
	 * scoped), as etcd sorts them: "ns-1-a/x" comes before "ns-1/x". */
	size_t i = 0;
	while (ns1[i] && ns1[i] == ns2[i])
		i++;
	unsigned char c1 = ns1[i] ? (unsigned char)ns1[i] : (ns1[0] ? '/' : 0);
	unsigned char c2 = ns2[i] ? (unsigned char)ns2[i] : (ns2[0] ? '/' : 0);
	if (c1 != c2)
		return c1 < c2 ? -1 : 1;
	return strcmp(name1, name2);
}
