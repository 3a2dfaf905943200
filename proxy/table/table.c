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
 *
 * This file is the wing's public face (table.h): it also holds the CRD
 * store that table_crd.c reads columns from, and says which groups are
 * custom.
 */
#include "proxy/table/table.h"
#include "proxy/table/table_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "config/alloc.h"
#include "proxy/table/table_age_int.h"
#include "proxy/table/table_cols_int.h"
#include "proxy/table/table_crd_int.h"
#include "proxy/table/table_pod_int.h"

struct column {
	const char *name, *type, *format, *description;
	int priority;
};

/* Every other kind: what the apiserver's default convertor and custom
 * resources give (kubectl shows a "date" column as an age). */
static const struct column default_columns[] = {
	{ "Name", "string", "name", proxy_table_cols_name_description, 0 },
	{ "Age", "date", "", proxy_table_cols_age_description, 0 },
};

enum printer {
	P_TABLE, /* table_cols.c */
	P_DEFAULT
};

static enum printer printer_of(const struct cache_kind *k,
			       const struct proxy_table_cols **p)
{
	*p = proxy_table_cols_find(k->group, k->resource);
	return *p ? P_TABLE : P_DEFAULT;
}

/* The CRDs custom resources' columns come from (proxy_table_crd_attach). */
static struct cache_store *crd_store; /* atomic */

/* The columns of k from its CRD, NULL when there is none to read. */
static struct proxy_table_crd_cols *crd_cols(const struct cache_kind *k)
{
	return proxy_table_crd_cols_get(
		__atomic_load_n(&crd_store, __ATOMIC_ACQUIRE), k);
}

void proxy_table_crd_attach(struct cache_store *crds)
{
	__atomic_store_n(&crd_store, crds, __ATOMIC_RELEASE);
	if (!crds)
		proxy_table_crd_cache_clear();
}

bool proxy_table_crd_group_is_custom(const char *group)
{
	static const char *const builtin[] = {
		"",
		"admissionregistration.k8s.io",
		"apiextensions.k8s.io",
		"apiregistration.k8s.io",
		"apps",
		"authentication.k8s.io",
		"authorization.k8s.io",
		"autoscaling",
		"batch",
		"certificates.k8s.io",
		"coordination.k8s.io",
		"discovery.k8s.io",
		"events.k8s.io",
		"extensions",
		"flowcontrol.apiserver.k8s.io",
		"internal.apiserver.k8s.io",
		"metrics.k8s.io",
		"networking.k8s.io",
		"node.k8s.io",
		"policy",
		"rbac.authorization.k8s.io",
		"resource.k8s.io",
		"scheduling.k8s.io",
		"storage.k8s.io",
		"storagemigration.k8s.io",
	};
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(group, builtin[i]))
			return false;
	return true;
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

int proxy_table_format_negotiate(struct MHD_Connection *c,
				 struct proxy_table_format *f)
{
	return proxy_table_format_parse(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"),
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
					    "includeObject"),
		f);
}

int proxy_table_format_parse(const char *accept, const char *inc,
			     struct proxy_table_format *f)
{
	memset(f, 0, sizeof(*f));
	f->include = PROXY_TABLE_INCLUDE_METADATA;
	if (inc && !strcmp(inc, "Object"))
		f->include = PROXY_TABLE_INCLUDE_OBJECT;
	else if (inc && !strcmp(inc, "None"))
		f->include = PROXY_TABLE_INCLUDE_NONE;
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
		bool yaml = !strncmp(mr, "application/yaml", 16) &&
			    (mr[16] == '\0' || mr[16] == ';');
		bool json = yaml || (!strncmp(mr, "application/json", 16) &&
				     (mr[16] == '\0' || mr[16] == ';'));
		f->yaml = yaml;
		bool wild = !strncmp(mr, "*/*", 3) ||
			    !strncmp(mr, "application/*", 13);
		if (!json && !wild)
			continue;
		if (json && has_param(mr, "as=Table") &&
		    has_param(mr, "g=meta.k8s.io")) {
			if (has_param(mr, "v=v1") ||
			    has_param(mr, "v=v1beta1")) {
				f->form = PROXY_TABLE_FORM_TABLE;
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
			f->form = PROXY_TABLE_FORM_METADATA;
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
	if (!any_json)
		f->yaml = false;
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

/*
 * Annotations the versioned object carries but the apiserver's internal
 * one does not: converting apps/v1 to the internal type moves them into
 * fields (a DaemonSet's template generation; a Deployment's rollback
 * revision, when not empty) and converting back restores them. The
 * metadata views (PartialObjectMetadata, a Table row's object) are made
 * from the internal object, so they lack these; the object itself, in
 * JSON or as includeObject=Object, has them.
 */
static const struct {
	const char *group, *resource, *key;
	bool if_nonempty; /* kept when its value is "" */
} internal_only[] = {
	{ "apps", "daemonsets", "deprecated.daemonset.template.generation",
	  false },
	{ "apps", "deployments", "deprecated.deployment.rollback.to", true },
};

/* The member of object obj whose key token is key, as a byte range to
 * cut [*from, *to) that takes one comma with it. */
static void member_cut(const struct json_doc *d, int obj, int key, size_t *from,
		       size_t *to)
{
	size_t ks, ke, vs, ve, os, oe;
	int prev = -1, next;
	for (int k = json_first(d, obj); k > 0 && k != key;
	     k = json_next(d, obj, k))
		prev = k;
	next = json_next(d, obj, key);
	json_span(d, key, &ks, &ke);
	json_span(d, key + 1, &vs, &ve);
	json_span(d, obj, &os, &oe);
	if (prev > 0) {
		size_t ps, pe;
		json_span(d, prev + 1, &ps, &pe);
		*from = pe; /* ,"key":value */
		*to = ve;
	} else if (next > 0) {
		size_t ns, ne;
		json_span(d, next, &ns, &ne);
		*from = ks; /* "key":value, */
		*to = ns;
	} else {
		*from = os + 1; /* the only member: {} is left */
		*to = oe - 1;
	}
}

/* The metadata of d (an object of kind k) as the internal object has it:
 * internal_only's annotation removed, and "annotations" with it when it
 * was the only one (an empty map is not written). */
static void add_metadata(struct buf *b, const struct cache_kind *k,
			 const struct json_doc *d, int meta)
{
	size_t s, e, from = 0, to = 0;
	json_span(d, meta, &s, &e);
	for (size_t i = 0;
	     k && i < sizeof(internal_only) / sizeof(internal_only[0]); i++) {
		if (strcmp(k->group, internal_only[i].group) ||
		    strcmp(k->resource, internal_only[i].resource))
			continue;
		int ann = json_get(d, meta, "annotations");
		if (ann < 0 || json_type(d, ann) != JSMN_OBJECT)
			break;
		for (int key = json_first(d, ann); key > 0;
		     key = json_next(d, ann, key)) {
			size_t n;
			if (!json_str_eq(d, key, internal_only[i].key))
				continue;
			if (internal_only[i].if_nonempty &&
			    (json_type(d, key + 1) != JSMN_STRING ||
			     (json_raw(d, key + 1, &n), n == 0)))
				break;
			if (json_next(d, ann, json_first(d, ann)) > 0)
				member_cut(d, ann, key, &from, &to);
			else
				member_cut(d, meta, ann - 1, &from, &to);
			break;
		}
		break;
	}
	if (to > from) {
		buf_add(b, d->js + s, from - s);
		buf_add(b, d->js + to, e - to);
	} else {
		buf_add(b, d->js + s, e - s);
	}
}

/*
 * What a PartialObjectMetadata reads of an object: its metadata but
 * managedFields (which still goes out, within the metadata's span). The
 * cached bytes were validated when they came (cache/obj.h), so what is
 * skipped is jumped over (json_parse_trusted()), not validated again. A
 * row reads what its printer's cells read (proxy_table_cols_shape()); a
 * custom resource's columns are JSONPaths, which may name anything, so
 * its rows tokenize the object whole.
 */
static const struct json_shape_key pmo_keys[] = {
	{ "metadata", 8, &tc_meta_shape },
};
static const struct json_shape pmo_shape = { &json_shape_skip, 1, pmo_keys };

/* The object's metadata as a PartialObjectMetadata of version v. */
static void pmo(struct buf *b, const struct cache_kind *k,
		const struct json_doc *d, const char *v)
{
	int meta = json_get(d, 0, "metadata");
	buf_printf(
		b,
		"{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":",
		v);
	if (meta >= 0)
		add_metadata(b, k, d, meta);
	else
		buf_adds(b, "null");
	buf_addc(b, '}');
}

int proxy_table_metadata_render(struct buf *b, const struct cache_kind *k,
				const struct cache_obj *o, const char *version)
{
	struct json_doc d = JSON_DOC_INIT;
	int r = json_parse_trusted(&d, o->json, o->len, &pmo_shape);
	if (!r)
		pmo(b, k, &d, version);
	json_doc_free(&d);
	return r;
}

static void head(struct buf *b, const struct cache_kind *k, bool columns,
		 const struct proxy_table_crd_cols *crd)
{
	const struct column *cols = default_columns;
	const struct proxy_table_cols *p;
	size_t n = 2;
	enum printer pr = printer_of(k, &p);
	if (!columns) {
		buf_adds(b, "\"columnDefinitions\":null");
		return;
	}
	buf_adds(b, "\"columnDefinitions\":");
	if (pr == P_TABLE) {
		proxy_table_cols_definitions(b, p);
		return;
	}
	if (crd) {
		proxy_table_crd_definitions(b, crd);
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
	       const struct cache_obj *o, const struct proxy_table_format *f,
	       time_t now, const struct proxy_table_crd_cols *crd)
{
	const struct proxy_table_cols *p;
	enum printer pr = printer_of(k, &p);
	/* NAME and AGE alone come from o: only the metadata for those */
	const struct json_shape *shape = pr == P_TABLE ?
						 proxy_table_cols_shape(p) :
					 crd ? NULL :
					       &pmo_shape;
	struct json_doc d = JSON_DOC_INIT;
	int r = json_parse_trusted(&d, o->json, o->len, shape);
	if (r) {
		json_doc_free(&d);
		return r;
	}
	char age[32];
	bool first = true;
	const char *done = NULL;
	proxy_table_age_human(o->created ? (int64_t)now - o->created : 0, age,
			      sizeof(age));
	buf_adds(b, "{\"cells\":[");
	/* a finished pod's row is Completed; its cells use the same summary */
	struct proxy_table_pod_summary sum;
	bool pod = !k->group[0] && !strcmp(k->resource, "pods");
	if (pod) {
		proxy_table_pod_summary(&d, now, &sum);
		done = sum.done;
	}
	switch (pr) {
	case P_TABLE:
		proxy_table_cols_cells(b, p, &d, now, pod ? &sum : NULL);
		break;
	default:
		if (crd) {
			proxy_table_crd_cells(b, crd, &d, now);
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
	if (f->include == PROXY_TABLE_INCLUDE_OBJECT)
		buf_add(b, o->json, o->len);
	else if (f->include == PROXY_TABLE_INCLUDE_NONE)
		buf_adds(b, "null");
	else
		pmo(b, k, &d, f->version ? f->version : "v1");
	buf_addc(b, '}');
	json_doc_free(&d);
	return 0;
}

/* ---- row order ---- */

/* A row and what the flow schemas' order compares. */
struct fs_row {
	int64_t precedence;
	struct cache_obj *o;
};

static int cmp_fs_row(const void *a, const void *b)
{
	const struct fs_row *x = a, *y = b;
	if (x->precedence != y->precedence)
		return x->precedence < y->precedence ? -1 : 1;
	return strcmp(x->o->name, y->o->name);
}

/*
 * The rows of k in the order the apiserver prints them: malloc'd (the
 * caller frees it), or NULL when that is the order given (or out of
 * memory). Only flow schemas are reordered: their list printer sorts by
 * spec.matchingPrecedence (0 when unset), then by name.
 */
static struct cache_obj **rows_in_order(const struct cache_kind *k,
					struct cache_obj *const *rows, size_t n)
{
	if (n < 2 || strcmp(k->group, "flowcontrol.apiserver.k8s.io") ||
	    strcmp(k->resource, "flowschemas"))
		return NULL;
	struct fs_row *fs = xcalloc(n, sizeof(*fs));
	struct cache_obj **out = xcalloc(n, sizeof(*out));
	if (!fs || !out) {
		free(fs);
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_doc d = JSON_DOC_INIT;
		fs[i].o = rows[i];
		if (!json_parse(&d, rows[i]->json, rows[i]->len, NULL, 0)) {
			int spec = json_get(&d, 0, "spec");
			int p = json_get(&d, spec, "matchingPrecedence");
			int64_t v;
			if (p >= 0 && !json_i64(&d, p, &v))
				fs[i].precedence = v;
		}
		json_doc_free(&d);
	}
	qsort(fs, n, sizeof(*fs), cmp_fs_row);
	for (size_t i = 0; i < n; i++)
		out[i] = fs[i].o;
	free(fs);
	return out;
}

void proxy_table_render(struct buf *b, const struct cache_kind *k,
			const struct proxy_table_format *f,
			const char *metadata, struct cache_obj *const *rows,
			size_t n, bool columns, time_t now)
{
	const struct proxy_table_cols *p;
	/* a custom resource's columns, read from its CRD once per Table */
	struct proxy_table_crd_cols *crd =
		printer_of(k, &p) == P_DEFAULT ? crd_cols(k) : NULL;
	buf_printf(b,
		   "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
		   "\"metadata\":%s,",
		   f->version, metadata);
	head(b, k, columns, crd);
	buf_adds(b, ",\"rows\":[");
	struct cache_obj **sorted = rows_in_order(k, rows, n);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		row(b, k, sorted ? sorted[i] : rows[i], f, now, crd);
	}
	buf_adds(b, "]}");
	free(sorted);
	proxy_table_crd_cols_free(crd);
}

/* ---- a LIST's body, a part at a time ---- */

struct proxy_table_list {
	const struct cache_kind *k;
	struct proxy_table_format f;
	char *meta;
	struct cache_obj *const *rows;
	size_t n, at;
	bool started, ended;
	time_t now;
	struct proxy_table_crd_cols *crd; /* a custom resource's columns */
	struct cache_obj **sorted;	  /* rows reordered (owned), or NULL */
};

struct proxy_table_list *
proxy_table_list_new(const struct cache_kind *k,
		     const struct proxy_table_format *f, const char *metadata,
		     struct cache_obj *const *rows, size_t n, time_t now)
{
	struct proxy_table_list *tl = xcalloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->meta = xstrdup(metadata);
	if (!tl->meta) {
		free(tl);
		return NULL;
	}
	const struct proxy_table_cols *p;
	tl->k = k;
	tl->f = *f;
	/* the printer sorts; a PartialObjectMetadataList keeps the order */
	if (f->form == PROXY_TABLE_FORM_TABLE)
		tl->sorted = rows_in_order(k, rows, n);
	tl->rows = tl->sorted ? tl->sorted : rows;
	tl->n = n;
	tl->now = now;
	/* read once per LIST, as proxy_table_render() does per Table */
	if (f->form == PROXY_TABLE_FORM_TABLE && printer_of(k, &p) == P_DEFAULT)
		tl->crd = crd_cols(k);
	return tl;
}

bool proxy_table_list_next(struct proxy_table_list *tl, struct buf *b,
			   size_t want)
{
	bool table = tl->f.form == PROXY_TABLE_FORM_TABLE;
	size_t start = b->len;
	if (tl->ended)
		return false;
	if (!tl->started) {
		tl->started = true;
		if (table) {
			buf_printf(b,
				   "{\"kind\":\"Table\",\"apiVersion\":"
				   "\"meta.k8s.io/%s\",\"metadata\":%s,",
				   tl->f.version, tl->meta);
			head(b, tl->k, true, tl->crd);
			buf_adds(b, ",\"rows\":[");
		} else {
			buf_printf(b,
				   "{\"kind\":\"PartialObjectMetadataList\","
				   "\"apiVersion\":\"meta.k8s.io/%s\","
				   "\"metadata\":%s,\"items\":[",
				   tl->f.version, tl->meta);
		}
	}
	while (tl->at < tl->n && b->len - start < want && buf_ok(b)) {
		if (tl->at)
			buf_addc(b, ',');
		if (table)
			row(b, tl->k, tl->rows[tl->at], &tl->f, tl->now,
			    tl->crd);
		else
			proxy_table_metadata_render(b, tl->k, tl->rows[tl->at],
						    tl->f.version);
		tl->at++;
	}
	if (tl->at == tl->n) {
		buf_adds(b, "]}\n");
		tl->ended = true;
	}
	return true;
}

void proxy_table_list_free(struct proxy_table_list *tl)
{
	if (!tl)
		return;
	proxy_table_crd_cols_free(tl->crd);
	free(tl->sorted);
	free(tl->meta);
	free(tl);
}

void proxy_table_object_meta(const struct cache_obj *o, char *out,
			     size_t outlen)
{
	snprintf(out, outlen, "{\"resourceVersion\":\"%llu\"}",
		 (unsigned long long)o->rv);
}
