/*
 * fake_openapi: /openapi/v2 and /openapi/v3 (see fake_openapi.h).
 *
 * Every document is generated from fake_res_table, so custom resources
 * declared with --crd appear too. Per resource there are two paths, as
 * on a real apiserver:
 *   PREFIX[/namespaces/{namespace}]/RES         get (list), post
 *   PREFIX[/namespaces/{namespace}]/RES/{name}  get, put, patch, delete
 * each operation carrying x-kubernetes-action and
 * x-kubernetes-group-version-kind; writes list the dryRun, fieldManager
 * and fieldValidation query parameters. The schemas describe the
 * members the fake knows (kind, apiVersion, metadata, a ConfigMap's
 * data) and leave spec and status open
 * (x-kubernetes-preserve-unknown-fields).
 *
 * The v3 index gives each group/version a serverRelativeURL with
 * ?hash=, the hash of that document, which client-go uses as its cache
 * key; the document itself is served whatever hash is asked. Each JSON
 * document carries an ETag (its hash), and a GET whose If-None-Match
 * names it is answered 304 with no body, as the apiserver does: what
 * kubectl's and client-go's openapi cache send on every run.
 */
#include "fake_openapi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/buf.h"
#include "fake_http.h"
#include "fake_res.h"

#define V2_PROTO "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
#define V2_PROTO_REPLY \
	"application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
#define META "io.k8s.apimachinery.pkg.apis.meta.v1."

/* --- names ----------------------------------------------------------- */

/* The schema name of r's kind (or list kind): io.k8s.api.core.v1.Pod,
 * or the reversed group for a custom resource: com.example.v1.Widget. */
static void schema_name(struct buf *b, const struct fake_res *r, bool list)
{
	const char *g = r->group;
	size_t gl = strcspn(g, ".");
	if (!*g) {
		buf_printf(b, "io.k8s.api.core.%s.", r->version);
	} else if (!r->custom) {
		/* a built-in group: io.k8s.api.coordination.v1.Lease */
		buf_printf(b, "io.k8s.api.%.*s.%s.", (int)gl, g, r->version);
	} else {
		size_t n = strlen(g);
		while (n > 0) {
			size_t s = n;
			while (s > 0 && g[s - 1] != '.')
				s--;
			buf_printf(b, "%.*s.", (int)(n - s), g + s);
			n = s ? s - 1 : 0;
		}
		buf_printf(b, "%s.", r->version);
	}
	buf_adds(b, list ? r->list_kind : r->kind);
}

/* "CoreV1", "ExampleComV1": the middle of an operationId. */
static void gv_camel(struct buf *b, const struct fake_res *r)
{
	const char *g = *r->group ? r->group : "core";
	/* built-in groups drop ".k8s.io": CoordinationV1 */
	const char *end = r->custom ? g + strlen(g) : g + strcspn(g, ".");
	bool up = true;
	for (; g < end; g++) {
		if (*g == '.' || *g == '-') {
			up = true;
			continue;
		}
		buf_addc(b,
			 up && *g >= 'a' && *g <= 'z' ? (char)(*g - 32) : *g);
		up = false;
	}
	buf_printf(b, "%c%s", r->version[0] - 32, r->version + 1);
}

/* PREFIX[/namespaces/{namespace}]/RES[/{name}] */
static void res_path(struct buf *b, const struct fake_res *r, bool item)
{
	if (*r->group)
		buf_printf(b, "/apis/%s/%s", r->group, r->version);
	else
		buf_printf(b, "/api/%s", r->version);
	if (r->namespaced)
		buf_adds(b, "/namespaces/{namespace}");
	buf_printf(b, "/%s%s", r->resource, item ? "/{name}" : "");
}

/* --- JSON documents (v3, and v2 when v2 is set) ----------------------- */

static void ref(struct buf *b, bool v2, const struct fake_res *r, bool list,
		const char *meta)
{
	buf_printf(b, "{\"$ref\":\"#/%s/",
		   v2 ? "definitions" : "components/schemas");
	if (meta)
		buf_printf(b, META "%s", meta);
	else
		schema_name(b, r, list);
	buf_adds(b, "\"}");
}

static void query_param(struct buf *b, bool v2, const char *name,
			const char *type)
{
	if (v2)
		buf_printf(b,
			   "{\"uniqueItems\":true,\"type\":\"%s\",\"name\":"
			   "\"%s\",\"in\":\"query\"}",
			   type, name);
	else
		buf_printf(b,
			   "{\"name\":\"%s\",\"in\":\"query\",\"schema\":"
			   "{\"type\":\"%s\",\"uniqueItems\":true}}",
			   name, type);
}

enum op {
	OP_LIST,
	OP_CREATE,
	OP_GET,
	OP_REPLACE,
	OP_PATCH,
	OP_DELETE
};

static const struct {
	const char *method, *verb, *action;
	bool write;
} ops[] = {
	[OP_LIST] = { "get", "list", "list", false },
	[OP_CREATE] = { "post", "create", "post", true },
	[OP_GET] = { "get", "read", "get", false },
	[OP_REPLACE] = { "put", "replace", "put", true },
	[OP_PATCH] = { "patch", "patch", "patch", true },
	[OP_DELETE] = { "delete", "delete", "delete", false },
};

static void operation(struct buf *b, bool v2, const struct fake_res *r,
		      enum op o)
{
	const char *body_types =
		o == OP_PATCH ? "application/merge-patch+json\",\"application/"
				"strategic-merge-patch+json" :
				"application/json";

	buf_printf(b, "\"%s\":{\"operationId\":\"%s", ops[o].method,
		   ops[o].verb);
	gv_camel(b, r);
	buf_printf(b, "%s%s\",", r->namespaced ? "Namespaced" : "", r->kind);
	if (v2 && ops[o].write)
		buf_printf(b, "\"consumes\":[\"%s\"],", body_types);
	if (v2)
		buf_adds(b, "\"produces\":[\"application/json\"],\"schemes\":"
			    "[\"https\"],");
	buf_adds(b, "\"parameters\":[");
	if (ops[o].write) {
		query_param(b, v2, "dryRun", "string");
		buf_addc(b, ',');
		query_param(b, v2, "fieldManager", "string");
		buf_addc(b, ',');
		query_param(b, v2, "fieldValidation", "string");
		if (v2) {
			buf_adds(b, ",{\"name\":\"body\",\"in\":\"body\","
				    "\"required\":true,\"schema\":");
			ref(b, v2, r, false, o == OP_PATCH ? "Patch" : NULL);
			buf_addc(b, '}');
		}
	} else if (o == OP_LIST) {
		static const char *const lp[] = {
			"labelSelector",   "fieldSelector",	   "continue",
			"resourceVersion", "resourceVersionMatch", NULL
		};
		for (int i = 0; lp[i]; i++) {
			query_param(b, v2, lp[i], "string");
			buf_addc(b, ',');
		}
		query_param(b, v2, "limit", "integer");
		buf_addc(b, ',');
		query_param(b, v2, "timeoutSeconds", "integer");
		buf_addc(b, ',');
		query_param(b, v2, "watch", "boolean");
		buf_addc(b, ',');
		query_param(b, v2, "allowWatchBookmarks", "boolean");
		buf_addc(b, ',');
		query_param(b, v2, "sendInitialEvents", "boolean");
	}
	buf_adds(b, "],");
	if (!v2 && ops[o].write) {
		buf_adds(b, "\"requestBody\":{\"content\":{");
		const char *t = body_types;
		for (int i = 0; t; i++) {
			const char *e = strchr(t, '"');
			buf_printf(b, "%s\"%.*s\":{\"schema\":", i ? "," : "",
				   e ? (int)(e - t) : (int)strlen(t), t);
			ref(b, v2, r, false, o == OP_PATCH ? "Patch" : NULL);
			buf_addc(b, '}');
			t = e ? e + 3 : NULL; /* past the "," */
		}
		buf_adds(b, "},\"required\":true},");
	}
	buf_printf(b, "\"responses\":{\"%s\":{\"description\":\"%s\",",
		   o == OP_CREATE ? "201" : "200",
		   o == OP_CREATE ? "Created" : "OK");
	if (v2) {
		buf_adds(b, "\"schema\":");
		ref(b, v2, r, o == OP_LIST, NULL);
	} else {
		buf_adds(b, "\"content\":{\"application/json\":{\"schema\":");
		ref(b, v2, r, o == OP_LIST, NULL);
		buf_adds(b, "}}");
	}
	buf_printf(b,
		   "},\"401\":{\"description\":\"Unauthorized\"}},"
		   "\"x-kubernetes-action\":\"%s\","
		   "\"x-kubernetes-group-version-kind\":{\"group\":\"%s\","
		   "\"kind\":\"%s\",\"version\":\"%s\"}}",
		   ops[o].action, r->group, r->kind, r->version);
}

static void path_param(struct buf *b, bool v2, const char *name)
{
	if (v2)
		buf_printf(b,
			   "{\"uniqueItems\":true,\"type\":\"string\","
			   "\"description\":\"%s\",\"name\":\"%s\","
			   "\"in\":\"path\",\"required\":true}",
			   name, name);
	else
		buf_printf(b,
			   "{\"name\":\"%s\",\"in\":\"path\",\"description\":"
			   "\"%s\",\"required\":true,\"schema\":{\"type\":"
			   "\"string\",\"uniqueItems\":true}}",
			   name, name);
}

static void paths_of(struct buf *b, bool v2, const struct fake_res *r,
		     bool *first)
{
	for (int item = 0; item < 2; item++) {
		buf_adds(b, *first ? "\"" : ",\"");
		*first = false;
		res_path(b, r, item);
		buf_adds(b, "\":{");
		if (item) {
			operation(b, v2, r, OP_GET);
			buf_addc(b, ',');
			operation(b, v2, r, OP_REPLACE);
			buf_addc(b, ',');
			operation(b, v2, r, OP_PATCH);
			buf_addc(b, ',');
			operation(b, v2, r, OP_DELETE);
		} else {
			operation(b, v2, r, OP_LIST);
			buf_addc(b, ',');
			operation(b, v2, r, OP_CREATE);
		}
		buf_adds(b, ",\"parameters\":[");
		if (item)
			path_param(b, v2, "name");
		if (r->namespaced) {
			if (item)
				buf_addc(b, ',');
			path_param(b, v2, "namespace");
		}
		buf_adds(b, "]}");
	}
}

static const char meta_schema[] =
	"{\"description\":\"ObjectMeta is metadata that all persisted "
	"resources must have.\",\"type\":\"object\",\"properties\":{"
	"\"name\":{\"type\":\"string\"},\"generateName\":{\"type\":\"string\"},"
	"\"namespace\":{\"type\":\"string\"},\"selfLink\":{\"type\":\"string\"}"
	","
	"\"uid\":{\"type\":\"string\"},\"resourceVersion\":{\"type\":"
	"\"string\"},"
	"\"generation\":{\"type\":\"integer\",\"format\":\"int64\"},"
	"\"creationTimestamp\":{\"type\":\"string\",\"format\":\"date-time\"},"
	"\"deletionTimestamp\":{\"type\":\"string\",\"format\":\"date-time\"},"
	"\"deletionGracePeriodSeconds\":{\"type\":\"integer\",\"format\":"
	"\"int64\"},"
	"\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":"
	"\"string\",\"default\":\"\"}},"
	"\"annotations\":{\"type\":\"object\",\"additionalProperties\":"
	"{\"type\":\"string\",\"default\":\"\"}},"
	"\"ownerReferences\":{\"type\":\"array\",\"items\":{\"type\":"
	"\"object\","
	"\"x-kubernetes-preserve-unknown-fields\":true}},"
	"\"finalizers\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
	"\"default\":\"\"}},"
	"\"managedFields\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	"\"x-kubernetes-preserve-unknown-fields\":true}}}}";

static void kind_schemas(struct buf *b, bool v2, const struct fake_res *r)
{
	buf_adds(b, ",\"");
	schema_name(b, r, false);
	buf_printf(b,
		   "\":{\"description\":\"%s, as served by the fake "
		   "apiserver.\",\"type\":\"object\",\"properties\":{"
		   "\"apiVersion\":{\"type\":\"string\"},"
		   "\"kind\":{\"type\":\"string\"},\"metadata\":",
		   r->kind);
	if (v2)
		ref(b, v2, r, false, "ObjectMeta");
	else {
		buf_adds(b, "{\"default\":{},\"allOf\":[");
		ref(b, v2, r, false, "ObjectMeta");
		buf_adds(b, "]}");
	}
	if (!r->custom && strcmp(r->kind, "Event") == 0)
		buf_adds(
			b,
			",\"involvedObject\":{\"type\":\"object\","
			"\"x-kubernetes-preserve-unknown-fields\":true},"
			"\"reason\":{\"type\":\"string\"},"
			"\"message\":{\"type\":\"string\"},"
			"\"source\":{\"type\":\"object\","
			"\"x-kubernetes-preserve-unknown-fields\":true},"
			"\"firstTimestamp\":{\"type\":\"string\","
			"\"format\":\"date-time\"},"
			"\"lastTimestamp\":{\"type\":\"string\","
			"\"format\":\"date-time\"},"
			"\"count\":{\"type\":\"integer\",\"format\":\"int32\"},"
			"\"type\":{\"type\":\"string\"},"
			"\"reportingComponent\":{\"type\":\"string\","
			"\"default\":\"\"},"
			"\"reportingInstance\":{\"type\":\"string\","
			"\"default\":\"\"}");
	else if (!r->custom && strcmp(r->kind, "Lease") == 0)
		buf_adds(b, ",\"spec\":{\"type\":\"object\","
			    "\"x-kubernetes-preserve-unknown-fields\":true}");
	else if (!r->custom && strcmp(r->kind, "ConfigMap") == 0)
		buf_adds(b, ",\"immutable\":{\"type\":\"boolean\"},"
			    "\"data\":{\"type\":\"object\","
			    "\"additionalProperties\":"
			    "{\"type\":\"string\",\"default\":\"\"}},"
			    "\"binaryData\":{\"type\":\"object\","
			    "\"additionalProperties\":{\"type\":\"string\","
			    "\"format\":\"byte\"}}");
	else
		buf_adds(b, ",\"spec\":{\"type\":\"object\","
			    "\"x-kubernetes-preserve-unknown-fields\":true},"
			    "\"status\":{\"type\":\"object\","
			    "\"x-kubernetes-preserve-unknown-fields\":true}");
	buf_printf(b,
		   "},\"x-kubernetes-group-version-kind\":[{\"group\":\"%s\","
		   "\"kind\":\"%s\",\"version\":\"%s\"}]}",
		   r->group, r->kind, r->version);

	buf_adds(b, ",\"");
	schema_name(b, r, true);
	buf_printf(b,
		   "\":{\"description\":\"%s is a list of %s.\","
		   "\"type\":\"object\",\"required\":[\"items\"],"
		   "\"properties\":{\"apiVersion\":{\"type\":\"string\"},"
		   "\"kind\":{\"type\":\"string\"},\"metadata\":",
		   r->list_kind, r->kind);
	ref(b, v2, r, false, "ListMeta");
	buf_adds(b, ",\"items\":{\"type\":\"array\",\"items\":");
	ref(b, v2, r, false, NULL);
	buf_printf(b,
		   "}},\"x-kubernetes-group-version-kind\":[{\"group\":"
		   "\"%s\",\"kind\":\"%s\",\"version\":\"%s\"}]}",
		   r->group, r->list_kind, r->version);
}

static void common_schemas(struct buf *b)
{
	buf_adds(b, "\"" META "ObjectMeta\":");
	buf_adds(b, meta_schema);
	buf_adds(b,
		 ",\"" META "ListMeta\":{\"type\":\"object\",\"properties\":{"
		 "\"continue\":{\"type\":\"string\"},\"remainingItemCount\":"
		 "{\"type\":\"integer\",\"format\":\"int64\"},"
		 "\"resourceVersion\":{\"type\":\"string\"},\"selfLink\":"
		 "{\"type\":\"string\"}}},"
		 "\"" META "Patch\":{\"description\":\"Patch is provided to "
		 "give a concrete name and type to the Kubernetes PATCH "
		 "request body.\",\"type\":\"object\"}");
}

/* The v3 document of one group/version ("" group for the core one). */
static void v3_doc(struct buf *b, const char *group, const char *version)
{
	bool first = true;

	buf_adds(b, "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Kubernetes\","
		    "\"version\":\"v1.32.6\"},\"paths\":{");
	for (int i = 0; i < fake_nres; i++)
		if (strcmp(fake_res_table[i].group, group) == 0 &&
		    strcmp(fake_res_table[i].version, version) == 0)
			paths_of(b, false, &fake_res_table[i], &first);
	buf_adds(b, "},\"components\":{\"schemas\":{");
	common_schemas(b);
	for (int i = 0; i < fake_nres; i++)
		if (strcmp(fake_res_table[i].group, group) == 0 &&
		    strcmp(fake_res_table[i].version, version) == 0)
			kind_schemas(b, false, &fake_res_table[i]);
	buf_adds(b, "}}}\n");
}

static void v2_doc(struct buf *b)
{
	bool first = true;

	buf_adds(b, "{\"swagger\":\"2.0\",\"info\":{\"title\":\"Kubernetes\","
		    "\"version\":\"v1.32.6\"},\"paths\":{");
	for (int i = 0; i < fake_nres; i++)
		paths_of(b, true, &fake_res_table[i], &first);
	buf_adds(b, "},\"definitions\":{");
	common_schemas(b);
	for (int i = 0; i < fake_nres; i++)
		kind_schemas(b, true, &fake_res_table[i]);
	buf_adds(b, "}}\n");
}

/* A content hash, as hex (the v3 index's ?hash=). */
static void hash_hex(const struct buf *doc, char out[33])
{
	uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
	for (size_t i = 0; i < doc->len; i++) {
		h1 = (h1 ^ (unsigned char)doc->p[i]) * 0x100000001b3ULL;
		h2 = (h2 ^ (unsigned char)doc->p[doc->len - 1 - i]) *
		     0x100000001b3ULL;
	}
	snprintf(out, 33, "%016llX%016llX", (unsigned long long)h1,
		 (unsigned long long)h2);
}

static void v3_index(struct buf *b)
{
	const char *seen[FAKE_RES_MAX][2];
	int nseen = 0;

	buf_adds(b, "{\"paths\":{");
	for (int i = 0; i < fake_nres; i++) {
		const struct fake_res *r = &fake_res_table[i];
		int k;
		for (k = 0; k < nseen; k++)
			if (!strcmp(seen[k][0], r->group) &&
			    !strcmp(seen[k][1], r->version))
				break;
		if (k < nseen)
			continue;
		seen[nseen][0] = r->group;
		seen[nseen][1] = r->version;

		struct buf doc = BUF_INIT, gv = BUF_INIT;
		char h[33];
		v3_doc(&doc, r->group, r->version);
		hash_hex(&doc, h);
		if (*r->group)
			buf_printf(&gv, "apis/%s/%s", r->group, r->version);
		else
			buf_printf(&gv, "api/%s", r->version);
		buf_printf(b,
			   "%s\"%s\":{\"serverRelativeURL\":\"/openapi/v3/%s"
			   "?hash=%s\"}",
			   nseen ? "," : "", gv.p, gv.p, h);
		buf_free(&doc);
		buf_free(&gv);
		nseen++;
	}
	buf_adds(b, "}}\n");
}

/* --- v2 as gnostic protobuf (openapi_v2.Document) ---------------------- */

static void pb_varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		buf_addc(b, (char)(v | 0x80));
		v >>= 7;
	}
	buf_addc(b, (char)v);
}

static void pb_bytes(struct buf *b, unsigned num, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)num << 3 | 2);
	pb_varint(b, n);
	buf_add(b, p, n);
}

static void pb_str(struct buf *b, unsigned num, const char *s)
{
	pb_bytes(b, num, s, strlen(s));
}

/* Append m as field num and empty m. */
static void pb_msg(struct buf *b, unsigned num, struct buf *m)
{
	pb_bytes(b, num, m->p ? m->p : "", m->len);
	buf_free(m);
}

/* Operation {5 operation_id, 8 parameters, 9 responses,
 * 13 vendor_extension} of r's PATCH. */
static void pb_patch_op(struct buf *op, const struct fake_res *r)
{
	struct buf id = BUF_INIT, q = BUF_INIT, nb = BUF_INIT, par = BUF_INIT,
		   item = BUF_INIT, resp = BUF_INIT, rv = BUF_INIT,
		   nrv = BUF_INIT, rs = BUF_INIT, any = BUF_INIT,
		   ext = BUF_INIT, yaml = BUF_INIT;

	buf_adds(&id, "patch");
	gv_camel(&id, r);
	buf_printf(&id, "%s%s", r->namespaced ? "Namespaced" : "", r->kind);
	pb_str(op, 5, id.p);
	buf_free(&id);

	/* ParametersItem{1 Parameter{2 NonBodyParameter{3 QueryParameter
	 * SubSchema{2 in, 4 name, 6 type, 20 unique_items}}}} */
	pb_str(&q, 2, "query");
	pb_str(&q, 4, "fieldValidation");
	pb_str(&q, 6, "string");
	pb_varint(&q, 20 << 3 | 0);
	pb_varint(&q, 1);
	pb_msg(&nb, 3, &q);
	pb_msg(&par, 2, &nb);
	pb_msg(&item, 1, &par);
	pb_msg(op, 8, &item);

	/* Responses{1 NamedResponseValue{1 "200", 2 ResponseValue{1
	 * Response{1 description}}}} */
	pb_str(&resp, 1, "OK");
	pb_msg(&rv, 1, &resp);
	pb_str(&nrv, 1, "200");
	pb_msg(&nrv, 2, &rv);
	pb_msg(&rs, 1, &nrv);
	pb_msg(op, 9, &rs);

	/* NamedAny{1 name, 2 Any{2 yaml}} */
	buf_printf(&yaml, "group: \"%s\"\nkind: %s\nversion: %s\n", r->group,
		   r->kind, r->version);
	pb_str(&any, 2, yaml.p);
	buf_free(&yaml);
	pb_str(&ext, 1, "x-kubernetes-group-version-kind");
	pb_msg(&ext, 2, &any);
	pb_msg(op, 13, &ext);
	pb_str(&ext, 1, "x-kubernetes-action");
	pb_str(&any, 2, "patch\n");
	pb_msg(&ext, 2, &any);
	pb_msg(op, 13, &ext);
}

/* Document {1 swagger, 2 info {1 title, 2 version}, 8 paths {2
 * NamedPathItem {1 name, 2 PathItem {8 patch}}}}. */
static void v2_proto(struct buf *b)
{
	struct buf info = BUF_INIT, paths = BUF_INIT;

	pb_str(b, 1, "2.0");
	pb_str(&info, 1, "Kubernetes");
	pb_str(&info, 2, "v1.32.6");
	pb_msg(b, 2, &info);
	for (int i = 0; i < fake_nres; i++) {
		struct buf name = BUF_INIT, op = BUF_INIT, pi = BUF_INIT,
			   npi = BUF_INIT;
		res_path(&name, &fake_res_table[i], true);
		pb_patch_op(&op, &fake_res_table[i]);
		pb_msg(&pi, 8, &op);
		pb_str(&npi, 1, name.p);
		buf_free(&name);
		pb_msg(&npi, 2, &pi);
		pb_msg(&paths, 2, &npi);
	}
	pb_msg(b, 8, &paths);
}

/* --- serving --------------------------------------------------------- */

static bool accepts_v2_proto(struct MHD_Connection *c)
{
	const char *a =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	if (!a)
		return false;
	const char *p = strstr(a, V2_PROTO);
	const char *j = strstr(a, "application/json");
	/* the first of the two the client lists wins */
	return p && (!j || p < j);
}

static enum MHD_Result reply_proto(struct MHD_Connection *c, struct buf *b)
{
	size_t len = 0;
	char *p = buf_steal(b, &len);
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!p)
		return MHD_NO;
	r = MHD_create_response_from_buffer(len, p, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(p);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", V2_PROTO_REPLY);
	MHD_add_response_header(r, "Cache-Control", "no-cache, private");
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static ssize_t no_body(void *cls, uint64_t pos, char *out, size_t max)
{
	(void)cls;
	(void)pos;
	(void)out;
	(void)max;
	return MHD_CONTENT_READER_END_OF_STREAM;
}

/* A JSON document with its ETag, as the apiserver's: 304 with no body
 * (the ETag kept) when If-None-Match names it, the client's cached copy
 * being current. */
static enum MHD_Result reply_doc(struct MHD_Connection *c, struct buf *b)
{
	char hash[33], etag[40];
	hash_hex(b, hash);
	snprintf(etag, sizeof(etag), "\"%s\"", hash);
	const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "If-None-Match");
	if (!inm || !strstr(inm, etag)) {
		size_t len = 0;
		char *p = buf_steal(b, &len);
		struct MHD_Response *r =
			p ? MHD_create_response_from_buffer(
				    len, p, MHD_RESPMEM_MUST_FREE) :
			    NULL;
		if (!r) {
			free(p);
			return MHD_NO;
		}
		MHD_add_response_header(r, "Content-Type", "application/json");
		MHD_add_response_header(r, "Etag", etag);
		MHD_add_response_header(r, "Vary", "Accept");
		enum MHD_Result ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	buf_free(b);
	/* the apiserver's 304 has no Content-Length (nor a body): a
	 * response of unknown size sent the HTTP/1.0 way, which ends with
	 * the connection, is one libmicrohttpd sends without either */
	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 1024, no_body, NULL, NULL);
	if (!r)
		return MHD_NO;
	MHD_set_response_options(r, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT,
				 MHD_RO_END);
	MHD_add_response_header(r, "Etag", etag);
	MHD_add_response_header(r, "Vary", "Accept");
	enum MHD_Result ret = MHD_queue_response(c, 304, r);
	MHD_destroy_response(r);
	return ret;
}

bool fake_openapi_serve(struct MHD_Connection *c, const char *path,
			enum MHD_Result *ret)
{
	struct buf b = BUF_INIT;

	if (strncmp(path, "/openapi/", 9) != 0)
		return false;
	path += 9;
	if (strcmp(path, "v2") == 0) {
		if (accepts_v2_proto(c)) {
			v2_proto(&b);
			*ret = buf_ok(&b) ? reply_proto(c, &b) : MHD_NO;
			buf_free(&b);
			return true;
		}
		v2_doc(&b);
	} else if (strcmp(path, "v3") == 0 || strcmp(path, "v3/") == 0) {
		v3_index(&b);
	} else if (strncmp(path, "v3/api/", 7) == 0 &&
		   fake_res_find_gvr("", path + 7, "namespaces") >= 0) {
		v3_doc(&b, "", path + 7);
	} else if (strncmp(path, "v3/apis/", 8) == 0) {
		char group[254];
		const char *g = path + 8, *slash = strchr(g, '/');
		bool found = false;
		if (slash && (size_t)(slash - g) < sizeof(group)) {
			snprintf(group, sizeof(group), "%.*s", (int)(slash - g),
				 g);
			for (int i = 0; i < fake_nres && !found; i++)
				found = strcmp(fake_res_table[i].group,
					       group) == 0 &&
					strcmp(fake_res_table[i].version,
					       slash + 1) == 0;
		}
		if (!found) {
			*ret = fake_reply_no_route(c);
			return true;
		}
		v3_doc(&b, group, slash + 1);
	} else {
		*ret = fake_reply_no_route(c);
		return true;
	}
	if (!buf_ok(&b)) {
		buf_free(&b);
		*ret = MHD_NO;
		return true;
	}
	*ret = reply_doc(c, &b);
	return true;
}
