/*
 * table: the server-side printing kubectl asks for, and metadata-only
 * objects.
 *
 * A request's Accept picks the form: plain JSON, a meta.k8s.io Table (v1
 * or v1beta1) or PartialObjectMetadata[List]. Tables carry the
 * apiserver's columns: pods here (NAME READY STATUS RESTARTS AGE, plus
 * IP, NODE, NOMINATED NODE and READINESS GATES at priority 1), the other
 * built-in kinds from the declarative table in table_cols.c, and NAME AGE
 * for every other kind, as the apiserver does for custom resources. Cells are
 * computed from the cached bytes when asked for; nothing is kept.
 */
#include "proxy/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "config/alloc.h"
#include "proxy/table_cols.h"
#include "proxy/table_crd.h"

struct column {
	const char *name, *type, *format, *description;
	int priority;
};

/* Column descriptions, word for word as the apiserver sends them. */
static const char name_desc[] =
	"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
static const char age_desc[] =
	"CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
static const struct column pod_columns[] = {
	{ "Name", "string", "name", name_desc, 0 },
	{ "Ready", "string", "",
	  "The aggregate readiness state of this pod for accepting traffic.",
	  0 },
	{ "Status", "string", "",
	  "The aggregate status of the containers in this pod.", 0 },
	{ "Restarts", "string", "",
	  "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
	  0 },
	{ "Age", "string", "", age_desc, 0 },
	{ "IP", "string", "",
	  "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
	  1 },
	{ "Node", "string", "",
	  "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
	  1 },
	{ "Nominated Node", "string", "",
	  "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
	  1 },
	{ "Readiness Gates", "string", "",
	  "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
	  1 },
};

/* Every other kind: what the apiserver's default convertor and custom
 * resources give (kubectl shows a "date" column as an age). */
static const struct column default_columns[] = {
	{ "Name", "string", "name", name_desc, 0 },
	{ "Age", "date", "", age_desc, 0 },
};

enum printer {
	P_POD,
	P_TABLE, /* table_cols.c */
	P_DEFAULT
};

static enum printer printer_of(const struct cache_kind *k,
			       const struct proxy_printer **p)
{
	*p = proxy_printer_find(k->group, k->resource);
	if (*p)
		return P_TABLE;
	if (!k->group[0] && !strcmp(k->resource, "pods"))
		return P_POD;
	return P_DEFAULT;
}

/* ---- Accept ---- */

/* Whether media range mr (spaces removed) has parameter p=v. */
static bool has_param(const char *mr, const char *pv)
{
	size_t n = strlen(pv);
	for (const char *s = strchr(mr, ';'); s; s = strchr(s + 1, ';'))
		if (!strncmp(s + 1, pv, n) &&
		    (s[1 + n] == ';' || s[1 + n] == '\0'))
			return true;
	return false;
}

int proxy_fmt_negotiate(struct MHD_Connection *c, struct proxy_fmt *f)
{
	return proxy_fmt_parse(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"),
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
					    "includeObject"),
		f);
}

int proxy_fmt_parse(const char *accept, const char *inc, struct proxy_fmt *f)
{
	memset(f, 0, sizeof(*f));
	f->include = PROXY_INCLUDE_METADATA;
	if (inc && !strcmp(inc, "Object"))
		f->include = PROXY_INCLUDE_OBJECT;
	else if (inc && !strcmp(inc, "None"))
		f->include = PROXY_INCLUDE_NONE;
	if (!accept || !*accept)
		return 0;
	bool any_json = false;
	for (const char *p = accept; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char mr[256];
		size_t k = 0;
		for (size_t i = 0; i < n && k + 1 < sizeof(mr); i++)
			if (p[i] != ' ' && p[i] != '\t')
				mr[k++] = p[i];
		mr[k] = '\0';
		p += n + (end ? 1 : 0);
		bool json = !strncmp(mr, "application/json", 16) &&
			    (mr[16] == '\0' || mr[16] == ';');
		bool wild = !strncmp(mr, "*/*", 3) ||
			    !strncmp(mr, "application/*", 13);
		if (!json && !wild)
			continue;
		if (json && has_param(mr, "as=Table") &&
		    has_param(mr, "g=meta.k8s.io")) {
			if (has_param(mr, "v=v1") ||
			    has_param(mr, "v=v1beta1")) {
				f->form = PROXY_FORM_TABLE;
				f->version = has_param(mr, "v=v1") ? "v1" :
								     "v1beta1";
				return 0;
			}
			continue;
		}
		if (json &&
		    (has_param(mr, "as=PartialObjectMetadata") ||
		     has_param(mr, "as=PartialObjectMetadataList")) &&
		    has_param(mr, "g=meta.k8s.io")) {
			f->form = PROXY_FORM_METADATA;
			f->version =
				has_param(mr, "v=v1beta1") ? "v1beta1" : "v1";
			return 0;
		}
		if (json && strchr(mr, ';') &&
		    has_param(mr, "as=APIGroupDiscoveryList"))
			continue;
		any_json = true;
		break;
	}
	return any_json ? 0 : -1;
}

/* ---- cells ---- */

static void cell(struct buf *b, const char *s, bool *first)
{
	if (!*first)
		buf_addc(b, ',');
	*first = false;
	if (!s || !*s)
		s = "<none>";
	buf_add_json_str(b, s, strlen(s));
}

/* A string member of obj, unescaped into out ("" when absent). */
static const char *str_at(const struct json_doc *d, int obj, const char *path,
			  char *out, size_t outlen)
{
	int t = obj >= 0 ? json_path(d, obj, path) : -1;
	out[0] = '\0';
	if (t >= 0 && json_type(d, t) == JSMN_STRING)
		json_str(d, t, out, outlen);
	return out;
}

static int64_t int_at(const struct json_doc *d, int obj, const char *path)
{
	int t = obj >= 0 ? json_path(d, obj, path) : -1;
	int64_t v = 0;
	if (t >= 0)
		json_i64(d, t, &v);
	return v;
}

static bool true_at(const struct json_doc *d, int obj, const char *path)
{
	int t = obj >= 0 ? json_path(d, obj, path) : -1;
	return t >= 0 && json_type(d, t) == JSMN_PRIMITIVE &&
	       d->js[d->tok[t].start] == 't';
}

static int count(const struct json_doc *d, int arr)
{
	return arr >= 0 && (json_type(d, arr) == JSMN_ARRAY ||
			    json_type(d, arr) == JSMN_OBJECT) ?
		       d->tok[arr].size :
		       0;
}

static void latest(const struct json_doc *d, int cs, int64_t *last)
{
	char ts[64];
	int64_t t;
	str_at(d, cs, "lastState.terminated.finishedAt", ts, sizeof(ts));
	if (ts[0] && !cache_parse_time(ts, strlen(ts), &t) && t > *last)
		*last = t;
}

/* A terminated state's reason, or Signal:N / ExitCode:N. */
static void terminated_reason(const struct json_doc *d, int term,
			      const char *pfx, char *reason, size_t rlen)
{
	char r[128];
	str_at(d, term, "reason", r, sizeof(r));
	if (r[0])
		snprintf(reason, rlen, "%s%s", pfx, r);
	else if (int_at(d, term, "signal"))
		snprintf(reason, rlen, "%sSignal:%lld", pfx,
			 (long long)int_at(d, term, "signal"));
	else
		snprintf(reason, rlen, "%sExitCode:%lld", pfx,
			 (long long)int_at(d, term, "exitCode"));
}

static bool condition_true(const struct json_doc *d, int conds,
			   const char *type)
{
	for (int c = json_first(d, conds); c > 0; c = json_next(d, conds, c)) {
		char t[64], st[16];
		if (!strcmp(str_at(d, c, "type", t, sizeof(t)), type))
			return !strcmp(str_at(d, c, "status", st, sizeof(st)),
				       "True");
	}
	return false;
}

/* kubectl's printPod, on the cached bytes. */
static void pod_cells(struct buf *b, const struct json_doc *d, time_t now,
		      const char *age, bool *first, const char **phase_out)
{
	int spec = json_get(d, 0, "spec"), status = json_get(d, 0, "status");
	int meta = json_get(d, 0, "metadata");
	int conds = json_get(d, status, "conditions");
	int total = count(d, json_get(d, spec, "containers"));
	int ready = 0, restarts = 0;
	int64_t last = 0;
	char reason[160], phase[64], tmp[160];
	str_at(d, status, "phase", phase, sizeof(phase));
	*phase_out = !strcmp(phase, "Succeeded") ? "Succeeded" :
		     !strcmp(phase, "Failed")	 ? "Failed" :
						   NULL;
	snprintf(reason, sizeof(reason), "%s", phase);
	if (str_at(d, status, "reason", tmp, sizeof(tmp))[0])
		snprintf(reason, sizeof(reason), "%s", tmp);
	for (int c = json_first(d, conds); c > 0; c = json_next(d, conds, c)) {
		char t[64], r[64];
		if (!strcmp(str_at(d, c, "type", t, sizeof(t)),
			    "PodScheduled") &&
		    !strcmp(str_at(d, c, "reason", r, sizeof(r)),
			    "SchedulingGated"))
			snprintf(reason, sizeof(reason), "SchedulingGated");
	}

	/* init containers */
	int inits = count(d, json_get(d, spec, "initContainers"));
	int ics = json_get(d, status, "initContainerStatuses");
	bool initializing = false;
	int i = 0;
	for (int c = json_first(d, ics); c > 0; c = json_next(d, ics, c), i++) {
		restarts += (int)int_at(d, c, "restartCount");
		latest(d, c, &last);
		int term = json_path(d, c, "state.terminated");
		char wr[128];
		str_at(d, c, "state.waiting.reason", wr, sizeof(wr));
		if (term >= 0 && int_at(d, term, "exitCode") == 0)
			continue;
		if (term >= 0)
			terminated_reason(d, term, "Init:", reason,
					  sizeof(reason));
		else if (wr[0] && strcmp(wr, "PodInitializing"))
			snprintf(reason, sizeof(reason), "Init:%s", wr);
		else
			snprintf(reason, sizeof(reason), "Init:%d/%d", i,
				 inits);
		initializing = true;
		break;
	}
	if (!initializing || condition_true(d, conds, "Initialized")) {
		int cs = json_get(d, status, "containerStatuses");
		int n = count(d, cs), idx[64], k = 0;
		for (int c = json_first(d, cs); c > 0 && k < 64;
		     c = json_next(d, cs, c))
			idx[k++] = c;
		bool running = false;
		restarts = 0;
		for (int j = (n < 64 ? n : 64) - 1; j >= 0;
		     j--) { /* last first */
			int c = idx[j];
			restarts += (int)int_at(d, c, "restartCount");
			latest(d, c, &last);
			int term = json_path(d, c, "state.terminated");
			char wr[128];
			str_at(d, c, "state.waiting.reason", wr, sizeof(wr));
			if (wr[0]) {
				snprintf(reason, sizeof(reason), "%s", wr);
			} else if (term >= 0) {
				terminated_reason(d, term, "", reason,
						  sizeof(reason));
			} else if (true_at(d, c, "ready") &&
				   json_path(d, c, "state.running") >= 0) {
				running = true;
				ready++;
			}
		}
		if (!strcmp(reason, "Completed") && running)
			snprintf(reason, sizeof(reason), "%s",
				 condition_true(d, conds, "Ready") ?
					 "Running" :
					 "NotReady");
	}
	int del = json_get(d, meta, "deletionTimestamp");
	if (del >= 0 && json_type(d, del) == JSMN_STRING) {
		if (!strcmp(str_at(d, status, "reason", tmp, sizeof(tmp)),
			    "NodeLost"))
			snprintf(reason, sizeof(reason), "Unknown");
		else if (strcmp(phase, "Succeeded") && strcmp(phase, "Failed"))
			snprintf(reason, sizeof(reason), "Terminating");
	}

	char cellv[160];
	snprintf(cellv, sizeof(cellv), "%d/%d", ready, total);
	cell(b, cellv, first);
	cell(b, reason, first);
	if (restarts && last) {
		char ago[32];
		proxy_human_age((int64_t)now - last, ago, sizeof(ago));
		snprintf(cellv, sizeof(cellv), "%d (%s ago)", restarts, ago);
	} else {
		snprintf(cellv, sizeof(cellv), "%d", restarts);
	}
	cell(b, cellv, first);
	cell(b, age, first);
	int ips = json_get(d, status, "podIPs");
	int ip0 = json_first(d, ips);
	cell(b, str_at(d, ip0, "ip", tmp, sizeof(tmp)), first);
	cell(b, str_at(d, spec, "nodeName", tmp, sizeof(tmp)), first);
	cell(b, str_at(d, status, "nominatedNodeName", tmp, sizeof(tmp)),
	     first);
	int gates = json_get(d, spec, "readinessGates");
	if (count(d, gates)) {
		int ok = 0;
		for (int g = json_first(d, gates); g > 0;
		     g = json_next(d, gates, g)) {
			char ct[128];
			if (condition_true(d, conds,
					   str_at(d, g, "conditionType", ct,
						  sizeof(ct))))
				ok++;
		}
		snprintf(cellv, sizeof(cellv), "%d/%d", ok, count(d, gates));
		cell(b, cellv, first);
	} else {
		cell(b, NULL, first);
	}
}

/* The object's metadata as a PartialObjectMetadata of version v. */
static void pmo(struct buf *b, const struct json_doc *d, const char *v)
{
	int meta = json_get(d, 0, "metadata");
	size_t s, e;
	json_span(d, meta, &s, &e);
	buf_printf(
		b,
		"{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":",
		v);
	buf_add(b, d->js + s, e - s);
	buf_addc(b, '}');
}

int proxy_render_metadata(struct buf *b, const struct cache_obj *o,
			  const char *version)
{
	struct json_doc d = JSON_DOC_INIT;
	int r = json_parse(&d, o->json, o->len, NULL, 0);
	if (!r)
		pmo(b, &d, version);
	json_doc_free(&d);
	return r;
}

static void head(struct buf *b, const struct cache_kind *k, bool columns,
		 const struct proxy_crd_cols *crd)
{
	const struct column *cols = default_columns;
	const struct proxy_printer *p;
	size_t n = 2;
	enum printer pr = printer_of(k, &p);
	if (pr == P_POD) {
		cols = pod_columns;
		n = 9;
	}
	if (!columns) {
		buf_adds(b, "\"columnDefinitions\":null");
		return;
	}
	buf_adds(b, "\"columnDefinitions\":");
	if (pr == P_TABLE) {
		proxy_printer_columns(b, p);
		return;
	}
	if (crd) {
		proxy_crd_columns(b, crd);
		return;
	}
	buf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		buf_printf(
			b,
			"%s{\"name\":\"%s\",\"type\":\"%s\",\"format\":\"%s\",\"description\":",
			i ? "," : "", cols[i].name, cols[i].type,
			cols[i].format);
		buf_add_json_str(b, cols[i].description,
				 strlen(cols[i].description));
		buf_printf(b, ",\"priority\":%d}", cols[i].priority);
	}
	buf_addc(b, ']');
}

static int row(struct buf *b, const struct cache_kind *k,
	       const struct cache_obj *o, const struct proxy_fmt *f, time_t now,
	       const struct proxy_crd_cols *crd)
{
	struct json_doc d = JSON_DOC_INIT;
	int r = json_parse(&d, o->json, o->len, NULL, 0);
	if (r) {
		json_doc_free(&d);
		return r;
	}
	char age[32];
	bool first = true;
	const char *done = NULL;
	const struct proxy_printer *p;
	enum printer pr = printer_of(k, &p);
	proxy_human_age(o->created ? (int64_t)now - o->created : 0, age,
			sizeof(age));
	buf_adds(b, "{\"cells\":[");
	switch (pr) {
	case P_POD:
		cell(b, o->name, &first);
		pod_cells(b, &d, now, age, &first, &done);
		break;
	case P_TABLE:
		proxy_printer_cells(b, p, &d, now);
		break;
	default:
		if (crd) {
			proxy_crd_cells(b, crd, &d, now);
			break;
		}
		/* a "date" column: the apiserver's custom-resource convertor
		 * writes it as the age, e.g. "325d" */
		cell(b, o->name, &first);
		cell(b, o->created ? age : NULL, &first);
	}
	buf_addc(b, ']');
	if (done)
		buf_printf(
			b,
			",\"conditions\":[{\"type\":\"Completed\",\"status\":\"True\","
			"\"reason\":\"%s\",\"message\":\"%s\"}]",
			done,
			!strcmp(done, "Succeeded") ?
				"The pod has completed successfully." :
				"The pod failed.");
	buf_adds(b, ",\"object\":");
	if (f->include == PROXY_INCLUDE_OBJECT)
		buf_add(b, o->json, o->len);
	else if (f->include == PROXY_INCLUDE_NONE)
		buf_adds(b, "null");
	else
		pmo(b, &d, f->version ? f->version : "v1");
	buf_addc(b, '}');
	json_doc_free(&d);
	return 0;
}

void proxy_table_head(struct buf *b, const struct cache_kind *k,
		      const struct proxy_fmt *f, bool columns)
{
	struct proxy_crd_cols *crd = proxy_crd_cols_get(k);
	(void)f;
	head(b, k, columns, crd);
	proxy_crd_cols_free(crd);
}

int proxy_table_row(struct buf *b, const struct cache_kind *k,
		    const struct cache_obj *o, const struct proxy_fmt *f,
		    time_t now)
{
	struct proxy_crd_cols *crd = proxy_crd_cols_get(k);
	int r = row(b, k, o, f, now, crd);
	proxy_crd_cols_free(crd);
	return r;
}

void proxy_table_render(struct buf *b, const struct cache_kind *k,
			const struct proxy_fmt *f, const char *metadata,
			struct cache_obj *const *rows, size_t n, bool columns,
			time_t now)
{
	const struct proxy_printer *p;
	/* a custom resource's columns, read from its CRD once per Table */
	struct proxy_crd_cols *crd =
		printer_of(k, &p) == P_DEFAULT ? proxy_crd_cols_get(k) : NULL;
	buf_printf(b,
		   "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
		   "\"metadata\":%s,",
		   f->version, metadata);
	head(b, k, columns, crd);
	buf_adds(b, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		row(b, k, rows[i], f, now, crd);
	}
	buf_adds(b, "]}");
	proxy_crd_cols_free(crd);
}

void proxy_table_obj_meta(const struct cache_obj *o, char *out, size_t outlen)
{
	snprintf(out, outlen, "{\"resourceVersion\":\"%llu\"}",
		 (unsigned long long)o->rv);
}
