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
 * The file reads top to bottom: helpers, the cell functions by area, then
 * the table itself, one column array per kind and printers[] naming them.
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
#include "proxy/age.h"
#include "proxy/table_pod.h"

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

/* json_str_eq for a token that may be absent (-1). */
static bool str_eq(const struct json_doc *d, int t, const char *s)
{
	return t >= 0 && json_str_eq(d, t, s);
}

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

/* qsort, which must not be given a NULL base even for no items. */
static void sort_n(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
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
	if (n && json_type(r->d, m) != JSMN_OBJECT)
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
	sort_n(kv, (size_t)i, sizeof(*kv), cmp_str);
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
			sort_n(v, (size_t)j, sizeof(*v), cmp_str);
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
	sort_n(rq, (size_t)i, sizeof(*rq), cmp_req);
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
		if (str_eq(d, json_get(d, c, "type"), type))
			return str_eq(d, json_get(d, c, "status"), "True");
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

/* CLUSTER-IP: spec.clusterIPs[0] (spec.clusterIP for an object written
 * before there were several), "<none>". */
static void c_svc_cluster_ip(struct buf *b, const struct tc_row *r,
			     const char *arg)
{
	int ips = at(r, "spec.clusterIPs");
	char *ip = dup_str(r->d, members(r->d, ips) ? json_first(r->d, ips) :
						      at(r, "spec.clusterIP"));
	(void)arg;
	put_str(b, ip[0] ? ip : "<none>");
	free(ip);
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
	sort_n(v, (size_t)i, sizeof(*v), cmp_str);
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
	if (str_eq(r->d, type, "ClusterIP") || str_eq(r->d, type, "NodePort")) {
		join_strs(&s, r->d, ext, ",");
		sb_put(b, &s, "<none>");
	} else if (str_eq(r->d, type, "LoadBalancer")) {
		lb_ingress(&s, r->d, at(r, "status.loadBalancer.ingress"));
		join_strs(&s, r->d, ext, ",");
		sb_put(b, &s, "<pending>");
	} else if (str_eq(r->d, type, "ExternalName")) {
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
static void c_created_at(struct buf *b, const struct tc_row *r, const char *arg)
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

/* ---- RBAC, classes, ingresses, PDBs, endpoint slices ---- */

/* ROLE of a (Cluster)RoleBinding: Kind/Name. */
static void c_role_ref(struct buf *b, const struct tc_row *r, const char *arg)
{
	char *kind = dup_str(r->d, at(r, "roleRef.kind"));
	char *name = dup_str(r->d, at(r, "roleRef.name"));
	struct buf s = BUF_INIT;
	(void)arg;
	buf_printf(&s, "%s/%s", kind, name);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(kind);
	free(name);
}

/* USERS, GROUPS or SERVICEACCOUNTS of a binding (arg: the subject kind),
 * joined by ", "; a service account as namespace/name. */
static void c_subjects(struct buf *b, const struct tc_row *r, const char *arg)
{
	int subs = at(r, "subjects");
	struct sbuf s = { BUF_INIT, 0 };
	for (int x = members(r->d, subs) ? json_first(r->d, subs) : -1; x > 0;
	     x = json_next(r->d, subs, x)) {
		if (!str_eq(r->d, json_get(r->d, x, "kind"), arg))
			continue;
		char *name = dup_str(r->d, json_get(r->d, x, "name"));
		char *ns = dup_str(r->d, json_get(r->d, x, "namespace"));
		struct buf t = BUF_INIT;
		if (!strcmp(arg, "ServiceAccount") && ns[0])
			buf_printf(&t, "%s/%s", ns, name);
		else
			buf_adds(&t, name);
		buf_addc(&t, '\0');
		sb_item(&s, ", ", t.p ? t.p : "", t.p ? strlen(t.p) : 0);
		buf_free(&t);
		free(name);
		free(ns);
	}
	sb_put(b, &s, "");
}

/* A boolean at arg, false when absent. */
static void c_bool(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = at(r, arg);
	size_t n;
	const char *s = t >= 0 ? json_raw(r->d, t, &n) : NULL;
	buf_adds(b, s && *s == 't' ? "true" : "false");
}

/* An IntOrString at arg as its String(), "N/A" when unset. */
static void c_int_or_str(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = at(r, arg);
	size_t n;
	if (is_null(r->d, t)) {
		put_str(b, "N/A");
	} else if (is_str(r->d, t)) {
		put_token_str(b, r->d, t);
	} else {
		const char *s = json_raw(r->d, t, &n);
		buf_add_json_str(b, s, n);
	}
}

/* NAME of a StorageClass, " (default)" after the default one. */
static void c_sc_name(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ann = at(r, "metadata.annotations");
	char *name = dup_str(r->d, at(r, "metadata.name"));
	struct buf s = BUF_INIT;
	(void)arg;
	buf_adds(&s, name);
	if (str_eq(r->d,
		   json_get(r->d, ann,
			    "storageclass.kubernetes.io/is-default-class"),
		   "true") ||
	    str_eq(r->d,
		   json_get(r->d, ann,
			    "storageclass.beta.kubernetes.io/is-default-class"),
		   "true"))
		buf_adds(&s, " (default)");
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(name);
}

/* The string at arg, or the default after the first ':' in arg. */
static void c_str_default(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	char path[128];
	const char *colon = strchr(arg, ':');
	snprintf(path, sizeof(path), "%.*s", (int)(colon - arg), arg);
	int t = at(r, path);
	if (is_null(r->d, t))
		put_str(b, colon + 1);
	else
		put_token_str(b, r->d, t);
}

/* PARAMETERS of an IngressClass: Kind[.apiGroup]/name, or <none>. */
static void c_ic_params(struct buf *b, const struct tc_row *r, const char *arg)
{
	int p = at(r, "spec.parameters");
	struct buf s = BUF_INIT;
	(void)arg;
	if (is_null(r->d, p)) {
		put_str(b, "<none>");
		return;
	}
	char *kind = dup_str(r->d, json_get(r->d, p, "kind"));
	char *name = dup_str(r->d, json_get(r->d, p, "name"));
	int g = json_get(r->d, p, "apiGroup");
	buf_adds(&s, kind);
	if (!is_null(r->d, g)) {
		char *group = dup_str(r->d, g);
		buf_printf(&s, ".%s", group);
		free(group);
	}
	buf_printf(&s, "/%s", name);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(kind);
	free(name);
}

/* HOSTS of an Ingress: up to three rule hosts, "*" when none. */
static void c_ing_hosts(struct buf *b, const struct tc_row *r, const char *arg)
{
	int rules = at(r, "spec.rules"), n = members(r->d, rules);
	struct sbuf s = { BUF_INIT, 0 };
	bool more = false;
	(void)arg;
	for (int x = n ? json_first(r->d, rules) : -1; x > 0;
	     x = json_next(r->d, rules, x)) {
		int h = json_get(r->d, x, "host");
		if (s.n == 3)
			more = true;
		if (!more && is_str(r->d, h) && json_str_len(r->d, h))
			sb_token(&s, ",", r->d, h);
	}
	if (!s.n) {
		buf_free(&s.b);
		put_str(b, "*");
		return;
	}
	if (more)
		buf_printf(&s.b, " + %d more...", n - 3);
	sb_put(b, &s, "");
}

static void c_ing_address(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	struct sbuf s = { BUF_INIT, 0 };
	(void)arg;
	lb_ingress(&s, r->d, at(r, "status.loadBalancer.ingress"));
	sb_put(b, &s, "");
}

static void c_ing_ports(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	put_str(b, members(r->d, at(r, "spec.tls")) ? "80, 443" : "80");
}

/* Up to three items, then " + N more...", "<unset>" when none. */
static void more_or_unset(struct buf *b, struct sbuf *s, int count)
{
	if (count > 3)
		buf_printf(&s->b, " + %d more...", count - 3);
	if (!s->n) {
		buf_free(&s->b);
		put_str(b, "<unset>");
		return;
	}
	sb_put(b, s, "");
}

static void c_es_ports(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ps = at(r, "ports"), count = 0;
	struct sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int p = members(r->d, ps) ? json_first(r->d, ps) : -1; p > 0;
	     p = json_next(r->d, ps, p), count++) {
		int port = json_get(r->d, p, "port");
		int name = json_get(r->d, p, "name");
		if (s.n == 3)
			continue;
		if (!is_null(r->d, port)) {
			char num[24];
			snprintf(num, sizeof(num), "%lld",
				 (long long)int_of(r->d, port, 0));
			sb_item(&s, ",", num, strlen(num));
		} else if (!is_null(r->d, name)) {
			sb_token(&s, ",", r->d, name);
		} else {
			sb_item(&s, ",", "*", 1);
		}
	}
	more_or_unset(b, &s, count);
}

static void c_es_endpoints(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	int eps = at(r, "endpoints"), count = 0;
	struct sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int e = members(r->d, eps) ? json_first(r->d, eps) : -1; e > 0;
	     e = json_next(r->d, eps, e)) {
		int as = json_get(r->d, e, "addresses");
		for (int a = members(r->d, as) ? json_first(r->d, as) : -1;
		     a > 0; a = json_next(r->d, as, a), count++)
			if (s.n < 3)
				sb_token(&s, ",", r->d, a);
	}
	more_or_unset(b, &s, count);
}

/* ---- nodes ---- */

static void c_node_status(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	int conds = at(r, "status.conditions");
	const char *st = "Unknown";
	struct buf s = BUF_INIT;
	(void)arg;
	/* the last Ready condition wins, as the printer's map does */
	for (int c = members(r->d, conds) ? json_first(r->d, conds) : -1; c > 0;
	     c = json_next(r->d, conds, c))
		if (str_eq(r->d, json_get(r->d, c, "type"), "Ready"))
			st = str_eq(r->d, json_get(r->d, c, "status"), "True") ?
				     "Ready" :
				     "NotReady";
	buf_adds(&s, st);
	int u = at(r, "spec.unschedulable");
	size_t n;
	if (u >= 0 && *json_raw(r->d, u, &n) == 't')
		buf_adds(&s, ",SchedulingDisabled");
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
}

static void c_node_roles(struct buf *b, const struct tc_row *r, const char *arg)
{
	static const char pfx[] = "node-role.kubernetes.io/";
	int m = at(r, "metadata.labels"), n = members(r->d, m), i = 0;
	char **v = n ? xcalloc((size_t)n, sizeof(*v)) : NULL;
	struct sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int k = n && json_type(r->d, m) == JSMN_OBJECT ?
			     json_first(r->d, m) :
			     -1;
	     k > 0 && i < n; k = json_next(r->d, m, k)) {
		char *key = dup_str(r->d, k), *val = dup_str(r->d, k + 1);
		if (!strncmp(key, pfx, sizeof(pfx) - 1) && key[sizeof(pfx) - 1])
			v[i++] = xstrdup(key + sizeof(pfx) - 1);
		else if (!strcmp(key, "kubernetes.io/role") && val[0])
			v[i++] = xstrdup(val);
		free(key);
		free(val);
	}
	sort_n(v, (size_t)i, sizeof(*v), cmp_str);
	for (int j = 0; j < i; j++)
		if (!j || strcmp(v[j], v[j - 1]))
			sb_item(&s, ",", v[j], strlen(v[j]));
	for (int j = 0; j < i; j++)
		free(v[j]);
	free(v);
	sb_put(b, &s, "<none>");
}

/* The first address of type arg, "<none>". */
static void c_node_addr(struct buf *b, const struct tc_row *r, const char *arg)
{
	int as = at(r, "status.addresses");
	for (int a = members(r->d, as) ? json_first(r->d, as) : -1; a > 0;
	     a = json_next(r->d, as, a))
		if (str_eq(r->d, json_get(r->d, a, "type"), arg)) {
			put_token_str(b, r->d, json_get(r->d, a, "address"));
			return;
		}
	put_str(b, "<none>");
}

/* The string at arg, "<unknown>" when empty. */
static void c_str_or_unknown(struct buf *b, const struct tc_row *r,
			     const char *arg)
{
	char *s = dup_str(r->d, at(r, arg));
	put_str(b, s[0] ? s : "<unknown>");
	free(s);
}

/* ---- volumes ---- */

/* A resource quantity as stored ("0" when absent). */
static void c_quantity(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = at(r, arg);
	if (is_str(r->d, t))
		put_token_str(b, r->d, t);
	else
		put_str(b, "0");
}

/* Access modes as RWO,ROX,RWX,RWOP (that order, each once). */
static void access_modes(struct buf *b, const struct tc_row *r, int modes)
{
	static const char *const names[][2] = {
		{ "ReadWriteOnce", "RWO" },
		{ "ReadOnlyMany", "ROX" },
		{ "ReadWriteMany", "RWX" },
		{ "ReadWriteOncePod", "RWOP" },
	};
	struct sbuf s = { BUF_INIT, 0 };
	for (int i = 0; i < 4; i++)
		for (int m = members(r->d, modes) ? json_first(r->d, modes) :
						    -1;
		     m > 0; m = json_next(r->d, modes, m))
			if (str_eq(r->d, m, names[i][0])) {
				sb_item(&s, ",", names[i][1],
					strlen(names[i][1]));
				break;
			}
	sb_put(b, &s, "");
}

static void c_access_modes(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	access_modes(b, r, at(r, arg));
}

/* The phase at arg, "Terminating" while being deleted. */
static void c_phase(struct buf *b, const struct tc_row *r, const char *arg)
{
	if (!is_null(r->d, at(r, "metadata.deletionTimestamp")))
		put_str(b, "Terminating");
	else
		c_str(b, r, arg);
}

static void c_pv_claim(struct buf *b, const struct tc_row *r, const char *arg)
{
	int c = at(r, "spec.claimRef");
	(void)arg;
	if (is_null(r->d, c)) {
		put_str(b, "");
		return;
	}
	char *ns = dup_str(r->d, json_get(r->d, c, "namespace"));
	char *name = dup_str(r->d, json_get(r->d, c, "name"));
	struct buf s = BUF_INIT;
	buf_printf(&s, "%s/%s", ns, name);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(ns);
	free(name);
}

/* The storage class: the beta annotation, else spec.storageClassName. */
static void c_storage_class(struct buf *b, const struct tc_row *r,
			    const char *arg)
{
	int a = json_get(r->d, at(r, "metadata.annotations"),
			 "volume.beta.kubernetes.io/storage-class");
	(void)arg;
	put_token_str(b, r->d, a >= 0 ? a : at(r, "spec.storageClassName"));
}

/* What a bound claim has: capacity or access modes from its status,
 * nothing while unbound. */
static void c_pvc_bound(struct buf *b, const struct tc_row *r, const char *arg)
{
	char *vol = dup_str(r->d, at(r, "spec.volumeName"));
	if (!vol[0])
		put_str(b, "");
	else if (!strcmp(arg, "status.accessModes"))
		access_modes(b, r, at(r, arg));
	else
		c_quantity(b, r, arg);
	free(vol);
}

/* ---- horizontal pod autoscalers ---- */

static void c_hpa_ref(struct buf *b, const struct tc_row *r, const char *arg)
{
	char *kind = dup_str(r->d, at(r, "spec.scaleTargetRef.kind"));
	char *name = dup_str(r->d, at(r, "spec.scaleTargetRef.name"));
	struct buf s = BUF_INIT;
	(void)arg;
	buf_printf(&s, "%s/%s", kind, name);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
	free(kind);
	free(name);
}

/* The quantity string at path under t, or "<unknown>". */
static char *qty(const struct json_doc *d, int t, const char *path)
{
	int v = t >= 0 ? json_path(d, t, path) : -1;
	return is_str(d, v) ? dup_str(d, v) : xstrdup("<unknown>");
}

/* One metric of formatHPAMetrics: spec m, status st (or -1). */
static void hpa_metric(struct buf *out, const struct json_doc *d, int m, int st)
{
	char *type = dup_str(d, json_get(d, m, "type"));
	const char *src = !strcmp(type, "External") ? "external" :
			  !strcmp(type, "Pods")	    ? "pods" :
			  !strcmp(type, "Object")   ? "object" :
			  !strcmp(type, "Resource") ? "resource" :
			  !strcmp(type, "ContainerResource") ?
						      "containerResource" :
						      NULL;
	int spec = src ? json_get(d, m, src) : -1;
	int cur = src && st >= 0 ? json_get(d, st, src) : -1;
	int target = json_get(d, spec, "target");
	bool avg = !is_null(d, json_get(d, target, "averageValue"));
	char *c = NULL, *t = NULL;

	if (!src) {
		buf_adds(out, "<unknown type>");
	} else if (!strcmp(src, "pods")) {
		c = qty(d, cur, "current.averageValue");
		t = qty(d, target, "averageValue");
		buf_printf(out, "%s/%s", c, t);
	} else if (!strcmp(src, "external") || !strcmp(src, "object")) {
		c = qty(d, cur, avg ? "current.averageValue" : "current.value");
		t = qty(d, target, avg ? "averageValue" : "value");
		buf_printf(out, avg ? "%s/%s (avg)" : "%s/%s", c, t);
	} else {
		char *name = dup_str(d, json_get(d, spec, "name"));
		if (avg) {
			c = qty(d, cur, "current.averageValue");
			t = qty(d, target, "averageValue");
		} else {
			int cu = cur >= 0 ?
					 json_path(
						 d, cur,
						 "current.averageUtilization") :
					 -1;
			int tu = json_get(d, target, "averageUtilization");
			char tmp[32];
			if (is_null(d, cu)) {
				c = xstrdup("<unknown>");
			} else {
				snprintf(tmp, sizeof(tmp), "%lld%%",
					 (long long)int_of(d, cu, 0));
				c = xstrdup(tmp);
			}
			if (is_null(d, tu)) {
				t = xstrdup("<auto>");
			} else {
				snprintf(tmp, sizeof(tmp), "%lld%%",
					 (long long)int_of(d, tu, 0));
				t = xstrdup(tmp);
			}
		}
		buf_printf(out, "%s: %s/%s", name, c, t);
		free(name);
	}
	free(c);
	free(t);
	free(type);
}

/* TARGETS: the first two metrics, current/target each, then
 * " + N more..."; "<none>" without metrics. */
static void c_hpa_targets(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	int ms = at(r, "spec.metrics"), sts = at(r, "status.currentMetrics");
	int n = members(r->d, ms), nst = members(r->d, sts), i = 0;
	struct buf s = BUF_INIT;
	(void)arg;
	if (!n) {
		put_str(b, "<none>");
		return;
	}
	for (int m = json_first(r->d, ms); m > 0 && i < 2;
	     m = json_next(r->d, ms, m), i++) {
		int st = -1, k = 0;
		for (int x = i < nst ? json_first(r->d, sts) : -1; x > 0;
		     x = json_next(r->d, sts, x))
			if (k++ == i) {
				st = x;
				break;
			}
		if (i)
			buf_adds(&s, ", ");
		hpa_metric(&s, r->d, m, st);
	}
	if (n > 2)
		buf_printf(&s, " + %d more...", n - 2);
	buf_addc(&s, '\0');
	put_str(b, s.p);
	buf_free(&s);
}

static void c_hpa_min(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = at(r, "spec.minReplicas");
	char s[24];
	(void)arg;
	if (is_null(r->d, t)) {
		put_str(b, "<unset>");
		return;
	}
	snprintf(s, sizeof(s), "%lld", (long long)int_of(r->d, t, 0));
	put_str(b, s);
}

/* ---- pods ---- */

static void c_pod_ready(struct buf *b, const struct tc_row *r, const char *arg)
{
	struct proxy_pod_sum sum;
	char s[48];
	(void)arg;
	proxy_pod_summary(r->d, r->now, &sum);
	snprintf(s, sizeof(s), "%d/%d", sum.ready, sum.total);
	put_str(b, s);
}

static void c_pod_status(struct buf *b, const struct tc_row *r, const char *arg)
{
	struct proxy_pod_sum sum;
	(void)arg;
	proxy_pod_summary(r->d, r->now, &sum);
	put_str(b, sum.status);
}

static void c_pod_restarts(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	struct proxy_pod_sum sum;
	(void)arg;
	proxy_pod_summary(r->d, r->now, &sum);
	put_str(b, sum.restarts);
}

/* IP: the first of status.podIPs (status.podIP for an object written
 * before there were several), "<none>". */
static void c_pod_ip(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ips = at(r, "status.podIPs");
	char *ip = dup_str(r->d,
			   members(r->d, ips) ?
				   json_get(r->d, json_first(r->d, ips), "ip") :
				   at(r, "status.podIP"));
	(void)arg;
	put_str(b, ip[0] ? ip : "<none>");
	free(ip);
}

/* The string at arg, "<none>" when absent or empty. */
static void c_str_or_none_empty(struct buf *b, const struct tc_row *r,
				const char *arg)
{
	char *s = dup_str(r->d, at(r, arg));
	put_str(b, s[0] ? s : "<none>");
	free(s);
}

/* READINESS GATES: how many of them have a True condition, of how many;
 * "<none>" without gates. */
static void c_pod_gates(struct buf *b, const struct tc_row *r, const char *arg)
{
	int gates = at(r, "spec.readinessGates"),
	    conds = at(r, "status.conditions");
	int ok = 0;
	char s[48];
	(void)arg;
	if (!members(r->d, gates)) {
		put_str(b, "<none>");
		return;
	}
	for (int g = json_first(r->d, gates); g > 0;
	     g = json_next(r->d, gates, g)) {
		char *type = dup_str(r->d, json_get(r->d, g, "conditionType"));
		for (int c = members(r->d, conds) ? json_first(r->d, conds) :
						    -1;
		     c > 0; c = json_next(r->d, conds, c))
			if (str_eq(r->d, json_get(r->d, c, "type"), type)) {
				ok += str_eq(r->d, json_get(r->d, c, "status"),
					     "True");
				break;
			}
		free(type);
	}
	snprintf(s, sizeof(s), "%d/%d", ok, members(r->d, gates));
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

static const struct proxy_col pod_cols[] = {
	NAME_COL,
	{ "Ready", "string", "",
	  "The aggregate readiness state of this pod for accepting traffic.", 0,
	  c_pod_ready, NULL },
	{ "Status", "string", "",
	  "The aggregate status of the containers in this pod.", 0,
	  c_pod_status, NULL },
	{ "Restarts", "string", "",
	  "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
	  0, c_pod_restarts, NULL },
	AGE_COL,
	{ "IP", "string", "",
	  "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
	  1, c_pod_ip, NULL },
	{ "Node", "string", "",
	  "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
	  1, c_str_or_none_empty, "spec.nodeName" },
	{ "Nominated Node", "string", "",
	  "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
	  1, c_str_or_none_empty, "status.nominatedNodeName" },
	{ "Readiness Gates", "string", "",
	  "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
	  1, c_pod_gates, NULL },
};

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
	  c_svc_cluster_ip, NULL },
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

static const struct proxy_col created_cols[] = {
	NAME_COL,
	{ "Created At", "date", "", age_desc, 0, c_created_at, NULL },
};

static const struct proxy_col rolebinding_cols[] = {
	NAME_COL,
	{ "Role", "string", "",
	  "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
	  0, c_role_ref, NULL },
	AGE_COL,
	{ "Users", "string", "", "Users in the roleBinding", 1, c_subjects,
	  "User" },
	{ "Groups", "string", "", "Groups in the roleBinding", 1, c_subjects,
	  "Group" },
	{ "ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding",
	  1, c_subjects, "ServiceAccount" },
};

static const struct proxy_col clusterrolebinding_cols[] = {
	NAME_COL,
	{ "Role", "string", "",
	  "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
	  0, c_role_ref, NULL },
	AGE_COL,
	{ "Users", "string", "", "Users in the clusterRoleBinding", 1,
	  c_subjects, "User" },
	{ "Groups", "string", "", "Groups in the clusterRoleBinding", 1,
	  c_subjects, "Group" },
	{ "ServiceAccounts", "string", "",
	  "ServiceAccounts in the clusterRoleBinding", 1, c_subjects,
	  "ServiceAccount" },
};

static const struct proxy_col priorityclass_cols[] = {
	NAME_COL,
	{ "Value", "integer", "",
	  "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
	  0, c_int, "value" },
	{ "Global-Default", "boolean", "",
	  "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
	  0, c_bool, "globalDefault" },
	AGE_COL,
	{ "PreemptionPolicy", "string", "",
	  "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
	  1, c_str, "preemptionPolicy" },
};

static const struct proxy_col ingressclass_cols[] = {
	NAME_COL,
	{ "Controller", "string", "",
	  "Controller that is responsible for handling this class", 0, c_str,
	  "spec.controller" },
	{ "Parameters", "string", "",
	  "A reference to a resource with additional parameters", 0,
	  c_ic_params, NULL },
	AGE_COL,
};

static const struct proxy_col ingress_cols[] = {
	NAME_COL,
	{ "Class", "string", "",
	  "The name of the IngressClass resource that should be used for additional configuration",
	  0, c_str_or_none, "spec.ingressClassName" },
	{ "Hosts", "string", "",
	  "Hosts that incoming requests are matched against before the ingress rule",
	  0, c_ing_hosts, NULL },
	{ "Address", "string", "",
	  "Address is a list containing ingress points for the load-balancer",
	  0, c_ing_address, NULL },
	{ "Ports", "string", "", "Ports of TLS configurations that open", 0,
	  c_ing_ports, NULL },
	AGE_COL,
};

static const struct proxy_col networkpolicy_cols[] = {
	NAME_COL,
	{ "Pod-Selector", "string", "",
	  "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
	  0, c_selector, "spec.podSelector" },
	AGE_COL,
};

static const struct proxy_col storageclass_cols[] = {
	{ "Name", "string", "name", name_desc, 0, c_sc_name, NULL },
	{ "Provisioner", "string", "",
	  "provisioner indicates the type of the provisioner.", 0, c_str,
	  "provisioner" },
	{ "ReclaimPolicy", "string", "",
	  "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
	  0, c_str_default, "reclaimPolicy:Delete" },
	{ "VolumeBindingMode", "string", "",
	  "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
	  0, c_str_default, "volumeBindingMode:Immediate" },
	{ "AllowVolumeExpansion", "string", "",
	  "allowVolumeExpansion shows whether the storage class allow volume expand.",
	  0, c_bool, "allowVolumeExpansion" },
	AGE_COL,
};

static const struct proxy_col replicationcontroller_cols[] = {
	NAME_COL,
	{ "Desired", "integer", "",
	  "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
	  0, c_desired, NULL },
	{ "Current", "integer", "",
	  "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
	  0, c_int, "status.replicas" },
	{ "Ready", "integer", "",
	  "The number of ready replicas for this replication controller.", 0,
	  c_int, "status.readyReplicas" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, c_labels, "spec.selector" },
};

static const struct proxy_col pdb_cols[] = {
	NAME_COL,
	{ "Min Available", "string", "",
	  "The minimum number of pods that must be available.", 0, c_int_or_str,
	  "spec.minAvailable" },
	{ "Max Unavailable", "string", "",
	  "The maximum number of pods that may be unavailable.", 0,
	  c_int_or_str, "spec.maxUnavailable" },
	{ "Allowed Disruptions", "integer", "",
	  "Calculated number of pods that may be disrupted at this time.", 0,
	  c_int, "status.disruptionsAllowed" },
	AGE_COL,
};

static const struct proxy_col endpointslice_cols[] = {
	NAME_COL,
	{ "AddressType", "string", "",
	  "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.",
	  0, c_str, "addressType" },
	{ "Ports", "string", "",
	  "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.",
	  0, c_es_ports, NULL },
	{ "Endpoints", "string", "",
	  "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
	  0, c_es_endpoints, NULL },
	AGE_COL,
};

static const struct proxy_col node_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "The status of the node", 0, c_node_status,
	  NULL },
	{ "Roles", "string", "", "The roles of the node", 0, c_node_roles,
	  NULL },
	AGE_COL,
	{ "Version", "string", "", "Kubelet Version reported by the node.", 0,
	  c_str, "status.nodeInfo.kubeletVersion" },
	{ "Internal-IP", "string", "",
	  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
	  1, c_node_addr, "InternalIP" },
	{ "External-IP", "string", "",
	  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
	  1, c_node_addr, "ExternalIP" },
	{ "OS-Image", "string", "",
	  "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
	  1, c_str_or_unknown, "status.nodeInfo.osImage" },
	{ "Kernel-Version", "string", "",
	  "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
	  1, c_str_or_unknown, "status.nodeInfo.kernelVersion" },
	{ "Container-Runtime", "string", "",
	  "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
	  1, c_str_or_unknown, "status.nodeInfo.containerRuntimeVersion" },
};

static const struct proxy_col pv_cols[] = {
	NAME_COL,
	{ "Capacity", "string", "",
	  "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
	  0, c_quantity, "spec.capacity.storage" },
	{ "Access Modes", "string", "",
	  "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
	  0, c_access_modes, "spec.accessModes" },
	{ "Reclaim Policy", "string", "",
	  "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
	  0, c_str, "spec.persistentVolumeReclaimPolicy" },
	{ "Status", "string", "",
	  "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
	  0, c_phase, "status.phase" },
	{ "Claim", "string", "",
	  "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
	  0, c_pv_claim, NULL },
	{ "StorageClass", "string", "", "StorageClass of the pv", 0,
	  c_storage_class, NULL },
	{ "VolumeAttributesClass", "string", "",
	  "VolumeAttributesClass of the pv", 0, c_str_default,
	  "spec.volumeAttributesClassName:<unset>" },
	{ "Reason", "string", "",
	  "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
	  0, c_str, "status.reason" },
	AGE_COL,
	{ "VolumeMode", "string", "",
	  "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
	  1, c_str_default, "spec.volumeMode:<unset>" },
};

static const struct proxy_col pvc_cols[] = {
	NAME_COL,
	{ "Status", "string", "",
	  "phase represents the current phase of PersistentVolumeClaim.", 0,
	  c_phase, "status.phase" },
	{ "Volume", "string", "",
	  "volumeName is the binding reference to the PersistentVolume backing this claim.",
	  0, c_str, "spec.volumeName" },
	{ "Capacity", "string", "",
	  "capacity represents the actual resources of the underlying volume.",
	  0, c_pvc_bound, "status.capacity.storage" },
	{ "Access Modes", "string", "",
	  "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
	  0, c_pvc_bound, "status.accessModes" },
	{ "StorageClass", "string", "", "StorageClass of the pvc", 0,
	  c_storage_class, NULL },
	{ "VolumeAttributesClass", "string", "",
	  "VolumeAttributesClass of the pvc", 0, c_str_default,
	  "spec.volumeAttributesClassName:<unset>" },
	AGE_COL,
	{ "VolumeMode", "string", "",
	  "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
	  1, c_str_default, "spec.volumeMode:<unset>" },
};

static const struct proxy_col hpa_cols[] = {
	NAME_COL,
	{ "Reference", "string", "",
	  "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
	  0, c_hpa_ref, NULL },
	{ "Targets", "string", "",
	  "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.",
	  0, c_hpa_targets, NULL },
	{ "MinPods", "string", "",
	  "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
	  0, c_hpa_min, NULL },
	{ "MaxPods", "string", "",
	  "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
	  0, c_int, "spec.maxReplicas" },
	{ "Replicas", "string", "",
	  "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
	  0, c_int, "status.currentReplicas" },
	AGE_COL,
};

#define P(g, r, cols)                                      \
	{                                                  \
		g, r, cols, sizeof(cols) / sizeof(cols[0]) \
	}

static const struct proxy_printer printers[] = {
	P("", "pods", pod_cols),
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
	P("apiextensions.k8s.io", "customresourcedefinitions", created_cols),
	P("rbac.authorization.k8s.io", "roles", created_cols),
	P("rbac.authorization.k8s.io", "clusterroles", created_cols),
	P("rbac.authorization.k8s.io", "rolebindings", rolebinding_cols),
	P("rbac.authorization.k8s.io", "clusterrolebindings",
	  clusterrolebinding_cols),
	P("scheduling.k8s.io", "priorityclasses", priorityclass_cols),
	P("networking.k8s.io", "ingressclasses", ingressclass_cols),
	P("networking.k8s.io", "ingresses", ingress_cols),
	P("networking.k8s.io", "networkpolicies", networkpolicy_cols),
	P("storage.k8s.io", "storageclasses", storageclass_cols),
	P("", "replicationcontrollers", replicationcontroller_cols),
	P("policy", "poddisruptionbudgets", pdb_cols),
	P("discovery.k8s.io", "endpointslices", endpointslice_cols),
	P("", "nodes", node_cols),
	P("", "persistentvolumes", pv_cols),
	P("", "persistentvolumeclaims", pvc_cols),
	P("autoscaling", "horizontalpodautoscalers", hpa_cols),
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
