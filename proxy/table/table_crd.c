/*
 * table_crd: custom resources' printer columns (see table_crd_int.h).
 *
 * A cell is the first value the column's JSONPath selects, formatted as
 * the apiextensions apiserver does: a string column prints any value
 * (strings as they are, other scalars as their JSON text, objects and
 * arrays as their stored JSON text, where the apiserver re-encodes them
 * with sorted keys); integer, number and boolean columns keep values of
 * their type (a number's fraction is dropped for an integer column) and
 * are null otherwise; a date column prints the age of an RFC 3339
 * timestamp, "<invalid>" for another string, "<unknown>" for the zero
 * time. A path that selects nothing gives null.
 */
#include "proxy/table/table_crd_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/parse.h"
#include "config/alloc.h"
#include "proxy/table/table_age_int.h"
#include "proxy/table/table_cols_int.h"
#include "proxy/table/table_jsonpath_int.h"

struct crd_col {
	char *name, *type, *format, *desc, *path;
	int priority;
};

struct proxy_table_crd_cols {
	int n;
	struct crd_col c[];
};

/*
 * Parsed columns by CRD name, version and resourceVersion: a CRD with a
 * large schema is tokenized once per change, not once per Table (a
 * watch renders one per event). Entries are replaced in turn; the cache
 * owns its copies, and callers get copies of their own.
 */
#define CRD_CACHE 16
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct crd_cache {
	char key[512]; /* name "/" version; "" when empty */
	uint64_t rv;
	struct proxy_table_crd_cols *cols;
} cache[CRD_CACHE];
static unsigned cache_next;

static struct proxy_table_crd_cols *
cols_copy(const struct proxy_table_crd_cols *c);

void proxy_table_crd_cache_clear(void)
{
	pthread_mutex_lock(&cache_lock);
	for (int i = 0; i < CRD_CACHE; i++) {
		proxy_table_crd_cols_free(cache[i].cols);
		cache[i] = (struct crd_cache){ .key = "" };
	}
	pthread_mutex_unlock(&cache_lock);
}

/* A copy of the cached columns of key at rv, or NULL. */
static struct proxy_table_crd_cols *cache_find(const char *key, uint64_t rv)
{
	struct proxy_table_crd_cols *c = NULL;
	pthread_mutex_lock(&cache_lock);
	for (int i = 0; i < CRD_CACHE && !c; i++)
		if (cache[i].cols && cache[i].rv == rv &&
		    !strcmp(cache[i].key, key))
			c = cols_copy(cache[i].cols);
	pthread_mutex_unlock(&cache_lock);
	return c;
}

static void cache_put(const char *key, uint64_t rv,
		      const struct proxy_table_crd_cols *c)
{
	struct proxy_table_crd_cols *copy = cols_copy(c);
	if (!copy)
		return;
	pthread_mutex_lock(&cache_lock);
	struct crd_cache *e = &cache[cache_next++ % CRD_CACHE];
	for (int i = 0; i < CRD_CACHE; i++) /* the same CRD: its slot */
		if (!strcmp(cache[i].key, key)) {
			e = &cache[i];
			break;
		}
	proxy_table_crd_cols_free(e->cols);
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->rv = rv;
	e->cols = copy;
	pthread_mutex_unlock(&cache_lock);
}

/* json_str_eq for a token that may be absent (-1). */
static bool str_eq(const struct json_doc *d, int t, const char *s)
{
	return t >= 0 && json_str_eq(d, t, s);
}

/* The string at t, malloc'd; "" when absent or not a string. */
static char *str_of(const struct json_doc *d, int t)
{
	size_t n;
	char *s;
	if (t < 0 || json_type(d, t) != JSMN_STRING)
		return xstrdup("");
	n = json_str_len(d, t) + 1;
	s = xmalloc(n);
	if (s && json_str(d, t, s, n) < 0)
		s[0] = '\0';
	return s;
}

static void col_free(struct crd_col *c)
{
	free(c->name);
	free(c->type);
	free(c->format);
	free(c->desc);
	free(c->path);
}

void proxy_table_crd_cols_free(struct proxy_table_crd_cols *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		col_free(&c->c[i]);
	free(c);
}

static struct proxy_table_crd_cols *age_only(void)
{
	struct proxy_table_crd_cols *c =
		xcalloc(1, sizeof(*c) + sizeof(c->c[0]));
	if (!c)
		return NULL;
	c->n = 1;
	c->c[0] = (struct crd_col){ xstrdup("Age"),
				    xstrdup("date"),
				    xstrdup(""),
				    xstrdup(proxy_table_cols_age_description),
				    xstrdup(".metadata.creationTimestamp"),
				    0 };
	if (!c->c[0].name || !c->c[0].type || !c->c[0].format ||
	    !c->c[0].desc || !c->c[0].path) {
		proxy_table_crd_cols_free(c);
		return NULL;
	}
	return c;
}

static struct proxy_table_crd_cols *from_doc(const struct json_doc *d,
					     const char *version)
{
	int vs = json_path(d, 0, "spec.versions"), v = -1, apc, n;
	struct proxy_table_crd_cols *c;
	if (vs < 0 || json_type(d, vs) != JSMN_ARRAY)
		return NULL;
	for (int e = json_first(d, vs); e > 0; e = json_next(d, vs, e))
		if (str_eq(d, json_get(d, e, "name"), version)) {
			v = e;
			break;
		}
	if (v < 0)
		return NULL;
	apc = json_get(d, v, "additionalPrinterColumns");
	n = apc >= 0 && json_type(d, apc) == JSMN_ARRAY ? d->tok[apc].size : 0;
	if (!n)
		return age_only();
	c = xcalloc(1, sizeof(*c) + (size_t)n * sizeof(c->c[0]));
	if (!c)
		return NULL;
	for (int e = json_first(d, apc); e > 0 && c->n < n;
	     e = json_next(d, apc, e)) {
		struct crd_col *col = &c->c[c->n++];
		int64_t prio = 0;
		int pt = json_get(d, e, "priority");
		col->name = str_of(d, json_get(d, e, "name"));
		col->type = str_of(d, json_get(d, e, "type"));
		col->format = str_of(d, json_get(d, e, "format"));
		col->path = str_of(d, json_get(d, e, "jsonPath"));
		col->desc = str_of(d, json_get(d, e, "description"));
		/* the default description names the path: not when its
		 * copy failed (checked below) */
		if (col->desc && !col->desc[0] && col->path) {
			size_t len = strlen(col->path) + 64;
			free(col->desc);
			col->desc = xmalloc(len);
			if (col->desc)
				snprintf(col->desc, len,
					 "Custom resource definition column "
					 "(in JSONPath format): %s",
					 col->path);
		}
		if (pt >= 0 && !json_i64(d, pt, &prio))
			col->priority = (int)prio;
		if (!col->name || !col->type || !col->format || !col->path ||
		    !col->desc) {
			proxy_table_crd_cols_free(c);
			return NULL;
		}
	}
	return c;
}

struct proxy_table_crd_cols *
proxy_table_crd_cols_parse(const char *json, size_t len, const char *version)
{
	struct json_doc d = JSON_DOC_INIT;
	struct proxy_table_crd_cols *c = NULL;
	if (!json_parse(&d, json, len, NULL, 0))
		c = from_doc(&d, version);
	json_doc_free(&d);
	return c;
}

struct proxy_table_crd_cols *
proxy_table_crd_cols_get(struct cache_store *s, const struct cache_kind *k)
{
	char name[256], key[512];
	struct cache_obj *o;
	struct proxy_table_crd_cols *c;
	if (!s || !k->group[0])
		return NULL;
	snprintf(name, sizeof(name), "%s.%s", k->resource, k->group);
	o = cache_store_get(s, "", name, NULL);
	if (!o)
		return NULL;
	snprintf(key, sizeof(key), "%s/%s", name, k->version);
	c = cache_find(key, o->rv);
	if (!c) {
		c = proxy_table_crd_cols_parse(o->json, o->len, k->version);
		if (c)
			cache_put(key, o->rv, c);
	}
	cache_obj_put(o);
	return c;
}

static struct proxy_table_crd_cols *
cols_copy(const struct proxy_table_crd_cols *c)
{
	struct proxy_table_crd_cols *d =
		xcalloc(1, sizeof(*d) + (size_t)c->n * sizeof(d->c[0]));
	if (!d)
		return NULL;
	for (int i = 0; i < c->n; i++) {
		const struct crd_col *a = &c->c[i];
		struct crd_col *b = &d->c[d->n++];
		*b = (struct crd_col){ xstrdup(a->name),   xstrdup(a->type),
				       xstrdup(a->format), xstrdup(a->desc),
				       xstrdup(a->path),   a->priority };
		if (!b->name || !b->type || !b->format || !b->desc ||
		    !b->path) {
			proxy_table_crd_cols_free(d);
			return NULL;
		}
	}
	return d;
}

void proxy_table_crd_definitions(struct buf *b,
				 const struct proxy_table_crd_cols *c)
{
	buf_adds(b, "[{\"name\":\"Name\",\"type\":\"string\",\"format\":"
		    "\"name\",\"description\":");
	buf_add_json_str(b, proxy_table_cols_name_description,
			 strlen(proxy_table_cols_name_description));
	buf_adds(b, ",\"priority\":0}");
	for (int i = 0; i < c->n; i++) {
		const struct crd_col *col = &c->c[i];
		buf_adds(b, ",{\"name\":");
		buf_add_json_str(b, col->name, strlen(col->name));
		buf_adds(b, ",\"type\":");
		buf_add_json_str(b, col->type, strlen(col->type));
		buf_adds(b, ",\"format\":");
		buf_add_json_str(b, col->format, strlen(col->format));
		buf_adds(b, ",\"description\":");
		buf_add_json_str(b, col->desc, strlen(col->desc));
		buf_printf(b, ",\"priority\":%d}", col->priority);
	}
	buf_addc(b, ']');
}

/* A JSON number's text as an int64, the fraction dropped. */
static bool number_i64(const char *s, size_t n, long long *out)
{
	char tmp[64];
	char *end;
	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (!strpbrk(tmp, ".eE")) {
		*out = strtoll(tmp, &end, 10);
		return *end == '\0';
	}
	double f = strtod(tmp, &end);
	/* beyond int64 (1e400 is inf) no integer stands for it: the cell
	 * is null, as for a value that is not a number */
	if (*end != '\0' ||
	    !(f > -9223372036854775808.0 && f < 9223372036854775808.0))
		return false;
	*out = (long long)f;
	return true;
}

static void cell(struct buf *b, const struct crd_col *col,
		 const struct json_doc *d, time_t now)
{
	int v = proxy_table_jsonpath_first(d, 0, col->path);
	int type = v >= 0 ? json_type(d, v) : -1;
	size_t n = 0;
	const char *raw = v >= 0 ? json_raw(d, v, &n) : NULL;
	bool str = type == JSMN_STRING;
	bool null = v < 0 || (type == JSMN_PRIMITIVE && n == 4 &&
			      !memcmp(raw, "null", 4));
	bool boolean = type == JSMN_PRIMITIVE && (*raw == 't' || *raw == 'f');
	bool number = type == JSMN_PRIMITIVE && !null && !boolean;

	if (null) {
		buf_adds(b, "null");
	} else if (!strcmp(col->type, "string")) {
		if (str) {
			char *s = str_of(d, v);
			buf_add_json_str(b, s, strlen(s));
			free(s);
		} else {
			/* the value's JSON text, as jsonpath prints it */
			buf_add_json_str(b, raw, n);
		}
	} else if (!strcmp(col->type, "integer")) {
		long long i;
		if (number && number_i64(raw, n, &i))
			buf_printf(b, "%lld", i);
		else
			buf_adds(b, "null");
	} else if (!strcmp(col->type, "number")) {
		if (number)
			buf_add(b, raw, n);
		else
			buf_adds(b, "null");
	} else if (!strcmp(col->type, "boolean")) {
		if (boolean)
			buf_add(b, raw, n);
		else
			buf_adds(b, "null");
	} else if (!strcmp(col->type, "date") && str) {
		int64_t t;
		char age[32];
		if (!n || (n == 4 && !memcmp(raw, "null", 4)))
			snprintf(age, sizeof(age), "<unknown>"); /* zero time */
		else if (cache_parse_time(raw, n, &t))
			snprintf(age, sizeof(age), "<invalid>");
		else if (t == -62135596800LL) /* 0001-01-01T00:00:00Z */
			snprintf(age, sizeof(age), "<unknown>");
		else
			proxy_table_age_human((int64_t)now - t, age,
					      sizeof(age));
		buf_add_json_str(b, age, strlen(age));
	} else {
		buf_adds(b, "null");
	}
}

void proxy_table_crd_cells(struct buf *b, const struct proxy_table_crd_cols *c,
			   const struct json_doc *d, time_t now)
{
	char *name = str_of(d, json_path(d, 0, "metadata.name"));
	buf_add_json_str(b, name, strlen(name));
	free(name);
	for (int i = 0; i < c->n; i++) {
		buf_addc(b, ',');
		cell(b, &c->c[i], d, now);
	}
}
