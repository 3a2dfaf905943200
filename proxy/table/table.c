/*
 * table: the server-side printing kubectl asks for, and metadata-only
 * objects.
 *
 * A request's Accept picks the form: plain JSON, a meta.k8s.io Table (v1
 * or v1beta1) or PartialObjectMetadata[List]. Tables carry the
 * apiserver's columns: the built-in kinds' from the declarative table in
 * table_cols.c, a custom resource's from its CRD (table_crd.c), and NAME
 * AGE for every other kind; a finished pod's row is marked Completed. Cells are
 * computed from the cached bytes when asked for; nothing is kept.
 */
#include "proxy/table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "config/alloc.h"
#include "proxy/table/table_cols.h"
#include "proxy/table/table_crd.h"
#include "proxy/table/table_pod.h"

struct column {
	const char *name, *type, *format, *description;
	int priority;
};

/* Column descriptions, word for word as the apiserver sends them. */
static const char name_desc[] =
	"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
static const char age_desc[] =
	"CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/* Every other kind: what the apiserver's default convertor and custom
 * resources give (kubectl shows a "date" column as an age). */
static const struct column default_columns[] = {
	{ "Name", "string", "name", name_desc, 0 },
	{ "Age", "date", "", age_desc, 0 },
};

enum printer {
	P_TABLE, /* table_cols.c */
	P_DEFAULT
};

static enum printer printer_of(const struct cache_kind *k,
			       const struct proxy_printer **p)
{
	*p = proxy_printer_find(k->group, k->resource);
	return *p ? P_TABLE : P_DEFAULT;
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
	if (!k->group[0] && !strcmp(k->resource, "pods")) {
		/* a finished pod's row is Completed */
		struct proxy_pod_sum sum;
		proxy_pod_summary(&d, now, &sum);
		done = sum.done;
	}
	switch (pr) {
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
