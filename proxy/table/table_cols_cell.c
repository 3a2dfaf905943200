/*
 * table_cols_cell: the machinery of the column table's cell functions
 * (table_cols_int.h): reading values from the parsed object, writing
 * JSON cells, joined lists, and the cells every area uses (name, age,
 * strings, "<none>", counts, labels, label selectors).
 */
#include "proxy/table/table_cols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/parse.h"
#include "config/alloc.h"
#include "proxy/table/table_age_int.h"

/* ---- reading the object ---- */

/* json_str_eq for a token that may be absent (-1). */
bool tc_str_eq(const struct json_doc *d, int t, const char *s)
{
	return t >= 0 && json_str_eq(d, t, s);
}

int tc_at(const struct tc_row *r, const char *path)
{
	return path ? json_path(r->d, 0, path) : -1;
}

bool tc_is_str(const struct json_doc *d, int t)
{
	return t >= 0 && json_type(d, t) == JSMN_STRING;
}

bool tc_is_null(const struct json_doc *d, int t)
{
	size_t n;
	const char *s;
	if (t < 0)
		return true;
	s = json_raw(d, t, &n);
	return json_type(d, t) == JSMN_PRIMITIVE && n == 4 &&
	       !memcmp(s, "null", 4);
}

/* String token t unescaped, malloc'd ("" when t is not a string). */
char *tc_dup_str(const struct json_doc *d, int t)
{
	if (!tc_is_str(d, t))
		return xstrdup("");
	size_t n = json_str_len(d, t) + 1;
	char *s = xmalloc(n);
	if (s && json_str(d, t, s, n) < 0)
		s[0] = '\0';
	return s;
}

int64_t tc_int_of(const struct json_doc *d, int t, int64_t dflt)
{
	int64_t v;
	if (t < 0 || json_type(d, t) != JSMN_PRIMITIVE || json_i64(d, t, &v))
		return dflt;
	return v;
}

int tc_members(const struct json_doc *d, int t)
{
	return t >= 0 && (json_type(d, t) == JSMN_ARRAY ||
			  json_type(d, t) == JSMN_OBJECT) ?
		       d->tok[t].size :
		       0;
}

/* A timestamp string at t as unix seconds; false when absent/zero. */
bool tc_time_of(const struct json_doc *d, int t, int64_t *out)
{
	size_t n;
	const char *s;
	if (!tc_is_str(d, t))
		return false;
	s = json_raw(d, t, &n);
	return !cache_parse_time(s, n, out);
}

/* qsort, which must not be given a NULL base even for no items. */
void tc_sort_n(void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* ---- writing cells ---- */

void tc_put_str(struct buf *b, const char *s)
{
	buf_add_json_str(b, s ? s : "", s ? strlen(s) : 0);
}

void tc_put_token_str(struct buf *b, const struct json_doc *d, int t)
{
	char *s = tc_dup_str(d, t);
	tc_put_str(b, s);
	free(s);
}

void tc_put_int(struct buf *b, int64_t v)
{
	buf_printf(b, "%lld", (long long)v);
}

/* translateTimestampSince: the age of t, "<unknown>" when unset. */
void tc_put_since(struct buf *b, const struct tc_row *r, int t)
{
	int64_t when;
	char age[32];
	if (!tc_time_of(r->d, t, &when)) {
		tc_put_str(b, "<unknown>");
		return;
	}
	proxy_table_age_human((int64_t)r->now - when, age, sizeof(age));
	tc_put_str(b, age);
}

void tc_sb_item(struct tc_sbuf *s, const char *sep, const char *v, size_t len)
{
	if (s->n++)
		buf_adds(&s->b, sep);
	buf_add(&s->b, v, len);
}

void tc_sb_token(struct tc_sbuf *s, const char *sep, const struct json_doc *d,
		 int t)
{
	char *v = tc_dup_str(d, t);
	tc_sb_item(s, sep, v, strlen(v));
	free(v);
}

/* The string (NUL-terminated, "" when empty) and reset. */
void tc_sb_put(struct buf *out, struct tc_sbuf *s, const char *empty)
{
	buf_addc(&s->b, '\0');
	tc_put_str(out, s->n && s->b.p && s->b.p[0] ? s->b.p : empty);
	buf_free(&s->b);
	s->n = 0;
}

/* ---- cell functions ---- */

void tc_cell_name(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	tc_put_token_str(b, r->d, tc_at(r, "metadata.name"));
}

void tc_cell_age(struct buf *b, const struct tc_row *r, const char *arg)
{
	tc_put_since(b, r, tc_at(r, arg ? arg : "metadata.creationTimestamp"));
}

/* The string at arg, "" when absent. */
void tc_put_buf(struct buf *b, struct buf *s)
{
	buf_addc(s, '\0');
	tc_put_str(b, buf_ok(s) ? s->p : "");
	buf_free(s);
}

void tc_cell_kind_name(struct buf *b, const struct tc_row *r, const char *arg)
{
	char path[128];
	snprintf(path, sizeof(path), "%s.kind", arg);
	char *kind = tc_dup_str(r->d, tc_at(r, path));
	snprintf(path, sizeof(path), "%s.name", arg);
	char *name = tc_dup_str(r->d, tc_at(r, path));
	struct buf s = BUF_INIT;
	buf_printf(&s, "%s/%s", kind, name);
	tc_put_buf(b, &s);
	free(kind);
	free(name);
}

void tc_cell_str(struct buf *b, const struct tc_row *r, const char *arg)
{
	tc_put_token_str(b, r->d, tc_at(r, arg));
}

/* The string at arg, "<none>" when absent (an unset pointer). */
void tc_cell_str_or_none(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = tc_at(r, arg);
	if (tc_is_null(r->d, t))
		tc_put_str(b, "<none>");
	else
		tc_put_token_str(b, r->d, t);
}

/* The integer at arg, 0 when absent. */
void tc_cell_int(struct buf *b, const struct tc_row *r, const char *arg)
{
	tc_put_int(b, tc_int_of(r->d, tc_at(r, arg), 0));
}

/* The number of items of the array or map at arg. */
void tc_cell_count(struct buf *b, const struct tc_row *r, const char *arg)
{
	tc_put_int(b, tc_members(r->d, tc_at(r, arg)));
}

int tc_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* labels.FormatLabels of the map at arg: k=v sorted by key, "<none>". */
void tc_cell_labels(struct buf *b, const struct tc_row *r, const char *arg)
{
	int m = tc_at(r, arg), n = tc_members(r->d, m), i = 0;
	if (n && json_type(r->d, m) != JSMN_OBJECT)
		n = 0;
	char **kv = n ? xcalloc((size_t)n, sizeof(*kv)) : NULL;
	for (int k = n ? json_first(r->d, m) : -1; k > 0 && i < n;
	     k = json_next(r->d, m, k), i++) {
		char *key = tc_dup_str(r->d, k), *val = tc_dup_str(r->d, k + 1);
		size_t len = strlen(key) + strlen(val) + 2;
		kv[i] = xmalloc(len);
		snprintf(kv[i], len, "%s=%s", key, val);
		free(key);
		free(val);
	}
	tc_sort_n(kv, (size_t)i, sizeof(*kv), tc_cmp_str);
	struct tc_sbuf s = { BUF_INIT, 0 };
	for (int j = 0; j < i; j++) {
		tc_sb_item(&s, ",", kv[j], strlen(kv[j]));
		free(kv[j]);
	}
	free(kv);
	tc_sb_put(b, &s, "<none>");
}

/* One requirement of a label selector, for sorting by key. */
struct req {
	char *key, *text;
};

static int cmp_req(const void *a, const void *b)
{
	return strcmp(((const struct req *)a)->key,
		      ((const struct req *)b)->key);
}

/* metav1.LabelSelector as the labels package prints it: requirements
 * sorted by key, "k=v", "k in (a,b)", "k notin (a,b)", "k", "!k", joined
 * by ','. Empty for a nil or empty selector. */
void tc_selector(struct buf *out, const struct json_doc *d, int sel)
{
	int ml = json_get(d, sel, "matchLabels");
	int me = json_get(d, sel, "matchExpressions");
	int n = (ml >= 0 && json_type(d, ml) == JSMN_OBJECT ?
			 tc_members(d, ml) :
			 0) +
		(me >= 0 && json_type(d, me) == JSMN_ARRAY ? tc_members(d, me) :
							     0);
	struct req *rq = n ? xcalloc((size_t)n, sizeof(*rq)) : NULL;
	int i = 0;
	if (sel < 0 || json_type(d, sel) != JSMN_OBJECT)
		n = 0;
	for (int k = n && ml >= 0 && json_type(d, ml) == JSMN_OBJECT ?
			     json_first(d, ml) :
			     -1;
	     k > 0 && i < n; k = json_next(d, ml, k), i++) {
		struct buf t = BUF_INIT;
		char *v = tc_dup_str(d, k + 1);
		rq[i].key = tc_dup_str(d, k);
		buf_printf(&t, "%s=%s", rq[i].key, v);
		buf_addc(&t, '\0');
		rq[i].text = t.p;
		free(v);
	}
	for (int e = n && me >= 0 && json_type(d, me) == JSMN_ARRAY ?
			     json_first(d, me) :
			     -1;
	     e > 0 && i < n; e = json_next(d, me, e), i++) {
		struct buf t = BUF_INIT;
		char *op = tc_dup_str(d, json_get(d, e, "operator"));
		rq[i].key = tc_dup_str(d, json_get(d, e, "key"));
		if (!strcmp(op, "Exists")) {
			buf_adds(&t, rq[i].key);
		} else if (!strcmp(op, "DoesNotExist")) {
			buf_printf(&t, "!%s", rq[i].key);
		} else {
			int vs = json_get(d, e, "values"),
			    nv = tc_members(d, vs);
			char **v = nv ? xcalloc((size_t)nv, sizeof(*v)) : NULL;
			int j = 0;
			for (int x = nv ? json_first(d, vs) : -1;
			     x > 0 && j < nv; x = json_next(d, vs, x))
				v[j++] = tc_dup_str(d, x);
			tc_sort_n(v, (size_t)j, sizeof(*v), tc_cmp_str);
			buf_printf(&t, "%s %s (", rq[i].key,
				   !strcmp(op, "NotIn") ? "notin" : "in");
			for (int y = 0; y < j; y++) {
				buf_printf(&t, "%s%s", y ? "," : "", v[y]);
				free(v[y]);
			}
			buf_addc(&t, ')');
			free(v);
		}
		buf_addc(&t, '\0');
		rq[i].text = t.p;
		free(op);
	}
	tc_sort_n(rq, (size_t)i, sizeof(*rq), cmp_req);
	for (int j = 0; j < i; j++) {
		if (j)
			buf_addc(out, ',');
		buf_adds(out, rq[j].text ? rq[j].text : "");
		free(rq[j].key);
		free(rq[j].text);
	}
	free(rq);
}

/* metav1.FormatLabelSelector: "<none>" when it selects by nothing. */
void tc_cell_selector(struct buf *b, const struct tc_row *r, const char *arg)
{
	struct buf s = BUF_INIT;
	tc_selector(&s, r->d, tc_at(r, arg));
	buf_addc(&s, '\0');
	tc_put_str(b, s.p && s.p[0] ? s.p : "<none>");
	buf_free(&s);
}

/* A boolean at arg, false when absent. */
void tc_cell_bool(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = tc_at(r, arg);
	size_t n;
	const char *s = t >= 0 ? json_raw(r->d, t, &n) : NULL;
	buf_adds(b, s && *s == 't' ? "true" : "false");
}

/* ---- the NAME and AGE descriptions, the wing's one copy ---- */

const char proxy_table_cols_name_description[] =
	"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char proxy_table_cols_age_description[] =
	"CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
