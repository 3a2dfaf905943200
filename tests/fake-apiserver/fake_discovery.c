/*
 * fake_discovery: /version, /api, /api/v1 and /apis.
 *
 * Shaped like the real v1.32 answers: /api/v1 lists
 * the served resources with the verbs, short names, categories and
 * storageVersionHash the real apiserver gives; /apis lists the built-in
 * coordination.k8s.io group (leases) and the groups of the --crd custom
 * resources, /apis/G an APIGroup and /apis/G/V
 * its APIResourceList. /version is pretty-printed with no trailing
 * newline whatever the client, as the real one is.
 *
 * Aggregated discovery: GET /api or /apis whose Accept takes
 * application/json;g=apidiscovery.k8s.io;v=v2[beta1];as=APIGroupDiscoveryList
 * before plain JSON gets an APIGroupDiscoveryList with exactly that
 * Content-Type, Cache-Control: public, Vary: Accept and an ETag (a hash
 * of the v2 body, the same for v2beta1, as the apiserver's); If-None-Match
 * with it gives 304 with no body. /apis there also lists
 * authentication.k8s.io's tokenreviews with the one verb create.
 *
 * Protobuf: an Accept that ranks application/vnd.kubernetes.protobuf
 * first gets the discovery documents in protobuf, and GET /version a 406
 * (its Status in protobuf), as the apiserver answers (fake_pbout.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_http.h"
#include "fake_pbout.h"
#include "fake_res.h"
#include "fake_table.h"

#define AGG_TYPE                                       \
	"application/json;g=apidiscovery.k8s.io;v=%s;" \
	"as=APIGroupDiscoveryList"

static const char version_body[] =
	"{\n"
	"  \"major\": \"1\",\n"
	"  \"minor\": \"32\",\n"
	"  \"gitVersion\": \"v1.32.6\",\n"
	"  \"gitCommit\": \"60dcd7540d7cebe42b37a84d09e56b7bf9a19897\",\n"
	"  \"gitTreeState\": \"\",\n"
	"  \"buildDate\": \"1970-01-01T00:00:00Z\",\n"
	"  \"goVersion\": \"go1.23.5\",\n"
	"  \"compiler\": \"gc\",\n"
	"  \"platform\": \"linux/amd64\"\n"
	"}";

/* The resources of one group/version, sorted by name, in *order. */
static int gv_resources(const char *group, const char *version, int *order)
{
	int n = 0;
	for (int i = 0; i < fake_nres; i++)
		if (strcmp(fake_res_table[i].group, group) == 0 &&
		    strcmp(fake_res_table[i].version, version) == 0)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i;
		     j > 0 && strcmp(fake_res_table[order[j - 1]].resource,
				     fake_res_table[order[j]].resource) > 0;
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

static void add_verbs(struct buf *b, const struct fake_res *r)
{
	buf_printf(b,
		   "[\"create\",\"delete\",%s\"get\",\"list\",\"patch\","
		   "\"update\",\"watch\"]",
		   r->namespaced ? "\"deletecollection\"," : "");
}

static void add_resource_list(struct buf *b, const char *group,
			      const char *version)
{
	int order[FAKE_RES_MAX], n = gv_resources(group, version, order);

	if (*group)
		buf_printf(b,
			   "{\"kind\":\"APIResourceList\",\"apiVersion\":"
			   "\"v1\",\"groupVersion\":\"%s/%s\",\"resources\":[",
			   group, version);
	else
		buf_adds(b, "{\"kind\":\"APIResourceList\",\"groupVersion\":"
			    "\"v1\",\"resources\":[");
	for (int i = 0; i < n; i++) {
		const struct fake_res *r = &fake_res_table[order[i]];
		buf_printf(b,
			   "%s{\"name\":\"%s\",\"singularName\":\"%s\","
			   "\"namespaced\":%s,\"kind\":\"%s\",\"verbs\":",
			   i ? "," : "", r->resource, r->singular,
			   r->namespaced ? "true" : "false", r->kind);
		add_verbs(b, r);
		if (r->short_name)
			buf_printf(b, ",\"shortNames\":[\"%s\"]",
				   r->short_name);
		if (r->category_all)
			buf_adds(b, ",\"categories\":[\"all\"]");
		buf_printf(b, ",\"storageVersionHash\":\"%s\"}", r->hash);
	}
	buf_adds(b, "]}\n");
}

/* The named groups (coordination.k8s.io, then the custom resources'),
 * each once, in table order; each group's versions likewise (the first
 * declared is preferred). */
static int groups(const char **out)
{
	int n = 0;
	for (int i = 0; i < fake_nres; i++) {
		int j = 0;
		if (!*fake_res_table[i].group)
			continue;
		while (j < n && strcmp(out[j], fake_res_table[i].group) != 0)
			j++;
		if (j == n)
			out[n++] = fake_res_table[i].group;
	}
	return n;
}

static int versions(const char *group, const char **out)
{
	int n = 0;
	for (int i = 0; i < fake_nres; i++) {
		if (!*group || strcmp(fake_res_table[i].group, group) != 0)
			continue;
		int j = 0;
		while (j < n && strcmp(out[j], fake_res_table[i].version) != 0)
			j++;
		if (j == n)
			out[n++] = fake_res_table[i].version;
	}
	return n;
}

static void add_group(struct buf *b, const char *g)
{
	const char *vs[FAKE_RES_MAX];
	int nv = versions(g, vs);

	buf_printf(b, "\"name\":\"%s\",\"versions\":[", g);
	for (int i = 0; i < nv; i++)
		buf_printf(b,
			   "%s{\"groupVersion\":\"%s/%s\",\"version\":\"%s\"}",
			   i ? "," : "", g, vs[i], vs[i]);
	buf_printf(b,
		   "],\"preferredVersion\":{\"groupVersion\":\"%s/%s\","
		   "\"version\":\"%s\"}",
		   g, vs[0], vs[0]);
}

static void add_group_list(struct buf *b)
{
	const char *gs[FAKE_RES_MAX];
	int ng = groups(gs);

	buf_adds(b, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\","
		    "\"groups\":[");
	for (int i = 0; i < ng; i++) {
		buf_adds(b, i ? ",{" : "{");
		add_group(b, gs[i]);
		buf_addc(b, '}');
	}
	buf_adds(b, "]}\n");
}

/* --- aggregated discovery ---------------------------------------------- */

/* One version's entry of an APIGroupDiscovery. */
static void add_agg_version(struct buf *b, const char *group,
			    const char *version)
{
	int order[FAKE_RES_MAX], n = gv_resources(group, version, order);

	buf_printf(b, "{\"version\":\"%s\",\"resources\":[", version);
	for (int i = 0; i < n; i++) {
		const struct fake_res *r = &fake_res_table[order[i]];
		buf_printf(b,
			   "%s{\"resource\":\"%s\",\"responseKind\":"
			   "{\"group\":\"\",\"version\":\"\",\"kind\":\"%s\"},"
			   "\"scope\":\"%s\",\"singularResource\":\"%s\","
			   "\"verbs\":",
			   i ? "," : "", r->resource, r->kind,
			   r->namespaced ? "Namespaced" : "Cluster",
			   r->singular);
		add_verbs(b, r);
		if (r->short_name)
			buf_printf(b, ",\"shortNames\":[\"%s\"]",
				   r->short_name);
		if (r->category_all)
			buf_adds(b, ",\"categories\":[\"all\"]");
		buf_addc(b, '}');
	}
	buf_adds(b, "],\"freshness\":\"Current\"}");
}

/* authentication.k8s.io's tokenreviews, as the real apiserver lists it
 * in aggregated discovery: a cluster-scoped resource with the one verb
 * create (fake_review.c serves it), so no list or watch. It is not in
 * fake_res_table, which holds what can be listed; the group comes first,
 * as in the real /apis. */
static void add_agg_reviews(struct buf *b)
{
	buf_adds(b, "{\"metadata\":{\"name\":\"authentication.k8s.io\","
		    "\"creationTimestamp\":null},\"versions\":[{\"version\":"
		    "\"v1\",\"resources\":[{\"resource\":\"tokenreviews\","
		    "\"responseKind\":{\"group\":\"\",\"version\":\"\","
		    "\"kind\":\"TokenReview\"},\"scope\":\"Cluster\","
		    "\"singularResource\":\"tokenreview\",\"verbs\":"
		    "[\"create\"]}],\"freshness\":\"Current\"}]}");
}

/* The APIGroupDiscoveryList of /api (core) or /apis (the groups). */
static void add_agg_list(struct buf *b, bool apis, const char *v)
{
	buf_printf(b,
		   "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":"
		   "\"apidiscovery.k8s.io/%s\",\"metadata\":{},\"items\":[",
		   v);
	if (!apis) {
		buf_adds(b, "{\"metadata\":{\"creationTimestamp\":null},"
			    "\"versions\":[");
		add_agg_version(b, "", "v1");
		buf_adds(b, "]}");
	} else {
		const char *gs[FAKE_RES_MAX], *vs[FAKE_RES_MAX];
		int ng = groups(gs);
		add_agg_reviews(b);
		for (int i = 0; i < ng; i++) {
			int nv = versions(gs[i], vs);
			buf_printf(b,
				   ",{\"metadata\":{\"name\":\"%s\","
				   "\"creationTimestamp\":null},\"versions\":[",
				   gs[i]);
			for (int j = 0; j < nv; j++) {
				if (j)
					buf_addc(b, ',');
				add_agg_version(b, gs[i], vs[j]);
			}
			buf_adds(b, "]}");
		}
	}
	buf_adds(b, "]}\n");
}

/* The aggregated version Accept asks for before plain JSON, or NULL. */
static const char *agg_wanted(struct MHD_Connection *c)
{
	const char *acc =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	struct fake_accept a;

	while (fake_accept_next(&acc, &a)) {
		if (!a.as[0])
			return NULL;
		if (strcmp(a.as, "APIGroupDiscoveryList") == 0 &&
		    strcmp(a.g, "apidiscovery.k8s.io") == 0) {
			if (strcmp(a.v, "v2") == 0)
				return "v2";
			if (strcmp(a.v, "v2beta1") == 0)
				return "v2beta1";
		}
	}
	return NULL;
}

/* 128 upper-case hex digits, the shape of the apiserver's SHA-512 ETag;
 * a hash for cache validation, not for security. */
static void etag_of(const struct buf *b, char out[132])
{
	static const char x[] = "0123456789ABCDEF";
	out[0] = '"';
	for (int k = 0; k < 8; k++) {
		uint64_t h = 0xcbf29ce484222325ULL ^
			     (uint64_t)k * 0x9e3779b97f4a7c15ULL;
		for (size_t i = 0; i < b->len; i++)
			h = (h ^ (unsigned char)b->p[i]) * 0x100000001b3ULL;
		for (int d = 0; d < 16; d++)
			out[1 + k * 16 + d] = x[(h >> (60 - 4 * d)) & 15];
	}
	out[129] = '"';
	out[130] = '\0';
}

static enum MHD_Result serve_aggregated(struct MHD_Connection *c, bool apis,
					const char *v)
{
	struct buf b = BUF_INIT, v2 = BUF_INIT;
	char etag[132], type[96];
	const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "If-None-Match");
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len;
	bool fresh;

	add_agg_list(&v2, apis, "v2");
	etag_of(&v2, etag);
	fresh = inm && strstr(inm, etag);
	if (!fresh && strcmp(v, "v2") != 0)
		add_agg_list(&b, apis, v);
	struct buf *body = strcmp(v, "v2") == 0 ? &v2 : &b;
	char *p = fresh ? NULL : buf_steal(body, &len);
	buf_free(&b);
	buf_free(&v2);
	if (fresh)
		r = MHD_create_response_from_buffer(0, (void *)"",
						    MHD_RESPMEM_PERSISTENT);
	else if (p)
		r = MHD_create_response_from_buffer(len, p,
						    MHD_RESPMEM_MUST_FREE);
	else
		return MHD_NO;
	if (!r) {
		free(p);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Cache-Control", "public");
	if (!fresh) {
		snprintf(type, sizeof(type), AGG_TYPE, v);
		MHD_add_response_header(r, "Content-Type", type);
	}
	MHD_add_response_header(r, "Etag", etag);
	MHD_add_response_header(r, "Vary", "Accept");
	ret = MHD_queue_response(c, fresh ? 304 : 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* path without a trailing slash equals want */
static bool is(const char *path, const char *want)
{
	size_t n = strlen(want);
	return strncmp(path, want, n) == 0 &&
	       (path[n] == '\0' || (path[n] == '/' && path[n + 1] == '\0'));
}

/* /apis/G or /apis/G/V of a served group; false when none. */
static bool serve_group_path(const char *path, struct buf *b)
{
	char g[200], v[40];
	const char *vs[FAKE_RES_MAX];

	if (strncmp(path, "/apis/", 6) != 0)
		return false;
	size_t gl = strcspn(path + 6, "/");
	if (gl == 0 || gl >= sizeof(g))
		return false;
	memcpy(g, path + 6, gl);
	g[gl] = '\0';
	const char *rest = path + 6 + gl;
	int nv = versions(g, vs);
	if (!nv || (*rest && strcmp(rest, "/") != 0 && rest[0] != '/'))
		return false;
	if (!*rest || strcmp(rest, "/") == 0) {
		buf_adds(b, "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",");
		add_group(b, g);
		buf_adds(b, "}\n");
		return true;
	}
	size_t vl = strcspn(rest + 1, "/");
	if (vl == 0 || vl >= sizeof(v) ||
	    (rest[1 + vl] && strcmp(rest + 1 + vl, "/") != 0))
		return false;
	memcpy(v, rest + 1, vl);
	v[vl] = '\0';
	for (int i = 0; i < nv; i++)
		if (strcmp(vs[i], v) == 0) {
			add_resource_list(b, g, v);
			return true;
		}
	return false;
}

bool fake_discovery_serve(struct MHD_Connection *c, const char *path,
			  enum MHD_Result *ret)
{
	struct buf b = BUF_INIT;
	const char *agg;
	enum fake_pb pb = FAKE_PB_JSON; /* /version: JSON only */

	if (is(path, "/version")) {
		if (!fake_pb_json_only(c, ret))
			return true;
		buf_adds(&b, version_body);
	} else if (is(path, "/api") || is(path, "/apis")) {
		bool apis = is(path, "/apis");
		if ((agg = agg_wanted(c))) {
			*ret = serve_aggregated(c, apis, agg);
			return true;
		}
		if (apis)
			add_group_list(&b);
		else
			buf_printf(&b,
				   "{\"kind\":\"APIVersions\",\"versions\":"
				   "[\"v1\"],\"serverAddressByClientCIDRs\":"
				   "[{\"clientCIDR\":\"0.0.0.0/0\","
				   "\"serverAddress\":\"127.0.0.1:%u\"}]}\n",
				   fake_http_port());
	} else if (is(path, "/api/v1")) {
		add_resource_list(&b, "", "v1");
	} else if (!serve_group_path(path, &b)) {
		buf_free(&b);
		return false;
	}
	if (!is(path, "/version"))
		pb = fake_pb_discovery(c);
	*ret = fake_pb_reply(c, 200, &b, pb);
	return true;
}
