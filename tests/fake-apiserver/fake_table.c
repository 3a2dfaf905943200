/*
 * fake_table: Table and PartialObjectMetadata output (see fake_table.h).
 *
 * Cells are computed as the apiserver's printers do (kubernetes
 * pkg/printers/internalversion): pods get printPod's Ready, Status and
 * Restarts, configmaps the count of data keys, namespaces their phase;
 * every other kind Name and Age. Ages are Go's duration.HumanDuration of
 * the time since metadata.creationTimestamp. Strings are escaped as Go's
 * encoding/json does, so "<none>" goes out as "\u003cnone\u003e".
 *
 * A row's object is PartialObjectMetadata (the object's metadata bytes as
 * stored, never re-encoded), the whole object with includeObject=Object,
 * or null with includeObject=None.
 */
#include "fake_table.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fake_crd.h"
#include "fake_json.h"
#include "fake_kinds_admin.h"
#include "fake_res.h"
#include "fake_table_cols.h"
#include "fake_table_kinds.h"

/* --- negotiation ----------------------------------------------------- */

/* The value of parameter key in the clause [p, end), into out. */
static bool clause_param(const char *p, const char *end, const char *key,
			 char *out, size_t outlen)
{
	size_t kl = strlen(key);
	while ((p = memchr(p, ';', (size_t)(end - p)))) {
		p++;
		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) > kl && strncasecmp(p, key, kl) == 0 &&
		    p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, ";,");
			while (n && v[n - 1] == ' ')
				n--;
			if (n >= outlen)
				n = outlen - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

/* Whether [p, end) names a JSON media type (or a wildcard). */
static bool clause_json(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	size_t n = strcspn(p, ";,");
	if (p + n > end)
		n = (size_t)(end - p);
	while (n && p[n - 1] == ' ')
		n--;
	return (n == 16 && strncasecmp(p, "application/json", 16) == 0) ||
	       (n == 3 && strncmp(p, "*/*", 3) == 0) ||
	       (n == 13 && strncasecmp(p, "application/*", 13) == 0);
}

bool fake_accept_next(const char **cur, struct fake_accept *a)
{
	const char *p = *cur;
	while (p && *p) {
		const char *end = p + strcspn(p, ",");
		*cur = *end ? end + 1 : end;
		if (clause_json(p, end)) {
			if (!clause_param(p, end, "as", a->as, sizeof(a->as)))
				a->as[0] = '\0';
			if (!clause_param(p, end, "g", a->g, sizeof(a->g)))
				a->g[0] = '\0';
			if (!clause_param(p, end, "v", a->v, sizeof(a->v)))
				a->v[0] = '\0';
			return true;
		}
		p = *cur;
	}
	return false;
}

void fake_as_negotiate(struct MHD_Connection *c, bool list, bool watch,
		       struct fake_as *as)
{
	const char *acc =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	const char *inc = fake_query(c, "includeObject");
	struct fake_accept a;

	*as = (struct fake_as){ FAKE_AS_OBJECT, "v1", FAKE_INCLUDE_METADATA };
	if (inc && strcmp(inc, "Object") == 0)
		as->include = FAKE_INCLUDE_OBJECT;
	else if (inc && strcmp(inc, "None") == 0)
		as->include = FAKE_INCLUDE_NONE;
	while (fake_accept_next(&acc, &a)) {
		if (!a.as[0])
			return; /* plain JSON */
		if (strcmp(a.g, "meta.k8s.io") != 0 ||
		    (strcmp(a.v, "v1") != 0 && strcmp(a.v, "v1beta1") != 0))
			continue;
		as->version = strcmp(a.v, "v1") == 0 ? "v1" : "v1beta1";
		if (strcmp(a.as, "Table") == 0) {
			as->kind = FAKE_AS_TABLE;
			return;
		}
		if ((list && strcmp(a.as, "PartialObjectMetadataList") == 0) ||
		    ((!list || watch) &&
		     strcmp(a.as, "PartialObjectMetadata") == 0)) {
			as->kind = FAKE_AS_META;
			return;
		}
	}
	as->version = "v1";
}

/* --- cells ----------------------------------------------------------- */

/* A JSON string as Go's encoding/json writes it (HTML-safe). */
static void add_go_str(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			buf_adds(b, "\\\"");
			break;
		case '\\':
			buf_adds(b, "\\\\");
			break;
		case '\n':
			buf_adds(b, "\\n");
			break;
		case '\r':
			buf_adds(b, "\\r");
			break;
		case '\t':
			buf_adds(b, "\\t");
			break;
		case '<':
		case '>':
		case '&':
			buf_printf(b, "\\u%04x", *p);
			break;
		default:
			if (*p < 0x20)
				buf_printf(b, "\\u%04x", *p);
			else
				buf_addc(b, (char)*p);
		}
	}
	buf_addc(b, '"');
}

void fake_human_duration(long long s, char *out, size_t n)
{
	long long m = s / 60, h = s / 3600, d = h / 24;

	if (s < -1)
		snprintf(out, n, "<invalid>");
	else if (s < 0)
		snprintf(out, n, "0s");
	else if (s < 120)
		snprintf(out, n, "%llds", s);
	else if (m < 10)
		snprintf(out, n, s % 60 ? "%lldm%llds" : "%lldm", m, s % 60);
	else if (m < 180)
		snprintf(out, n, "%lldm", m);
	else if (h < 8)
		snprintf(out, n, m % 60 ? "%lldh%lldm" : "%lldh", h, m % 60);
	else if (h < 48)
		snprintf(out, n, "%lldh", h);
	else if (h < 24 * 8)
		snprintf(out, n, h % 24 ? "%lldd%lldh" : "%lldd", d, h % 24);
	else if (h < 24 * 365 * 2)
		snprintf(out, n, "%lldd", d);
	else if (h < 24 * 365 * 8)
		snprintf(out, n, d % 365 ? "%lldy%lldd" : "%lldy", d / 365,
			 d % 365);
	else
		snprintf(out, n, "%lldy", d / 365);
}

/* translateTimestampSince: "<unknown>" when absent or unparsable. */
static void add_age(struct buf *b, const char *ts)
{
	struct tm tm;
	char out[32];
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (!ts || !(end = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm)) ||
	    (*end != 'Z' && *end != '.')) {
		add_go_str(b, "<unknown>");
		return;
	}
	fake_human_duration((long long)(time(NULL) - timegm(&tm)), out,
			    sizeof(out));
	add_go_str(b, out);
}

static const char *str_at(json_t *j, const char *a, const char *b2)
{
	json_t *v = json_object_get(j, a);
	return json_string_value(b2 ? json_object_get(v, b2) : v);
}

static void add_or_none(struct buf *b, const char *s)
{
	add_go_str(b, s && *s ? s : "<none>");
}

/* The latest lastState.terminated.finishedAt in *last (RFC 3339 strings
 * compare in time order). */
static void note_restart(json_t *cs, const char **last)
{
	const char *f = json_string_value(json_object_get(
		json_object_get(json_object_get(cs, "lastState"), "terminated"),
		"finishedAt"));
	if (f && (!*last || strcmp(f, *last) > 0))
		*last = f;
}

/* printPod's STATUS from the init containers; true while initializing. */
static bool init_status(json_t *spec, json_t *st, char *reason, size_t rn,
			long long *restarts, const char **last, long *ready)
{
	json_t *ics = json_object_get(st, "initContainerStatuses"), *cs;
	json_t *inits = json_object_get(spec, "initContainers");
	size_t i;

	json_array_foreach(ics, i, cs)
	{
		json_t *state = json_object_get(cs, "state");
		json_t *term = json_object_get(state, "terminated");
		json_t *wait = json_object_get(state, "waiting");
		const char *tr = str_at(term, "reason", NULL);
		const char *wr = str_at(wait, "reason", NULL);
		json_t *spec_c = json_array_get(inits, i);
		bool sidecar = spec_c &&
			       str_at(spec_c, "restartPolicy", NULL) &&
			       strcmp(str_at(spec_c, "restartPolicy", NULL),
				      "Always") == 0;

		*restarts +=
			json_integer_value(json_object_get(cs, "restartCount"));
		note_restart(cs, last);
		if (term &&
		    json_integer_value(json_object_get(term, "exitCode")) == 0)
			continue;
		if (sidecar && json_is_true(json_object_get(cs, "started"))) {
			*ready += json_is_true(json_object_get(cs, "ready"));
			continue;
		}
		if (term && tr && *tr)
			snprintf(reason, rn, "Init:%s", tr);
		else if (term &&
			 json_integer_value(json_object_get(term, "signal")))
			snprintf(reason, rn, "Init:Signal:%lld",
				 (long long)json_integer_value(
					 json_object_get(term, "signal")));
		else if (term)
			snprintf(reason, rn, "Init:ExitCode:%lld",
				 (long long)json_integer_value(
					 json_object_get(term, "exitCode")));
		else if (wait && wr && *wr &&
			 strcmp(wr, "PodInitializing") != 0)
			snprintf(reason, rn, "Init:%s", wr);
		else
			snprintf(reason, rn, "Init:%zu/%zu", i,
				 json_array_size(inits));
		return true;
	}
	return false;
}

static bool cond_true(json_t *st, const char *type)
{
	json_t *c;
	size_t i;
	json_array_foreach(json_object_get(st, "conditions"), i,
			   c) if (str_at(c, "type", NULL) &&
				  strcmp(str_at(c, "type", NULL), type) ==
					  0) return str_at(c, "status", NULL) &&
		strcmp(str_at(c, "status", NULL), "True") == 0;
	return false;
}

static void pod_cells(struct buf *b, json_t *o)
{
	json_t *spec = json_object_get(o, "spec"),
	       *st = json_object_get(o, "status");
	json_t *meta = json_object_get(o, "metadata"), *cs, *g;
	const char *phase = str_at(st, "phase", NULL), *last = NULL;
	long long restarts = 0, init_restarts = 0;
	long ready = 0,
	     total = (long)json_array_size(json_object_get(spec, "containers"));
	char reason[128], buf[64];
	size_t i;

	snprintf(reason, sizeof(reason), "%s",
		 str_at(st, "reason", NULL) ? str_at(st, "reason", NULL) :
		 phase			    ? phase :
					      "");
	json_array_foreach(
		json_object_get(st, "conditions"), i,
		cs) if (str_at(cs, "type", NULL) &&
			str_at(cs, "reason", NULL) &&
			strcmp(str_at(cs, "type", NULL), "PodScheduled") == 0 &&
			strcmp(str_at(cs, "reason", NULL), "SchedulingGated") ==
				0)
		snprintf(reason, sizeof(reason), "SchedulingGated");
	json_array_foreach(json_object_get(spec, "initContainers"), i,
			   cs) if (str_at(cs, "restartPolicy", NULL) &&
				   strcmp(str_at(cs, "restartPolicy", NULL),
					  "Always") == 0) total++;
	bool initializing = init_status(spec, st, reason, sizeof(reason),
					&init_restarts, &last, &ready);
	if (initializing && !cond_true(st, "Initialized")) {
		restarts = init_restarts;
	} else {
		bool running = false;
		json_t *v = json_object_get(st, "containerStatuses");
		for (i = json_array_size(v); i-- > 0;) {
			cs = json_array_get(v, i);
			json_t *state = json_object_get(cs, "state");
			json_t *term = json_object_get(state, "terminated");
			const char *wr = str_at(state, "waiting", "reason");
			const char *tr = str_at(term, "reason", NULL);
			restarts += json_integer_value(
				json_object_get(cs, "restartCount"));
			note_restart(cs, &last);
			if (wr && *wr)
				snprintf(reason, sizeof(reason), "%s", wr);
			else if (tr && *tr)
				snprintf(reason, sizeof(reason), "%s", tr);
			else if (term && json_integer_value(json_object_get(
						 term, "signal")))
				snprintf(reason, sizeof(reason), "Signal:%lld",
					 (long long)json_integer_value(
						 json_object_get(term,
								 "signal")));
			else if (term)
				snprintf(reason, sizeof(reason),
					 "ExitCode:%lld",
					 (long long)json_integer_value(
						 json_object_get(term,
								 "exitCode")));
			else if (json_is_true(json_object_get(cs, "ready")) &&
				 json_object_get(state, "running")) {
				running = true;
				ready++;
			}
		}
		if (strcmp(reason, "Completed") == 0 && running)
			snprintf(reason, sizeof(reason), "%s",
				 cond_true(st, "Ready") ? "Running" :
							  "NotReady");
	}
	if (json_object_get(meta, "deletionTimestamp")) {
		const char *sr = str_at(st, "reason", NULL);
		if (sr && strcmp(sr, "NodeLost") == 0)
			snprintf(reason, sizeof(reason), "Unknown");
		else if (!phase || (strcmp(phase, "Succeeded") &&
				    strcmp(phase, "Failed")))
			snprintf(reason, sizeof(reason), "Terminating");
	}

	buf_adds(b, ",");
	snprintf(buf, sizeof(buf), "%ld/%ld", ready, total);
	add_go_str(b, buf);
	buf_addc(b, ',');
	add_go_str(b, reason);
	buf_addc(b, ',');
	if (restarts && last) {
		struct buf r = BUF_INIT;
		add_age(&r, last); /* "\"5m\"": strip the quotes */
		buf_printf(b, "\"%lld (%.*s ago)\"", restarts,
			   r.len > 2 ? (int)r.len - 2 : 0, r.p ? r.p + 1 : "");
		buf_free(&r);
	} else {
		buf_printf(b, "\"%lld\"", restarts);
	}
	buf_addc(b, ',');
	add_age(b, str_at(meta, "creationTimestamp", NULL));
	buf_addc(b, ',');
	json_t *ips = json_object_get(st, "podIPs");
	add_or_none(b, ips ? str_at(json_array_get(ips, 0), "ip", NULL) :
			     str_at(st, "podIP", NULL));
	buf_addc(b, ',');
	add_or_none(b, str_at(spec, "nodeName", NULL));
	buf_addc(b, ',');
	add_or_none(b, str_at(st, "nominatedNodeName", NULL));
	buf_addc(b, ',');
	json_t *gates = json_object_get(spec, "readinessGates");
	if (json_array_size(gates)) {
		long ok = 0;
		json_array_foreach(gates, i, g) ok +=
			cond_true(st, str_at(g, "conditionType", NULL) ?
					      str_at(g, "conditionType", NULL) :
					      "");
		snprintf(buf, sizeof(buf), "%ld/%zu", ok,
			 json_array_size(gates));
		add_go_str(b, buf);
	} else {
		add_go_str(b, "<none>");
	}
}

static const char *columns_of(int res)
{
	const char *kc = fake_table_kinds_columns(res);
	if (!kc)
		kc = fake_kinds_admin_columns(res);
	if (!kc && fake_res_table[res].custom)
		kc = fake_crd_table_columns(res);
	if (kc)
		return kc;
	switch (res) {
	case FAKE_RES_PODS:
		return cols_pods;
	case FAKE_RES_CONFIGMAPS:
		return cols_configmaps;
	case FAKE_RES_NAMESPACES:
		return cols_namespaces;
	default:
		return fake_res_table[res].custom ? cols_custom : cols_default;
	}
}

/* The metadata member's bytes of an object, or "{}". */
static void add_metadata(struct buf *b, const char *json, size_t len)
{
	const char *vs, *ve;
	if (fake_json_find(json, json + len, "metadata", &vs, &ve))
		buf_add(b, vs, (size_t)(ve - vs));
	else
		buf_adds(b, "{}");
}

/*
 * Annotations an apps/v1 object carries that the apiserver's internal
 * object does not: converting to the internal type moves them into
 * fields, and the metadata views (PartialObjectMetadata, a Table row's
 * object) are made from the internal object.
 */
static const struct {
	const char *key, *annotation;
	bool if_nonempty;
} versioned_only[] = {
	{ "daemonsets.apps", "deprecated.daemonset.template.generation",
	  false },
	{ "deployments.apps", "deprecated.deployment.rollback.to", true },
};

/* Cut [from, to) out of b's bytes after start, with one comma beside. */
static void cut_member(struct buf *b, size_t from, size_t to)
{
	if (from > 0 && b->p[from - 1] == ',')
		from--;
	else if (to < b->len && b->p[to] == ',')
		to++;
	memmove(b->p + from, b->p + to, b->len - to);
	b->len -= to - from;
	b->p[b->len] = '\0';
}

/* The metadata of an object of resource res as the internal object has
 * it, appended to b. */
static void add_internal_metadata(struct buf *b, int res, const char *json,
				  size_t len)
{
	size_t start = b->len;
	add_metadata(b, json, len);
	for (size_t i = 0;
	     i < sizeof(versioned_only) / sizeof(versioned_only[0]); i++) {
		if (strcmp(fake_res_table[res].key, versioned_only[i].key))
			continue;
		json_t *m = json_loadb(b->p + start, b->len - start, 0, NULL);
		const char *v = json_string_value(
			json_object_get(json_object_get(m, "annotations"),
					versioned_only[i].annotation));
		bool drop = v && (!versioned_only[i].if_nonempty || *v);
		json_decref(m);
		if (!drop)
			return;
		/* the member is written "key":"value", by fake_kinds_seed.c */
		char pat[128];
		snprintf(pat, sizeof(pat), "\"%s\":\"",
			 versioned_only[i].annotation);
		buf_addc(b, '\0');
		b->len--;
		char *at = strstr(b->p + start, pat);
		if (!at)
			return;
		char *end = strchr(at + strlen(pat), '"');
		cut_member(b, (size_t)(at - b->p), (size_t)(end + 1 - b->p));
		buf_addc(b, '\0');
		b->len--;
		at = strstr(b->p + start, "\"annotations\":{}");
		if (at)
			cut_member(b, (size_t)(at - b->p),
				   (size_t)(at - b->p) +
					   strlen("\"annotations\":{}"));
		return;
	}
}

static void add_pom(struct buf *b, const struct fake_as *as, int res,
		    const char *json, size_t len)
{
	buf_printf(b,
		   "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
		   "\"meta.k8s.io/%s\",\"metadata\":",
		   as->version);
	add_internal_metadata(b, res, json, len);
	buf_addc(b, '}');
}

/* A float64 as Go's encoding/json writes it: the shortest digits that
 * read back the same, exponent form only when very large or small. */
static void add_go_float(struct buf *b, double v)
{
	char s[64];
	int prec = 1;
	for (; prec <= 17; prec++) {
		snprintf(s, sizeof(s), "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	if (strchr(s, 'e') && v != 0 && fabs(v) >= 1e-6 && fabs(v) < 1e21) {
		int e = (int)floor(log10(fabs(v)));
		int frac = prec - 1 - e;
		snprintf(s, sizeof(s), "%.*f", frac > 0 ? frac : 0, v);
	}
	buf_adds(b, s);
}

/* One Table row of the object json. */
static void add_row(struct buf *b, const struct fake_as *as, int res,
		    const char *json, size_t len)
{
	json_t *o = json_loadb(json, len, 0, NULL);
	json_t *meta = json_object_get(o, "metadata");
	const char *name = str_at(meta, "name", NULL);

	json_t *cells = fake_table_kinds_cells(res, o, time(NULL)), *c;
	size_t i;

	if (!cells)
		cells = fake_kinds_admin_cells(res, o, time(NULL));
	if (!cells && fake_res_table[res].custom)
		cells = fake_crd_cells(res, o, time(NULL));
	buf_adds(b, "{\"cells\":[");
	if (cells) {
		json_array_foreach(cells, i, c)
		{
			if (i)
				buf_addc(b, ',');
			if (json_is_string(c))
				add_go_str(b, json_string_value(c));
			else if (json_is_integer(c))
				buf_printf(b, "%lld",
					   (long long)json_integer_value(c));
			else if (json_is_real(c))
				add_go_float(b, json_real_value(c));
			else if (json_is_null(c))
				buf_adds(b, "null");
			else
				buf_adds(b, json_is_true(c) ? "true" : "false");
		}
		json_decref(cells);
	} else if (res == FAKE_RES_PODS) {
		add_go_str(b, name ? name : "");
		pod_cells(b, o);
	} else {
		add_go_str(b, name ? name : "");
		if (res == FAKE_RES_CONFIGMAPS) {
			buf_printf(
				b, ",%zu",
				json_object_size(json_object_get(o, "data")) +
					json_object_size(json_object_get(
						o, "binaryData")));
		} else if (res == FAKE_RES_NAMESPACES) {
			buf_addc(b, ',');
			add_go_str(b, str_at(o, "status", "phase") ?
					      str_at(o, "status", "phase") :
					      "");
		}
		buf_addc(b, ',');
		add_age(b, str_at(meta, "creationTimestamp", NULL));
	}
	buf_adds(b, "],\"object\":");
	if (as->include == FAKE_INCLUDE_NONE)
		buf_adds(b, "null");
	else if (as->include == FAKE_INCLUDE_OBJECT)
		buf_add(b, json, len);
	else
		add_pom(b, as, res, json, len);
	buf_addc(b, '}');
	json_decref(o);
}

/* A flow schema's place in printFlowSchemaList's order. */
struct fs_key {
	long long precedence;
	const char *name;
	struct fake_obj *o;
};

static int cmp_fs_key(const void *a, const void *b)
{
	const struct fs_key *x = a, *y = b;
	if (x->precedence != y->precedence)
		return x->precedence < y->precedence ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* items in the order the apiserver's list printer gives them (malloc'd),
 * or NULL for the order given: flow schemas are sorted by matching
 * precedence, then name. */
static struct fake_obj **in_print_order(int res, struct fake_obj *const *items,
					size_t n)
{
	if (n < 2 || strcmp(fake_res_table[res].key,
			    "flowschemas.flowcontrol.apiserver.k8s.io"))
		return NULL;
	struct fs_key *k = calloc(n, sizeof(*k));
	struct fake_obj **out = calloc(n, sizeof(*out));
	json_t **docs = calloc(n, sizeof(*docs));
	if (!k || !out || !docs) {
		free(k);
		free(out);
		free(docs);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		docs[i] = json_loadb(items[i]->json, items[i]->len, 0, NULL);
		json_t *spec = json_object_get(docs[i], "spec");
		k[i].precedence = json_integer_value(
			json_object_get(spec, "matchingPrecedence"));
		k[i].name =
			str_at(json_object_get(docs[i], "metadata"), "name", NULL) ?:
				"";
		k[i].o = items[i];
	}
	qsort(k, n, sizeof(*k), cmp_fs_key);
	for (size_t i = 0; i < n; i++) {
		out[i] = k[i].o;
		json_decref(docs[i]);
	}
	free(docs);
	free(k);
	return out;
}

static void add_listmeta(struct buf *b, const struct fake_listmeta *m)
{
	buf_printf(b, "\"metadata\":{\"resourceVersion\":\"%llu\"",
		   (unsigned long long)m->rv);
	if (m->cont)
		buf_printf(b, ",\"continue\":\"%s\"", m->cont);
	if (m->remaining >= 0)
		buf_printf(b, ",\"remainingItemCount\":%lld", m->remaining);
	buf_addc(b, '}');
}

void fake_table_list(struct buf *b, const struct fake_as *as, int res,
		     const struct fake_listmeta *m,
		     struct fake_obj *const *items, size_t n)
{
	if (as->kind == FAKE_AS_META) {
		buf_printf(b,
			   "{\"kind\":\"PartialObjectMetadataList\","
			   "\"apiVersion\":\"meta.k8s.io/%s\",",
			   as->version);
		add_listmeta(b, m);
		buf_adds(b, ",\"items\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				buf_addc(b, ',');
			add_pom(b, as, res, items[i]->json, items[i]->len);
		}
		buf_adds(b, "]}\n");
		return;
	}
	buf_printf(b, "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\",",
		   as->version);
	add_listmeta(b, m);
	buf_printf(b, ",\"columnDefinitions\":%s,\"rows\":[", columns_of(res));
	struct fake_obj **order = in_print_order(res, items, n);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		add_row(b, as, res, order ? order[i]->json : items[i]->json,
			order ? order[i]->len : items[i]->len);
	}
	free(order);
	buf_adds(b, "]}\n");
}

void fake_table_get(struct buf *b, const struct fake_as *as,
		    const struct fake_obj *o)
{
	if (as->kind == FAKE_AS_META) {
		add_pom(b, as, o->res, o->json, o->len);
		buf_addc(b, '\n');
		return;
	}
	struct fake_listmeta m = { o->rv, NULL, -1 };
	struct fake_obj *const one[1] = { (struct fake_obj *)o };
	fake_table_list(b, as, o->res, &m, one, 1);
}

void fake_table_event(struct buf *b, const struct fake_as *as, int res,
		      const char *json, size_t len, bool with_cols)
{
	const char *vs, *ve;

	if (as->kind == FAKE_AS_META) {
		add_pom(b, as, res, json, len);
		return;
	}
	buf_printf(b,
		   "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
		   "\"metadata\":{\"resourceVersion\":",
		   as->version);
	if (fake_json_find(json, json + len, "metadata.resourceVersion", &vs,
			   &ve))
		buf_add(b, vs, (size_t)(ve - vs));
	else
		buf_adds(b, "\"\"");
	buf_printf(b, "},\"columnDefinitions\":%s,\"rows\":[",
		   with_cols ? columns_of(res) : "null");
	add_row(b, as, res, json, len);
	buf_adds(b, "]}");
}
