/*
 * table_cols: the apiserver's Table columns for the built-in kinds, as
 * one declarative table (see table_cols.h).
 *
 * A kind's printer is a list of columns; a column is its definition
 * (name, type, format, description, priority) and an extractor: a small
 * named cell function, with an optional argument (a dotted JSON path),
 * that writes one JSON cell value from the stored object. The columns,
 * their order, types and priorities, and every cell's format follow the
 * kube-apiserver v1.32 printers (kubernetes pkg/printers/internalversion);
 * the server always prints wide, so priority-1 cells are always present
 * and kubectl drops them without -o wide. Descriptions are the API
 * documentation strings the apiserver sends, word for word.
 *
 * What the apiserver defaults when an object is created (spec.replicas 1,
 * a ServicePort's protocol TCP) is read from the stored object; an object
 * stored without them prints the defaults.
 */
#include "proxy/table_cols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/parse.h"
#include "config/alloc.h"
#include "proxy/table.h"

struct tc_row {
	const struct json_doc *d;
	time_t now;
};

typedef void (*tc_cell_fn)(struct buf *b, const struct tc_row *r,
			   const char *arg);

struct proxy_col {
	const char *name, *type, *format, *desc;
	int priority;
	tc_cell_fn cell;
	const char *arg; /* the cell function's argument, often a path */
};

struct proxy_printer {
	const char *group, *resource;
	const struct proxy_col *cols;
	size_t n;
};

/* ---- reading the object ---- */

static int at(const struct tc_row *r, const char *path)
{
	return path ? json_path(r->d, 0, path) : -1;
}

static bool is_str(const struct json_doc *d, int t)
{
	return t >= 0 && json_type(d, t) == JSMN_STRING;
}

static bool is_null(const struct json_doc *d, int t)
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
static char *dup_str(const struct json_doc *d, int t)
{
	if (!is_str(d, t))
		return xstrdup("");
	size_t n = json_str_len(d, t) + 1;
	char *s = xmalloc(n);
	if (s && json_str(d, t, s, n) < 0)
		s[0] = '\0';
	return s;
}

static int64_t int_of(const struct json_doc *d, int t, int64_t dflt)
{
	int64_t v;
	if (t < 0 || json_type(d, t) != JSMN_PRIMITIVE || json_i64(d, t, &v))
		return dflt;
	return v;
}

static int members(const struct json_doc *d, int t)
{
	return t >= 0 && (json_type(d, t) == JSMN_ARRAY ||
			  json_type(d, t) == JSMN_OBJECT) ?
		       d->tok[t].size :
		       0;
}

/* A timestamp string at t as unix seconds; false when absent/zero. */
static bool time_of(const struct json_doc *d, int t, int64_t *out)
{
	size_t n;
	const char *s;
	if (!is_str(d, t))
		return false;
	s = json_raw(d, t, &n);
	return !cache_parse_time(s, n, out);
}

/* ---- writing cells ---- */

static void put_str(struct buf *b, const char *s)
{
	buf_add_json_str(b, s ? s : "", s ? strlen(s) : 0);
}

static void put_token_str(struct buf *b, const struct json_doc *d, int t)
{
	char *s = dup_str(d, t);
	put_str(b, s);
	free(s);
}

static void put_int(struct buf *b, int64_t v)
{
	buf_printf(b, "%lld", (long long)v);
}

/* translateTimestampSince: the age of t, "<unknown>" when unset. */
static void put_since(struct buf *b, const struct tc_row *r, int t)
{
	int64_t when;
	char age[32];
	if (!time_of(r->d, t, &when)) {
		put_str(b, "<unknown>");
		return;
	}
	proxy_human_age((int64_t)r->now - when, age, sizeof(age));
	put_str(b, age);
}

/* A growing string for joined lists. */
struct sbuf {
	struct buf b;
	int n; /* items added */
};

static void sb_item(struct sbuf *s, const char *sep, const char *v, size_t len)
{
	if (s->n++)
		buf_adds(&s->b, sep);
	buf_add(&s->b, v, len);
}

static void sb_token(struct sbuf *s, const char *sep, const struct json_doc *d,
		     int t)
{
	char *v = dup_str(d, t);
	sb_item(s, sep, v, strlen(v));
	free(v);
}

/* The string (NUL-terminated, "" when empty) and reset. */
static void sb_put(struct buf *out, struct sbuf *s, const char *empty)
{
	buf_addc(&s->b, '\0');
	put_str(out, s->n && s->b.p && s->b.p[0] ? s->b.p : empty);
	buf_free(&s->b);
	s->n = 0;
}

/* ---- cell functions ---- */

static void c_name(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	put_token_str(b, r->d, at(r, "metadata.name"));
}

static void c_age(struct buf *b, const struct tc_row *r, const char *arg)
{
	put_since(b, r, at(r, arg ? arg : "metadata.creationTimestamp"));
}

/* The string at arg, "" when absent. */
static void c_str(struct buf *b, const struct tc_row *r, const char *arg)
{
	put_token_str(b, r->d, at(r, arg));
}

/* The string at arg, "<none>" when absent (an unset pointer). */
static void c_str_or_none(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	int t = at(r, arg);
	if (is_null(r->d, t))
		put_str(b, "<none>");
	else
		put_token_str(b, r->d, t);
}

/* The integer at arg, 0 when absent. */
static void c_int(struct buf *b, const struct tc_row *r, const char *arg)
{
	put_int(b, int_of(r->d, at(r, arg), 0));
}

/* spec.replicas as the apiserver defaults it (1). */
static void c_desired(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	put_int(b, int_of(r->d, at(r, "spec.replicas"), 1));
}

/* The number of items of the array or map at arg. */
static void c_count(struct buf *b, const struct tc_row *r, const char *arg)
{
	put_int(b, members(r->d, at(r, arg)));
}

/* ConfigMap DATA: data and binaryData keys together. */
static void c_cm_data(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	put_int(b, members(r->d, at(r, "data")) +
			   members(r->d, at(r, "binaryData")));
}

/* READY of deployments and statefulsets: ready/desired. */
static void c_ready_of(struct buf *b, const struct tc_row *r, const char *arg)
{
	char s[48];
	(void)arg;
	snprintf(s, sizeof(s), "%lld/%lld",
		 (long long)int_of(r->d, at(r, "status.readyReplicas"), 0),
		 (long long)int_of(r->d, at(r, "spec.replicas"), 1));
	put_str(b, s);
}

/* Containers' names (or images: arg's last member after ':') joined
 * with ','; arg is "path:member". */
static void c_containers(struct buf *b, const struct tc_row *r, const char *arg)
{
	char path[128];
	const char *colon = strchr(arg, ':');
	snprintf(path, sizeof(path), "%.*s", (int)(colon - arg), arg);
	int arr = at(r, path);
	struct sbuf s = { BUF_INIT, 0 };
	for (int c = members(r->d, arr) ? json_first(r->d, arr) : -1; c > 0;
	     c = json_next(r->d, arr, c))
		sb_token(&s, ",", r->d, json_get(r->d, c, colon + 1));
	buf_addc(&s.b, '\0');
	put_str(b, s.b.p ? s.b.p : "");
	buf_free(&s.b);
}

/* labels.FormatLabels of the map at arg: k=v sorted by key, "<none>". */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void c_labels(struct buf *b, const struct tc_row *r, const char *arg)
{
	int m = at(r, arg), n = members(r->d, m), i = 0;
	if (json_type(r->d, m) != JSMN_OBJECT)
		n = 0;
	char **kv = n ? xcalloc((size_t)n, sizeof(*kv)) : NULL;
	for (int k = n ? json_first(r->d, m) : -1; k > 0 && i < n;
	     k = json_next(r->d, m, k), i++) {
		char *key = dup_str(r->d, k), *val = dup_str(r->d, k + 1);
		size_t len = strlen(key) + strlen(val) + 2;
		kv[i] = xmalloc(len);
		snprintf(kv[i], len, "%s=%s", key, val);
		free(key);
		free(val);
	}
	qsort(kv, (size_t)i, sizeof(*kv), cmp_str);
	struct sbuf s = { BUF_INIT, 0 };
	for (int j = 0; j < i; j++) {
		sb_item(&s, ",", kv[j], strlen(kv[j]));
		free(kv[j]);
	}
	free(kv);
	sb_put(b, &s, "<none>");
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
void proxy_tc_selector(struct buf *out, const struct json_doc *d, int sel)
{
	int ml = json_get(d, sel, "matchLabels");
	int me = json_get(d, sel, "matchExpressions");
	int n = (ml >= 0 && json_type(d, ml) == JSMN_OBJECT ? members(d, ml) :
							      0) +
		(me >= 0 && json_type(d, me) == JSMN_ARRAY ? members(d, me) :
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
		char *v = dup_str(d, k + 1);
		rq[i].key = dup_str(d, k);
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
		char *op = dup_str(d, json_get(d, e, "operator"));
		rq[i].key = dup_str(d, json_get(d, e, "key"));
		if (!strcmp(op, "Exists")) {
			buf_adds(&t, rq[i].key);
		} else if (!strcmp(op, "DoesNotExist")) {
			buf_printf(&t, "!%s", rq[i].key);
		} else {
			int vs = json_get(d, e, "values"), nv = members(d, vs);
			char **v = nv ? xcalloc((size_t)nv, sizeof(*v)) : NULL;
			int j = 0;
			for (int x = nv ? json_first(d, vs) : -1;
			     x > 0 && j < nv; x = json_next(d, vs, x))
				v[j++] = dup_str(d, x);
			qsort(v, (size_t)j, sizeof(*v), cmp_str);
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
	qsort(rq, (size_t)i, sizeof(*rq), cmp_req);
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
static void c_selector(struct buf *b, const struct tc_row *r, const char *arg)
{
	struct buf s = BUF_INIT;
	proxy_tc_selector(&s, r->d, at(r, arg));
	buf_addc(&s, '\0');
	put_str(b, s.p && s.p[0] ? s.p : "<none>");
	buf_free(&s);
}

/* A Deployment's selector.String(): empty stays empty. */
static void c_selector_raw(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	struct buf s = BUF_INIT;
	proxy_tc_selector(&s, r->d, at(r, arg));
	buf_addc(&s, '\0');
	put_str(b, s.p ? s.p : "");
	buf_free(&s);
}

/* printBoolPtr: "True", "False", "<unset>". */
static void c_bool_ptr(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = at(r, arg);
	size_t n;
	const char *s = t >= 0 ? json_raw(r->d, t, &n) : NULL;
	if (!s || is_null(r->d, t))
		put_str(b, "<unset>");
	else
		put_str(b, *s == 't' ? "True" : "False");
}

/* The age of the timestamp at arg, "<none>" when unset. */
static void c_since_or_none(struct buf *b, const struct tc_row *r,
			    const char *arg)
{
	int t = at(r, arg);
	if (is_null(r->d, t))
		put_str(b, "<none>");
	else
		put_since(b, r, t);
}

/* The first condition of that type decides (hasJobCondition). */
static bool cond_true(const struct json_doc *d, int conds, const char *type)
{
	for (int c = members(d, conds) ? json_first(d, conds) : -1; c > 0;
	     c = json_next(d, conds, c))
		if (json_str_eq(d, json_get(d, c, "type"), type))
			return json_str_eq(d, json_get(d, c, "status"), "True");
	return false;
}

static void c_job_status(struct buf *b, const struct tc_row *r, const char *arg)
{
	int conds = at(r, "status.conditions");
	(void)arg;
	put_str(b, cond_true(r->d, conds, "Complete") ? "Complete" :
		   cond_true(r->d, conds, "Failed")   ? "Failed" :
		   !is_null(r->d, at(r, "metadata.deletionTimestamp")) ?
						      "Terminating" :
		   cond_true(r->d, conds, "Suspended")	   ? "Suspended" :
		   cond_true(r->d, conds, "FailureTarget") ? "FailureTarget" :
							     "Running");
}

static void c_job_completions(struct buf *b, const struct tc_row *r,
			      const char *arg)
{
	char s[80];
	long long ok = (long long)int_of(r->d, at(r, "status.succeeded"), 0);
	int comp = at(r, "spec.completions");
	long long par = (long long)int_of(r->d, at(r, "spec.parallelism"), 0);
	(void)arg;
	if (!is_null(r->d, comp))
		snprintf(s, sizeof(s), "%lld/%lld", ok,
			 (long long)int_of(r->d, comp, 0));
	else if (par > 1)
		snprintf(s, sizeof(s), "%lld/1 of %lld", ok, par);
	else
		snprintf(s, sizeof(s), "%lld/1", ok);
	put_str(b, s);
}

static void c_job_duration(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	int64_t start, end;
	char s[32] = "";
	(void)arg;
	if (time_of(r->d, at(r, "status.startTime"), &start)) {
		if (!time_of(r->d, at(r, "status.completionTime"), &end))
			end = (int64_t)r->now;
		proxy_human_age(end - start, s, sizeof(s));
	}
	put_str(b, s);
}

/* The first element of the string array at arg, "<none>" if empty. */
static void c_first_or_none(struct buf *b, const struct tc_row *r,
			    const char *arg)
{
	int a = at(r, arg);
	if (members(r->d, a) && json_type(r->d, a) == JSMN_ARRAY)
		put_token_str(b, r->d, json_first(r->d, a));
	else
		put_str(b, "<none>");
}

/* The strings of the array at arg into s, joined by sep. */
static void join_strs(struct sbuf *s, const struct json_doc *d, int a,
		      const char *sep)
{
	for (int x = members(d, a) ? json_first(d, a) : -1; x > 0;
	     x = json_next(d, a, x))
		sb_token(s, sep, d, x);
}

/* A load balancer's ingress points: IPs, else hostnames, sorted and
 * without duplicates (sets.String), joined by ','. */
static void lb_ingress(struct sbuf *out, const struct json_doc *d, int ing)
{
	int n = members(d, ing), i = 0;
	char **v = n ? xcalloc((size_t)n, sizeof(*v)) : NULL;
	for (int x = n ? json_first(d, ing) : -1; x > 0 && i < n;
	     x = json_next(d, ing, x)) {
		char *ip = dup_str(d, json_get(d, x, "ip"));
		if (!ip[0]) {
			free(ip);
			ip = dup_str(d, json_get(d, x, "hostname"));
		}
		if (ip[0])
			v[i++] = ip;
		else
			free(ip);
	}
	qsort(v, (size_t)i, sizeof(*v), cmp_str);
	for (int j = 0; j < i; j++) {
		if (!j || strcmp(v[j], v[j - 1]))
			sb_item(out, ",", v[j], strlen(v[j]));
	}
	for (int j = 0; j < i; j++)
		free(v[j]);
	free(v);
}

static void c_svc_external_ip(struct buf *b, const struct tc_row *r,
			      const char *arg)
{
	int type = at(r, "spec.type"), ext = at(r, "spec.externalIPs");
	struct sbuf s = { BUF_INIT, 0 };
	(void)arg;
	if (json_str_eq(r->d, type, "ClusterIP") ||
	    json_str_eq(r->d, type, "NodePort")) {
		join_strs(&s, r->d, ext, ",");
		sb_put(b, &s, "<none>");
	} else if (json_str_eq(r->d, type, "LoadBalancer")) {
		lb_ingress(&s, r->d, at(r, "status.loadBalancer.ingress"));
		join_strs(&s, r->d, ext, ",");
		sb_put(b, &s, "<pending>");
	} else if (json_str_eq(r->d, type, "ExternalName")) {
		c_str(b, r, "spec.externalName");
	} else {
		put_str(b, "<unknown>");
	}
}

/* PORT(S): port/protocol or port:nodePort/protocol, joined by ','. */
static void c_svc_ports(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ps = at(r, "spec.ports");
	struct sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int p = members(r->d, ps) ? json_first(r->d, ps) : -1; p > 0;
	     p = json_next(r->d, ps, p)) {
		char item[160];
		int pt = json_get(r->d, p, "protocol");
		char *proto =
			is_str(r->d, pt) ? dup_str(r->d, pt) : xstrdup("TCP");
		long long port =
			(long long)int_of(r->d, json_get(r->d, p, "port"), 0);
		long long np = (long long)int_of(
			r->d, json_get(r->d, p, "nodePort"), 0);
		if (np > 0)
			snprintf(item, sizeof(item), "%lld:%lld/%s", port, np,
				 proto);
		else
			snprintf(item, sizeof(item), "%lld/%s", port, proto);
		sb_item(&s, ",", item, strlen(item));
		free(proto);
	}
	sb_put(b, &s, "<none>");
}

/* ---- events ---- */

/* An event's fields: core/v1 names, or events.k8s.io/v1's. */
struct ev_names {
	const char *first, *last, *count, *object, *message, *source,
		*controller;
};
static const struct ev_names ev_core = {
	"firstTimestamp",     "lastTimestamp", "count",
	"involvedObject",     "message",       "source",
	"reportingComponent",
};
static const struct ev_names ev_events = {
	"deprecatedFirstTimestamp",
	"deprecatedLastTimestamp",
	"deprecatedCount",
	"regarding",
	"note",
	"deprecatedSource",
	"reportingController",
};

static const struct ev_names *ev_of(const char *arg)
{
	return arg && !strcmp(arg, "events.k8s.io") ? &ev_events : &ev_core;
}

/* FIRST SEEN: firstTimestamp, else eventTime. */
static void ev_first(struct buf *b, const struct tc_row *r,
		     const struct ev_names *n)
{
	int t = at(r, n->first);
	int64_t x;
	put_since(b, r, time_of(r->d, t, &x) ? t : at(r, "eventTime"));
}

static void c_ev_first(struct buf *b, const struct tc_row *r, const char *arg)
{
	ev_first(b, r, ev_of(arg));
}

static void c_ev_last(struct buf *b, const struct tc_row *r, const char *arg)
{
	const struct ev_names *n = ev_of(arg);
	int64_t x;
	int series = at(r, "series");
	if (!is_null(r->d, series))
		put_since(b, r, json_get(r->d, series, "lastObservedTime"));
	else if (time_of(r->d, at(r, n->last), &x))
		put_since(b, r, at(r, n->last));
	else
		ev_first(b, r, n);
}

static void c_ev_count(struct buf *b, const struct tc_row *r, const char *arg)
{
	int series = at(r, "series");
	int64_t c = int_of(r->d, at(r, ev_of(arg)->count), 0);
	if (!is_null(r->d, series))
		c = int_of(r->d, json_get(r->d, series, "count"), 0);
	else if (!c)
		c = 1; /* singleton events have no count */
	put_int(b, c);
}

/* OBJECT: kind in lower case, then /name when there is one. */
static void c_ev_object(struct buf *b, const struct tc_row *r, const char *arg)
{
	int o = at(r, ev_of(arg)->object);
	char *kind = dup_str(r->d, json_get(r->d, o, "kind"));
	char *name = dup_str(r->d, json_get(r->d, o, "name"));
	struct buf s = BUF_INIT;
	for (char *p = kind; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	buf_adds(&s, kind);
	if (name[0])
		buf_printf(&s, "/%s", name);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(kind);
	free(name);
}

static void c_ev_subobject(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	put_token_str(b, r->d,
		      json_get(r->d, at(r, ev_of(arg)->object), "fieldPath"));
}

/* SOURCE: component (or the reporting controller), then ", host" (or
 * the reporting instance) when there is one. */
static void c_ev_source(struct buf *b, const struct tc_row *r, const char *arg)
{
	const struct ev_names *n = ev_of(arg);
	int src = at(r, n->source);
	char *comp = dup_str(r->d, json_get(r->d, src, "component"));
	char *host = dup_str(r->d, json_get(r->d, src, "host"));
	struct buf s = BUF_INIT;
	if (!comp[0]) {
		free(comp);
		comp = dup_str(r->d, at(r, n->controller));
	}
	if (!host[0]) {
		free(host);
		host = dup_str(r->d, at(r, "reportingInstance"));
	}
	buf_adds(&s, comp);
	if (host[0])
		buf_printf(&s, ", %s", host);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(comp);
	free(host);
}

/* MESSAGE without leading and trailing white space. */
static void c_ev_message(struct buf *b, const struct tc_row *r, const char *arg)
{
	char *m = dup_str(r->d, at(r, ev_of(arg)->message)), *s = m;
	size_t n;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
	       *s == '\v' || *s == '\f')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
		     s[n - 1] == '\r' || s[n - 1] == '\v' || s[n - 1] == '\f'))
		n--;
	buf_add_json_str(b, s, n);
	free(m);
}

/* ---- endpoints ---- */

/* ENDPOINTS: up to three ip:port (or ip for a subset without ports),
 * then " + N more...", "<none>" without subsets. */
static void c_endpoints(struct buf *b, const struct tc_row *r, const char *arg)
{
	int subsets = at(r, "subsets"), count = 0;
	struct sbuf s = { BUF_INIT, 0 };
	bool more = false;
	(void)arg;
	if (!members(r->d, subsets)) {
		put_str(b, "<none>");
		return;
	}
	for (int ss = json_first(r->d, subsets); ss > 0;
	     ss = json_next(r->d, subsets, ss)) {
		int addrs = json_get(r->d, ss, "addresses");
		int ports = json_get(r->d, ss, "ports");
		int na = members(r->d, addrs);
		if (!members(r->d, ports)) {
			count += na;
			for (int a = na ? json_first(r->d, addrs) : -1; a > 0;
			     a = json_next(r->d, addrs, a)) {
				if (s.n == 3) {
					more = true;
					break;
				}
				sb_token(&s, ",", r->d,
					 json_get(r->d, a, "ip"));
			}
			continue;
		}
		for (int p = json_first(r->d, ports); p > 0;
		     p = json_next(r->d, ports, p)) {
			long long port = (long long)int_of(
				r->d, json_get(r->d, p, "port"), 0);
			count += na;
			for (int a = na ? json_first(r->d, addrs) : -1; a > 0;
			     a = json_next(r->d, addrs, a)) {
				char *ip, hp[128];
				if (s.n == 3) {
					more = true;
					break;
				}
				ip = dup_str(r->d, json_get(r->d, a, "ip"));
				snprintf(hp, sizeof(hp),
					 strchr(ip, ':') ? "[%s]:%lld" :
							   "%s:%lld",
					 ip, port);
				sb_item(&s, ",", hp, strlen(hp));
				free(ip);
			}
		}
	}
	if (more)
		buf_printf(&s.b, " + %d more...", count - 3);
	s.n = 1;
	sb_put(b, &s, "");
}

/* The default table convertor's CREATED AT: the creation time in RFC
 * 3339, UTC (the apiserver prints a zero time for an unset one). */
static void c_created_at(struct buf *b, const struct tc_row *r,
			 const char *arg)
{
	int64_t t;
	char s[32] = "0001-01-01T00:00:00Z";
	(void)arg;
	if (time_of(r->d, at(r, "metadata.creationTimestamp"), &t)) {
		time_t tt = (time_t)t;
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	put_str(b, s);
}

/* ---- the table ---- */

static const char name_desc[] =
	"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
static const char age_desc[] =
	"CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
static const char containers_desc[] =
	"Names of each container in the template.";
static const char images_desc[] =
	"Images referenced by each container in the template.";

#define NAME_COL                                                     \
	{                                                            \
		"Name", "string", "name", name_desc, 0, c_name, NULL \
	}
#define AGE_COL                                               \
	{                                                     \
		"Age", "string", "", age_desc, 0, c_age, NULL \
	}
#define CONTAINERS(path)                                              \
	{ "Containers", "string",    "", containers_desc, 1,          \
	  c_containers, path ":name" },                               \
	{                                                             \
		"Images", "string", "", images_desc, 1, c_containers, \
			path ":image"                                 \
	}

static const struct proxy_col configmap_cols[] = {
	NAME_COL,
	{ "Data", "string", "",
	  "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
	  0, c_cm_data, NULL },
	AGE_COL,
};

static const struct proxy_col namespace_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "The status of the namespace", 0, c_str,
	  "status.phase" },
	AGE_COL,
};

static const struct proxy_col deployment_cols[] = {
	NAME_COL,
	{ "Ready", "string", "", "Number of the pod with ready state", 0,
	  c_ready_of, NULL },
	{ "Up-to-date", "string", "",
	  "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
	  0, c_int, "status.updatedReplicas" },
	{ "Available", "string", "",
	  "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
	  0, c_int, "status.availableReplicas" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
	  1, c_selector_raw, "spec.selector" },
};

static const struct proxy_col replicaset_cols[] = {
	NAME_COL,
	{ "Desired", "integer", "",
	  "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
	  0, c_desired, NULL },
	{ "Current", "integer", "",
	  "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
	  0, c_int, "status.replicas" },
	{ "Ready", "integer", "",
	  "The number of ready replicas for this replica set.", 0, c_int,
	  "status.readyReplicas" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, c_selector, "spec.selector" },
};

static const struct proxy_col statefulset_cols[] = {
	NAME_COL,
	{ "Ready", "string", "", "Number of the pod with ready state", 0,
	  c_ready_of, NULL },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
};

static const struct proxy_col daemonset_cols[] = {
	NAME_COL,
	{ "Desired", "integer", "",
	  "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
	  0, c_int, "status.desiredNumberScheduled" },
	{ "Current", "integer", "",
	  "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
	  0, c_int, "status.currentNumberScheduled" },
	{ "Ready", "integer", "",
	  "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
	  0, c_int, "status.numberReady" },
	{ "Up-to-date", "integer", "",
	  "The total number of nodes that are running updated daemon pod", 0,
	  c_int, "status.updatedNumberScheduled" },
	{ "Available", "integer", "",
	  "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
	  0, c_int, "status.numberAvailable" },
	{ "Node Selector", "string", "",
	  "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
	  0, c_labels, "spec.template.spec.nodeSelector" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, c_selector, "spec.selector" },
};

static const struct proxy_col job_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "Status of the job.", 0, c_job_status, NULL },
	{ "Completions", "string", "",
	  "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
	  0, c_job_completions, NULL },
	{ "Duration", "string", "", "Time required to complete the job.", 0,
	  c_job_duration, NULL },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, c_selector, "spec.selector" },
};

static const struct proxy_col cronjob_cols[] = {
	NAME_COL,
	{ "Schedule", "string", "",
	  "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
	  0, c_str, "spec.schedule" },
	{ "Timezone", "string", "",
	  "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
	  0, c_str_or_none, "spec.timeZone" },
	{ "Suspend", "boolean", "",
	  "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
	  0, c_bool_ptr, "spec.suspend" },
	{ "Active", "integer", "",
	  "A list of pointers to currently running jobs.", 0, c_count,
	  "status.active" },
	{ "Last Schedule", "string", "",
	  "Information when was the last time the job was successfully scheduled.",
	  0, c_since_or_none, "status.lastScheduleTime" },
	AGE_COL,
	CONTAINERS("spec.jobTemplate.spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, c_selector, "spec.jobTemplate.spec.selector" },
};

static const struct proxy_col service_cols[] = {
	NAME_COL,
	{ "Type", "string", "",
	  "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types",
	  0, c_str, "spec.type" },
	{ "Cluster-IP", "string", "",
	  "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", 0,
	  c_first_or_none, "spec.clusterIPs" },
	{ "External-IP", "string", "",
	  "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.",
	  0, c_svc_external_ip, NULL },
	{ "Port(s)", "string", "",
	  "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
	  0, c_svc_ports, NULL },
	AGE_COL,
	{ "Selector", "string", "",
	  "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
	  1, c_labels, "spec.selector" },
};

static const struct proxy_col secret_cols[] = {
	NAME_COL,
	{ "Type", "string", "",
	  "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
	  0, c_str, "type" },
	{ "Data", "string", "",
	  "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
	  0, c_count, "data" },
	AGE_COL,
};

static const struct proxy_col serviceaccount_cols[] = {
	NAME_COL,
	{ "Secrets", "string", "",
	  "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret",
	  0, c_count, "secrets" },
	AGE_COL,
};

#define EVENT_COLS(g)                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
	{ "Last Seen",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
	  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 \
	  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
	  "The time at which the most recent occurrence of this event was recorded.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
	  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        \
	  c_ev_last,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
	  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		{ "Type",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "Type of this event (Normal, Warning), new types could be added in the future",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   \
		  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_str,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            \
		  "type" },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		{ "Reason",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_str,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            \
		  "reason" },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
		{ "Object", "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "",	    "The object that this event is about.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 \
		  0,	    c_ev_object,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Subobject",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", \
		  1,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_subobject,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Source",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "The component reporting this event. Should be a short machine understandable string.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           \
		  1,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_source,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Message",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "A human-readable description of the status of this operation.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  \
		  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_message,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "First Seen",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
		  1,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_first,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Count", "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  "",	   "The number of times this event has occurred.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          \
		  1,	   c_ev_count,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
	{                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           \
		"Name", "string", "name", name_desc, 1, c_name, NULL                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
	}

static const struct proxy_col event_cols[] = { EVENT_COLS(NULL) };
static const struct proxy_col events_event_cols[] = { EVENT_COLS(
	"events.k8s.io") };

static const struct proxy_col lease_cols[] = {
	NAME_COL,
	{ "Holder", "string", "",
	  "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
	  0, c_str, "spec.holderIdentity" },
	AGE_COL,
};

static const struct proxy_col endpoints_cols[] = {
	NAME_COL,
	{ "Endpoints", "string", "",
	  "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
	  0, c_endpoints, NULL },
	AGE_COL,
};

static const struct proxy_col crd_cols[] = {
	NAME_COL,
	{ "Created At", "date", "", age_desc, 0, c_created_at, NULL },
};

#define P(g, r, cols)                                      \
	{                                                  \
		g, r, cols, sizeof(cols) / sizeof(cols[0]) \
	}

static const struct proxy_printer printers[] = {
	P("", "configmaps", configmap_cols),
	P("", "namespaces", namespace_cols),
	P("apps", "deployments", deployment_cols),
	P("apps", "replicasets", replicaset_cols),
	P("apps", "statefulsets", statefulset_cols),
	P("apps", "daemonsets", daemonset_cols),
	P("batch", "jobs", job_cols),
	P("batch", "cronjobs", cronjob_cols),
	P("", "services", service_cols),
	P("", "secrets", secret_cols),
	P("", "serviceaccounts", serviceaccount_cols),
	P("", "events", event_cols),
	P("events.k8s.io", "events", events_event_cols),
	P("coordination.k8s.io", "leases", lease_cols),
	P("", "endpoints", endpoints_cols),
	P("apiextensions.k8s.io", "customresourcedefinitions", crd_cols),
};

const struct proxy_printer *proxy_printer_find(const char *group,
					       const char *resource)
{
	for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
		if (!strcmp(printers[i].group, group) &&
		    !strcmp(printers[i].resource, resource))
			return &printers[i];
	return NULL;
}

void proxy_printer_columns(struct buf *b, const struct proxy_printer *p)
{
	buf_addc(b, '[');
	for (size_t i = 0; i < p->n; i++) {
		const struct proxy_col *c = &p->cols[i];
		buf_printf(b, "%s{\"name\":", i ? "," : "");
		put_str(b, c->name);
		buf_printf(
			b,
			",\"type\":\"%s\",\"format\":\"%s\",\"description\":",
			c->type, c->format);
		put_str(b, c->desc);
		buf_printf(b, ",\"priority\":%d}", c->priority);
	}
	buf_addc(b, ']');
}

void proxy_printer_cells(struct buf *b, const struct proxy_printer *p,
			 const struct json_doc *d, time_t now)
{
	struct tc_row r = { d, now };
	for (size_t i = 0; i < p->n; i++) {
		if (i)
			buf_addc(b, ',');
		p->cols[i].cell(b, &r, p->cols[i].arg);
	}
}
