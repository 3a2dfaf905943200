/*
 * scope: a reflector's namespace, selectors and stripped paths (see
 * scope.h).
 */
#include "cache/scope.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/url.h"
#include "config/alloc.h"
#include "config/file.h"

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src || !*src)
		return 0;
	return (*dst = xstrdup(src)) ? 0 : -ENOMEM;
}

int cache_scope_init(struct cache_scope *s, const char *ns, const char *lsel,
		     const char *fsel, char *const *strip, int nstrip)
{
	memset(s, 0, sizeof(*s));
	int rc = dup_opt(&s->ns, ns);
	if (!rc)
		rc = dup_opt(&s->label_selector, lsel);
	if (!rc)
		rc = dup_opt(&s->field_selector, fsel);
	for (int i = 0; !rc && i < nstrip; i++) {
		if (!strcmp(strip[i], "metadata.managedFields")) {
			s->strip_managed = true;
			continue;
		}
		if (s->nstrip == CACHE_SCOPE_MAX_STRIP) {
			rc = -EINVAL;
			break;
		}
		rc = dup_opt(&s->strip[s->nstrip], strip[i]);
		if (s->strip[s->nstrip])
			s->nstrip++;
	}
	if (rc)
		cache_scope_free(s);
	return rc;
}

void cache_scope_free(struct cache_scope *s)
{
	free(s->ns);
	free(s->label_selector);
	free(s->field_selector);
	for (int i = 0; i < s->nstrip; i++)
		free(s->strip[i]);
	memset(s, 0, sizeof(*s));
}

bool cache_scope_unselected(const struct cache_scope *s)
{
	return !s->label_selector && !s->field_selector;
}

/* ---- selector terms ---- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_punct(char c)
{
	return c == '(' || c == ')' || c == ',' || c == '=' || c == '!';
}

/*
 * The terms of selector s, each written in one canonical way: runs of
 * white space become one space, and none is kept next to punctuation or
 * at either end. Terms are split at commas outside parentheses (label
 * sets), and not after a backslash (field values). Returns the count
 * (at most max; more gives -1), each in out[i] (cap bytes; longer: -1).
 */
static int terms(const char *s, char (*out)[512], int max)
{
	int n = 0, depth = 0;
	size_t w = 0;
	bool space = false;
	for (const char *p = s;; p++) {
		char c = *p;
		if (!c || (c == ',' && !depth)) {
			if (w) {
				if (n == max)
					return -1;
				out[n++][w] = '\0';
			}
			if (!c)
				return n;
			w = 0;
			space = false;
			continue;
		}
		if (is_ws(c)) {
			space = w > 0;
			continue;
		}
		if (w + 3 >= 512 || n == max)
			return -1;
		if (space && !is_punct(c) && !is_punct(out[n][w - 1]))
			out[n][w++] = ' ';
		space = false;
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		else if (c == '\\' && p[1]) {
			out[n][w++] = c;
			c = *++p;
		}
		out[n][w++] = c;
	}
}

/* Every term of scope is among the terms of req. */
static bool implied(const char *scope, const char *req)
{
	if (!scope)
		return true;
	if (!req || !*req)
		return false;
	static __thread char st[16][512], rt[32][512];
	int ns = terms(scope, st, 16), nr = terms(req, rt, 32);
	if (ns < 0 || nr < 0)
		return false;
	for (int i = 0; i < ns; i++) {
		bool found = false;
		for (int k = 0; k < nr && !found; k++)
			found = !strcmp(st[i], rt[k]);
		if (!found)
			return false;
	}
	return true;
}

bool cache_scope_covers(const struct cache_scope *s, const char *lsel,
			const char *fsel)
{
	return implied(s->label_selector, lsel) &&
	       implied(s->field_selector, fsel);
}

void cache_scope_query(const struct cache_scope *s, struct buf *url)
{
	if (s->label_selector) {
		buf_printf(url, "&labelSelector=");
		cache_url_escape(url, s->label_selector);
	}
	if (s->field_selector) {
		buf_printf(url, "&fieldSelector=");
		cache_url_escape(url, s->field_selector);
	}
}

/* ---- stripping ---- */

struct gone {
	int parent, key; /* a member to remove: its object and key token */
};

struct cut {
	size_t from, to;
};

static bool removed(const struct gone *g, int ng, int parent, int key)
{
	for (int i = 0; i < ng; i++)
		if (g[i].parent == parent && g[i].key == key)
			return true;
	return false;
}

static int cut_cmp(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;
	return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * The byte range that removes member key of parent with its comma,
 * knowing every other member that goes too: up to the next member that
 * stays, or else from the end of the last one before it that stays, or
 * the whole member when none stays (the object becomes "{}").
 */
static struct cut member_range(const struct json_doc *d, const struct gone *g,
			       int ng, int parent, int key)
{
	size_t kb, ke, vb, ve;
	json_span(d, key, &kb, &ke);
	json_span(d, key + 1, &vb, &ve);
	for (int k = json_next(d, parent, key); k > 0;
	     k = json_next(d, parent, k))
		if (!removed(g, ng, parent, k)) {
			size_t nb, ne;
			json_span(d, k, &nb, &ne);
			return (struct cut){ kb, nb };
		}
	int prev = -1;
	for (int k = json_first(d, parent); k > 0 && k != key;
	     k = json_next(d, parent, k))
		if (!removed(g, ng, parent, k))
			prev = k;
	if (prev > 0) {
		size_t pb, pe;
		json_span(d, prev + 1, &pb, &pe);
		return (struct cut){ pe, ve };
	}
	return (struct cut){ kb, ve };
}

/* The key token of the member called name in object obj, or -1. */
static int member(const struct json_doc *d, int obj, const char *name)
{
	if (obj < 0 || json_type(d, obj) != JSMN_OBJECT)
		return -1;
	for (int k = json_first(d, obj); k > 0; k = json_next(d, obj, k))
		if (json_str_eq(d, k, name))
			return k;
	return -1;
}

struct cache_obj *cache_scope_strip(const struct cache_scope *s,
				    struct cache_obj *o)
{
	if (!s->nstrip)
		return o;
	struct json_doc d = JSON_DOC_INIT;
	char err[128];
	struct gone g[CACHE_SCOPE_MAX_STRIP];
	struct cut cuts[CACHE_SCOPE_MAX_STRIP];
	int ng = 0;
	if (json_parse(&d, o->json, o->len, err, sizeof(err))) {
		json_doc_free(&d);
		return o; /* it parsed once; only memory can fail here */
	}
	for (int i = 0; i < s->nstrip; i++) {
		char seg[8][256];
		int n = config_file_path_split(s->strip[i], seg, 8);
		int obj = 0, par = 0, key = -1;
		for (int k = 0; k < n && obj >= 0; k++) {
			par = obj;
			key = member(&d, obj, seg[k]);
			obj = key > 0 && k + 1 < n ? key + 1 : -1;
		}
		if (n > 0 && key > 0 && obj < 0 && !removed(g, ng, par, key))
			g[ng++] = (struct gone){ par, key };
	}
	if (!ng) {
		json_doc_free(&d);
		return o;
	}
	for (int i = 0; i < ng; i++)
		cuts[i] = member_range(&d, g, ng, g[i].parent, g[i].key);
	qsort(cuts, (size_t)ng, sizeof(*cuts), cut_cmp);
	char *out = xmalloc(o->len + 1);
	struct cache_obj *n = NULL;
	if (out) {
		size_t w = 0, from = 0;
		for (int i = 0; i < ng; i++) {
			if (cuts[i].to <= from)
				continue; /* inside one already cut */
			if (cuts[i].from > from) {
				memcpy(out + w, o->json + from,
				       cuts[i].from - from);
				w += cuts[i].from - from;
			}
			from = cuts[i].to;
		}
		memcpy(out + w, o->json + from, o->len - from);
		w += o->len - from;
		n = cache_obj_parse(o->kind, out, w, false, err, sizeof(err));
		free(out);
	}
	json_doc_free(&d);
	cache_obj_put(o);
	return n;
}

/* The cuts that take s's strip paths (and metadata.managedFields when
 * managed) out of the object at token obj, appended to *cuts (n of cap;
 * grown as needed). Returns 0 or -ENOMEM. */
static int object_cuts(const struct cache_scope *s, bool managed,
		       const struct json_doc *d, int obj, struct cut **cuts,
		       size_t *n, size_t *cap)
{
	struct gone g[CACHE_SCOPE_MAX_STRIP + 1];
	int ng = 0;
	for (int i = 0; i < s->nstrip + (managed ? 1 : 0); i++) {
		char seg[8][256];
		const char *path =
			i < s->nstrip ? s->strip[i] : "metadata.managedFields";
		int nseg = config_file_path_split(path, seg, 8);
		int at = obj, par = obj, key = -1;
		for (int k = 0; k < nseg && at >= 0; k++) {
			par = at;
			key = member(d, at, seg[k]);
			at = key > 0 && k + 1 < nseg ? key + 1 : -1;
		}
		if (nseg > 0 && key > 0 && at < 0 && !removed(g, ng, par, key))
			g[ng++] = (struct gone){ par, key };
	}
	if (*n + (size_t)ng > *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		while (c < *n + (size_t)ng)
			c *= 2;
		struct cut *p = xrealloc(*cuts, c * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*cuts = p;
		*cap = c;
	}
	size_t first = *n;
	for (int i = 0; i < ng; i++)
		(*cuts)[(*n)++] = member_range(d, g, ng, g[i].parent, g[i].key);
	if (ng) /* *cuts may still be NULL: nothing cut yet */
		qsort(*cuts + first, (size_t)ng, sizeof(**cuts), cut_cmp);
	return 0;
}

int cache_scope_strip_answer(const struct cache_scope *s, bool managed,
			     const char *body, size_t len, struct buf *out)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[128];
	struct cut *cuts = NULL;
	size_t n = 0, cap = 0;
	int rc = -EINVAL;
	if (json_parse(&d, body, len, err, sizeof(err)) ||
	    json_type(&d, 0) != JSMN_OBJECT)
		goto out;
	int items = json_get(&d, 0, "items");
	rc = 0;
	if (items > 0 && json_type(&d, items) == JSMN_ARRAY) {
		for (int it = json_first(&d, items); it > 0 && !rc;
		     it = json_next(&d, items, it))
			if (json_type(&d, it) == JSMN_OBJECT)
				rc = object_cuts(s, managed, &d, it, &cuts, &n,
						 &cap);
	} else {
		rc = object_cuts(s, managed, &d, 0, &cuts, &n, &cap);
	}
	if (rc)
		goto out;
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		if (cuts[i].to <= from)
			continue; /* inside one already cut */
		if (cuts[i].from > from)
			buf_add(out, body + from, cuts[i].from - from);
		from = cuts[i].to;
	}
	buf_add(out, body + from, len - from);
	rc = buf_ok(out) ? 0 : -ENOMEM;
out:
	free(cuts);
	json_doc_free(&d);
	return rc;
}
