/*
 * test_list: LIST and GET of a cached resource answered from the store,
 * as the apiserver answers them: the list's envelope and order, one
 * namespace's items, label and field selectors (and their 400s), limit
 * and continue paging over the first page's snapshot with
 * remainingItemCount, the resourceVersion rules (a bad limit ignored,
 * "0" ignoring limit, Exact or a limit with an RV read at exactly that
 * RV, upstream when the store's window does not reach it, 500/422 for a
 * bad resourceVersion or match, continue with a resourceVersion 400), an
 * expired or foreign continue token sent upstream, a malformed one 400,
 * GET of an object or its 404 Status, 406 for an Accept it cannot give,
 * Tables and metadata lists made while they are sent (chunked, the same
 * bytes as built whole, indented and gzip-compressed too, every page),
 * and allocation failure.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "cache/rvclock.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/continue.h"
#include "proxy/list.h"
#include "proxy/pretty.h"
#include "proxy/reply.h"
#include "proxy/table/table.h"
#include "gunzip.h"
#include "mhd_stub.h"
#include "names.h"
#include "check.h"

static struct cache_resource *pods;
static struct cache_resource *many; /* namespace "many": 1,500 pods */
/* namespace "long": a custom kind whose group is as long as a DNS name */
static struct cache_resource *longg;
static char long_group[254];
static struct cache_kind long_kind = { .version = "v1alpha1",
				       .resource = "widgets",
				       .kind = "Widget",
				       .list_kind = "WidgetList",
				       .namespaced = true };

/* The resource's objects, committed at RV 10: a/p1..p3 and b/q1. */
static void load(struct cache_resource *r)
{
	static const char *const objs[][4] = {
		{ "a", "p1", "web", "n1" },
		{ "a", "p2", "db", "n2" },
		{ "a", "p3", "web", "n2" },
		{ "b", "q1", "web", "n1" },
	};
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	for (size_t i = 0; i < 4; i++) {
		char js[512];
		snprintf(
			js, sizeof(js),
			"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
			"\"%s\",\"namespace\":\"%s\",\"resourceVersion\":\"%zu\","
			"\"labels\":{\"app\":\"%s\"}},\"spec\":{\"nodeName\":\"%s\"}}",
			objs[i][1], objs[i][0], i + 5, objs[i][2], objs[i][3]);
		struct cache_obj *o = cache_obj_parse(r->kind, js, strlen(js),
						      false, NULL, 0);
		CHECK(o != NULL);
		CHECK(cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
	}
	CHECK(cache_store_txn_commit(&t, 10) == 0);
}

/* LIST or GET as the route names; a read handed upstream answers 299. */
static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	struct proxy *p = arg;
	struct proxy_route rt;
	struct proxy_fresh_req req = { 0 };
	if (proxy_route_parse(url, &rt))
		return proxy_reply_text(c, 598, "text/plain", "bad route");
	struct cache_resource *r = !strcmp(rt.ns, "many") ? many :
				   !strcmp(rt.ns, "long") ? longg :
							    pods;
	enum MHD_Result res = rt.name[0] ?
				      proxy_list_get(p, c, r, &rt, &req) :
				      proxy_list_handle(p, c, r, &rt, &req);
	if (req.upstream)
		return proxy_reply_text(c, 299, "text/plain", "upstream");
	return res;
}

static struct mhd_stub srv;

static long get(const char *target, struct mhd_reply *r)
{
	CHECK(mhd_stub_get(srv.port, target, r) == 0);
	return r->status;
}

/* The names of a list's items, in order, as "ns/name ...". */
static void names(const char *body, char *out, size_t n)
{
	out[0] = '\0';
	const char *items = strstr(body, "\"items\":[");
	for (const char *q = items; q && (q = strstr(q, "\"name\":\""));
	     q += 8) {
		const char *ns = strstr(q, "\"namespace\":\"");
		char one[80];
		snprintf(one, sizeof(one), "%s%.*s/%.*s", out[0] ? " " : "",
			 ns ? (int)strcspn(ns + 13, "\"") : 0,
			 ns ? ns + 13 : "", (int)strcspn(q + 8, "\""), q + 8);
		strncat(out, one, n - strlen(out) - 1);
	}
}

/* The continue token of a list body, or "" */
static void token(const char *body, char *out, size_t n)
{
	const char *c = strstr(body, "\"continue\":\"");
	snprintf(out, n, "%.*s", c ? (int)strcspn(c + 12, "\"") : 0,
		 c ? c + 12 : "");
}

static void test_whole(void)
{
	struct mhd_reply r;
	char v[128], got[256];
	CHECK(get("/api/v1/pods?resourceVersion=0", &r) == 200);
	CHECK(!strncmp(
		r.body,
		"{\"kind\":\"PodList\",\"apiVersion\":\"v1\","
		"\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[{",
		strlen("{\"kind\":\"PodList\",\"apiVersion\":\"v1\","
		       "\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[{")));
	CHECK(r.len > 3 && !strcmp(r.body + r.len - 3, "]}\n"));
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2 a/p3 b/q1");
	/* items leave out kind and apiVersion, as the apiserver's do */
	CHECK(strstr(r.body, "\"kind\":\"Pod\"") == NULL);
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	mhd_reply_free(&r);

	/* one namespace */
	CHECK(get("/api/v1/namespaces/b/pods?resourceVersion=0", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "b/q1");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/namespaces/none/pods?resourceVersion=0", &r) == 200);
	CHECK(strstr(r.body, "\"items\":[]}\n") != NULL);
	mhd_reply_free(&r);

	/* resourceVersion=N not newer than the cache: answered at 10 */
	CHECK(get("/api/v1/pods?resourceVersion=7", &r) == 200);
	CHECK(strstr(r.body, "\"metadata\":{\"resourceVersion\":\"10\"}") !=
	      NULL);
	mhd_reply_free(&r);
}

static void test_selectors(void)
{
	struct mhd_reply r;
	char got[256];
	CHECK(get("/api/v1/pods?resourceVersion=0&labelSelector=app%3Dweb",
		  &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p3 b/q1");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/namespaces/a/pods?resourceVersion=0&labelSelector=app!%3Dweb",
		  &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p2");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=0&labelSelector=app%20in%20(db)",
		  &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p2");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=0&fieldSelector=spec.nodeName%3Dn2",
		  &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p2 a/p3");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=0&fieldSelector=metadata.name%3Dq1"
		  "&labelSelector=app%3Dweb",
		  &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "b/q1");
	mhd_reply_free(&r);
	/* a field the kind does not index, and a malformed selector: 400 */
	CHECK(get("/api/v1/pods?resourceVersion=0&fieldSelector=spec.nope%3Dx",
		  &r) == 400);
	CHECK(strstr(r.body, "\"reason\":\"BadRequest\"") != NULL);
	CHECK(strstr(r.body, "\"code\":400}") != NULL);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=0&labelSelector=a%20in%20(",
		  &r) == 400);
	CHECK(strstr(r.body, "\"kind\":\"Status\"") != NULL);
	mhd_reply_free(&r);
}

static void test_paging(void)
{
	struct mhd_reply r;
	char got[256], tok[512], path[700];
	/* limit=2 at resourceVersion=N (NotOlderThan): two items, a token,
	 * and what is left */
	CHECK(get("/api/v1/pods?resourceVersion=10&limit=2", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2");
	CHECK(strstr(r.body, "\"remainingItemCount\":2}") != NULL);
	token(r.body, tok, sizeof(tok));
	CHECK(tok[0] != '\0');
	mhd_reply_free(&r);
	uint64_t rv = 0;
	char ns[64], name[64], err[128];
	CHECK(proxy_continue_decode(tok, &rv, ns, sizeof(ns), name,
				    sizeof(name), err, sizeof(err)) == 0);
	CHECK(rv == 10);
	CHECK_STR(ns, "a");
	CHECK_STR(name, "p2");

	/* a write after the first page does not show in the next ones */
	struct cache_txn t;
	cache_store_txn_begin(pods->store, &t);
	CHECK(cache_store_txn_del(&t, "a", "p3", NULL) == 0);
	CHECK(cache_store_txn_commit(&t, 11) == 0);

	snprintf(path, sizeof(path), "/api/v1/pods?limit=1&continue=%s", tok);
	CHECK(get(path, &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p3");
	CHECK(strstr(r.body, "\"resourceVersion\":\"10\"") != NULL);
	CHECK(strstr(r.body, "\"remainingItemCount\":1}") != NULL);
	token(r.body, tok, sizeof(tok));
	mhd_reply_free(&r);
	snprintf(path, sizeof(path), "/api/v1/pods?limit=5&continue=%s", tok);
	CHECK(get(path, &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "b/q1");
	CHECK(strstr(r.body, "\"continue\"") == NULL); /* the last page */
	CHECK(strstr(r.body, "remainingItemCount") == NULL);
	mhd_reply_free(&r);

	/* a selector: a token, but no count (the apiserver cannot give one) */
	CHECK(get("/api/v1/pods?resourceVersion=11&limit=1&labelSelector=app%3Dweb",
		  &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1");
	CHECK(strstr(r.body, "\"continue\":\"") != NULL);
	CHECK(strstr(r.body, "remainingItemCount") == NULL);
	mhd_reply_free(&r);
	/* one namespace: counts within it */
	CHECK(get("/api/v1/namespaces/a/pods?resourceVersion=11&limit=1", &r) ==
	      200);
	CHECK(strstr(r.body, "\"remainingItemCount\":1}") != NULL);
	mhd_reply_free(&r);
	/* limit exactly the size: no token */
	CHECK(get("/api/v1/pods?resourceVersion=11&limit=3", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2 b/q1");
	CHECK(strstr(r.body, "\"continue\"") == NULL);
	mhd_reply_free(&r);

	/* "0" ignores limit; a bad limit is ignored */
	CHECK(get("/api/v1/pods?resourceVersion=0&limit=1", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2 b/q1");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=11&limit=x", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2 b/q1");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=11&limit=-1", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2 b/q1");
	mhd_reply_free(&r);
}

static void test_continue_errors(void)
{
	struct mhd_reply r;
	struct buf b = BUF_INIT;
	char path[600];
	/* a token of a snapshot no longer pinned: the upstream answers */
	proxy_continue_encode(&b, 9, "a", "p1");
	snprintf(path, sizeof(path), "/api/v1/pods?limit=1&continue=%s", b.p);
	CHECK(get(path, &r) == 299);
	CHECK_STR(r.body, "upstream");
	mhd_reply_free(&r);
	/* with a resourceVersion: 400 */
	snprintf(path, sizeof(path),
		 "/api/v1/pods?resourceVersion=9&continue=%s", b.p);
	CHECK(get(path, &r) == 400);
	CHECK(strstr(r.body,
		     "\"message\":\"specifying resource version is not allowed "
		     "when using continue\"") != NULL);
	mhd_reply_free(&r);
	buf_free(&b);
	/* not a token */
	CHECK(get("/api/v1/pods?limit=1&continue=%21%21notbase64", &r) == 400);
	CHECK(strstr(r.body, "\"reason\":\"BadRequest\"") != NULL);
	mhd_reply_free(&r);
	/* an empty continue is no continue */
	CHECK(get("/api/v1/pods?resourceVersion=0&continue=", &r) == 200);
	mhd_reply_free(&r);
}

static void test_rv_rules(void)
{
	struct mhd_reply r;
	/* Exact at an RV before the store's window: the upstream answers
	 * (from etcd's history, or its 410), never a 410 of ours */
	CHECK(get("/api/v1/pods?resourceVersion=5&resourceVersionMatch=Exact",
		  &r) == 299);
	mhd_reply_free(&r);
	/* so does a limit with an RV before it: an exact read too */
	CHECK(get("/api/v1/pods?limit=1&resourceVersion=1", &r) == 299);
	mhd_reply_free(&r);
	/* a limit with an RV inside it: the state at exactly that RV */
	CHECK(get("/api/v1/pods?limit=10&resourceVersion=10", &r) == 200);
	CHECK(strstr(r.body, "\"resourceVersion\":\"10\"") != NULL);
	CHECK(strstr(r.body, "\"name\":\"p3\"") != NULL); /* deleted at 11 */
	mhd_reply_free(&r);
	/* but "0" with a limit: the cache as it is, limit ignored */
	CHECK(get("/api/v1/pods?limit=1&resourceVersion=0", &r) == 200);
	CHECK(strstr(r.body, "\"resourceVersion\":\"11\"") != NULL);
	CHECK(strstr(r.body, "\"name\":\"p3\"") == NULL);
	CHECK(strstr(r.body, "\"continue\"") == NULL);
	mhd_reply_free(&r);
	/* Exact at an older version in the window: that state */
	CHECK(get("/api/v1/pods?resourceVersion=10&resourceVersionMatch=Exact",
		  &r) == 200);
	CHECK(strstr(r.body, "\"resourceVersion\":\"10\"") != NULL);
	CHECK(strstr(r.body, "\"name\":\"p3\"") != NULL); /* deleted at 11 */
	mhd_reply_free(&r);
	/* not a number: 500 with no reason */
	CHECK(get("/api/v1/pods?resourceVersion=abc", &r) == 500);
	CHECK(strstr(r.body, "\"reason\"") == NULL);
	CHECK(strstr(r.body, "\"code\":500}") != NULL);
	mhd_reply_free(&r);
	/* an RV the domain showed longer ago than etcd's compaction
	 * interval: the upstream says whether it still has it */
	int64_t now = cache_rvclock_now_ms();
	cache_rvclock_note(pods->clock, 10, now - 400 * 1000);
	CHECK(get("/api/v1/pods?resourceVersion=10&resourceVersionMatch=Exact",
		  &r) == 299);
	mhd_reply_free(&r);
	cache_rvclock_note(pods->clock, 11, now);
	CHECK(get("/api/v1/pods?resourceVersion=11&resourceVersionMatch=Exact",
		  &r) == 200);
	mhd_reply_free(&r);
	cache_rvclock_reset(pods->clock);
	/* a match without a resourceVersion, an unknown match: 422 */
	CHECK(get("/api/v1/pods?resourceVersionMatch=NotOlderThan", &r) == 422);
	CHECK(strstr(r.body, "\"reason\":\"Invalid\"") != NULL);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=10&resourceVersionMatch=Newest",
		  &r) == 422);
	CHECK(strstr(r.body, "Unsupported value") != NULL);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=0&resourceVersionMatch=Exact",
		  &r) == 422);
	mhd_reply_free(&r);
}

static void test_get(void)
{
	struct mhd_reply r;
	CHECK(get("/api/v1/namespaces/a/pods/p1?resourceVersion=0", &r) == 200);
	CHECK(!strncmp(r.body,
		       "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
		       "{\"name\":\"p1\"",
		       55));
	CHECK(r.len && r.body[r.len - 1] == '\n' && r.body[r.len - 2] == '}');
	mhd_reply_free(&r);
	/* deleted at 11; and in another namespace */
	CHECK(get("/api/v1/namespaces/a/pods/p3?resourceVersion=0", &r) == 404);
	CHECK_STR(
		r.body,
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"pods \\\"p3\\\" not found\","
		"\"reason\":\"NotFound\",\"details\":{\"name\":\"p3\","
		"\"kind\":\"pods\"},\"code\":404}\n");
	mhd_reply_free(&r);
	CHECK(get("/api/v1/namespaces/b/pods/p1?resourceVersion=0", &r) == 404);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/namespaces/a/pods/p1?resourceVersion=x", &r) == 500);
	mhd_reply_free(&r);
	/* the apiserver's order: a selector that does not parse, the
	 * options' 422, an unsupported field, then the 500 */
	CHECK(get("/api/v1/pods?resourceVersion=x&labelSelector=a%3D%3D%3D",
		  &r) == 400);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersion=x&fieldSelector=spec.no%3D1",
		  &r) == 400);
	CHECK(strstr(r.body, "field label not supported: spec.no") != NULL);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersionMatch=B&resourceVersion=0&"
		  "fieldSelector=spec.no%3D1",
		  &r) == 422);
	mhd_reply_free(&r);
	CHECK(get("/api/v1/pods?resourceVersionMatch=B&resourceVersion=0&"
		  "labelSelector=a%3D%3D%3D",
		  &r) == 400);
	mhd_reply_free(&r);
}

static void test_accept(void)
{
	struct mhd_reply r;
	const char *const xml[] = { "Accept: application/xml", NULL };
	CHECK(mhd_stub_ask(srv.port, "GET", "/api/v1/pods?resourceVersion=0",
			   xml, 0, &r) == 0);
	CHECK(r.status == 406);
	/* the apiserver's router refuses it, and no entry of Accept can
	 * carry the Status: indented, with no final newline */
	CHECK_STR(r.body,
		  "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n"
		  "  \"metadata\": {},\n  \"status\": \"Failure\",\n"
		  "  \"message\": \"406: Not Acceptable\\n\\nAvailable "
		  "representations: application/json, application/yaml, "
		  "application/vnd.kubernetes.protobuf, "
		  "application/json;stream=watch, "
		  "application/vnd.kubernetes.protobuf;stream=watch\",\n"
		  "  \"reason\": \"NotAcceptable\",\n  \"details\": {},\n"
		  "  \"code\": 406\n}");
	mhd_reply_free(&r);
	CHECK(mhd_stub_ask(srv.port, "GET",
			   "/api/v1/namespaces/a/pods/p1?resourceVersion=0",
			   xml, 0, &r) == 0);
	CHECK(r.status == 406);
	mhd_reply_free(&r);
	/* metadata only */
	const char *const meta[] = {
		"Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
		NULL
	};
	CHECK(mhd_stub_ask(srv.port, "GET", "/api/v1/pods?resourceVersion=0",
			   meta, 0, &r) == 0);
	CHECK(r.status == 200);
	CHECK(strstr(r.body,
		     "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":"
		     "\"meta.k8s.io/v1\"") == r.body);
	CHECK(strstr(r.body, "nodeName") == NULL);
	mhd_reply_free(&r);
}

/* many: 1,500 pods of about 700 bytes, created long ago (their AGE
 * stays put between two renderings) */
static void load_many(struct cache_resource *r)
{
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	for (size_t i = 0; i < 1500; i++) {
		char js[1024];
		snprintf(
			js, sizeof(js),
			"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
			"\"web-%04zu\",\"namespace\":\"many\",\"resourceVersion\":\"%zu\","
			"\"creationTimestamp\":\"2020-01-01T00:00:00Z\","
			"\"labels\":{\"app\":\"web\",\"pad\":\"%0200zu\"}},"
			"\"spec\":{\"nodeName\":\"n%zu\",\"containers\":[{\"name\":"
			"\"c\",\"image\":\"busybox\"}]},\"status\":{\"phase\":"
			"\"%s\",\"podIP\":\"10.0.%zu.%zu\"}}",
			i, i + 20, i, i % 7, i % 3 ? "Running" : "Succeeded",
			i / 250, i % 250);
		struct cache_obj *o = cache_obj_parse(r->kind, js, strlen(js),
						      false, NULL, 0);
		CHECK(o != NULL);
		CHECK(cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
	}
	CHECK(cache_store_txn_commit(&t, 3000) == 0);
}

/* The body built whole, as before it was made while sent: the rows of
 * many from index from, n of them, under ListMeta meta. */
static void whole(struct buf *b, const struct proxy_table_format *f,
		  const char *meta, size_t from, size_t n)
{
	struct cache_snap *snap = cache_store_snap(many->store);
	struct cache_obj **all = calloc(n ? n : 1, sizeof(*all));
	struct cache_iter it;
	struct cache_obj *o;
	size_t i = 0, k = 0;
	cache_store_iter_seek(&it, snap, "", "");
	while ((o = cache_store_iter_next(&it)))
		if (i++ >= from && k < n)
			all[k++] = o;
	CHECK(k == n);
	if (f->form == PROXY_TABLE_FORM_TABLE) {
		proxy_table_render(b, many->kind, f, meta, all, n, true,
				   time(NULL));
	} else {
		buf_printf(b,
			   "{\"kind\":\"PartialObjectMetadataList\","
			   "\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":%s,"
			   "\"items\":[",
			   f->version, meta);
		for (i = 0; i < n; i++) {
			if (i)
				buf_addc(b, ',');
			proxy_table_metadata_render(b, many->kind, all[i],
						    f->version);
		}
		buf_adds(b, "]}");
	}
	buf_addc(b, '\n');
	free(all);
	cache_store_snap_put(snap);
}

/* One rendered LIST of many against its whole-built body; the page's
 * continue token into next (when it has one). */
static void rendered(const char *accept, const char *query, bool pretty,
		     bool gz, size_t from, size_t n, char *next, size_t nlen)
{
	char target[512], hacc[256], v[64];
	snprintf(target, sizeof(target), "/api/v1/namespaces/many/pods?%s%s",
		 query, pretty ? "&pretty=true" : "");
	snprintf(hacc, sizeof(hacc), "Accept: %s", accept);
	const char *const hdrs[] = { hacc, gz ? "Accept-Encoding: gzip" : NULL,
				     NULL };
	struct mhd_reply r;
	struct proxy_table_format f = {
		.form = strstr(accept, "as=Table") ? PROXY_TABLE_FORM_TABLE :
						     PROXY_TABLE_FORM_METADATA,
		.version = strstr(accept, "v=v1beta1") ? "v1beta1" : "v1",
		.include = strstr(query, "includeObject=Object") ?
				   PROXY_TABLE_INCLUDE_OBJECT :
			   strstr(query, "includeObject=None") ?
				   PROXY_TABLE_INCLUDE_NONE :
				   PROXY_TABLE_INCLUDE_METADATA,
	};
	CHECK(mhd_stub_ask(srv.port, "GET", target, hdrs, 0, &r) == 0);
	CHECK(r.status == 200);
	struct buf got = BUF_INIT, want = BUF_INIT;
	bool is_gz = mhd_reply_header(&r, "Content-Encoding", v, sizeof(v));
	if (is_gz)
		CHECK(gunzip(r.body, r.len, &got));
	else
		buf_add(&got, r.body, r.len);
	/* the ListMeta as sent (its continue token is new each time) */
	char meta[1024] = "";
	const char *m = got.p ? strstr(got.p, pretty ? "\"metadata\": {" :
						       "\"metadata\":{") :
				NULL;
	CHECK(m != NULL);
	if (m && !pretty) {
		m += 11;
		snprintf(meta, sizeof(meta), "%.*s",
			 (int)(strchr(m, '}') - m + 1), m);
	} else if (m) {
		/* indented: read it from the compact rendering below */
		m = strstr(m, "\"continue\": \"");
		char tok[512] = "";
		if (m)
			snprintf(tok, sizeof(tok), "%.*s",
				 (int)strcspn(m + 13, "\""), m + 13);
		const char *rem = strstr(got.p, "\"remainingItemCount\": ");
		if (m)
			snprintf(
				meta, sizeof(meta),
				"{\"resourceVersion\":\"3000\",\"continue\":\"%s\","
				"\"remainingItemCount\":%d}",
				tok, rem ? atoi(rem + 22) : 0);
		else
			snprintf(meta, sizeof(meta),
				 "{\"resourceVersion\":\"3000\"}");
	}
	whole(&want, &f, meta, from, n);
	/* over the gzip threshold, made while sent: no length in advance;
	 * under it, built whole as before */
	CHECK(mhd_reply_header(&r, "Content-Length", v, sizeof(v)) ==
	      (want.len <= PROXY_REPLY_GZIP_MIN));
	if (pretty) {
		struct buf ind = BUF_INIT;
		CHECK(proxy_pretty_indent(want.p, want.len - 1, &ind) == 0);
		buf_free(&want);
		want = ind;
	}
	CHECK(is_gz == (gz && want.len > PROXY_REPLY_GZIP_MIN));
	CHECK(got.len == want.len && got.p && want.p &&
	      !memcmp(got.p, want.p, want.len));
	if (next) {
		const char *t =
			strstr(got.p ? got.p : "",
			       pretty ? "\"continue\": \"" : "\"continue\":\"");
		snprintf(next, nlen, "%.*s",
			 t ? (int)strcspn(t + (pretty ? 13 : 12), "\"") : 0,
			 t ? t + (pretty ? 13 : 12) : "");
	}
	buf_free(&got);
	buf_free(&want);
	mhd_reply_free(&r);
}

static void test_rendered_streams(void)
{
	static const char *const accepts[] = {
		"application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
		"application/json;as=Table;v=v1beta1;g=meta.k8s.io",
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
	};
	static const char *const includes[] = { "", "&includeObject=Object",
						"&includeObject=None",
						"&includeObject=Metadata" };
	for (size_t a = 0; a < 3; a++)
		for (size_t i = 0; i < (a < 2 ? 4 : 1); i++)
			for (int pretty = 0; pretty < 2; pretty++)
				for (int gz = 0; gz < 2; gz++) {
					char q[128];
					snprintf(q, sizeof(q),
						 "resourceVersion=0%s",
						 includes[i]);
					rendered(accepts[a], q, pretty, gz, 0,
						 1500, NULL, 0);
				}
	/* limit and continue: every page the same bytes as built whole */
	for (size_t a = 0; a < 3; a++)
		for (int pretty = 0; pretty < 2; pretty++) {
			char tok[512] = "", q[700];
			rendered(
				accepts[a],
				"resourceVersion=3000&limit=600&includeObject=Object",
				pretty, false, 0, 600, tok, sizeof(tok));
			CHECK(tok[0]);
			snprintf(q, sizeof(q),
				 "limit=600&includeObject=Object&continue=%s",
				 tok);
			rendered(accepts[a], q, pretty, true, 600, 600, tok,
				 sizeof(tok));
			CHECK(tok[0]);
			snprintf(q, sizeof(q),
				 "limit=600&includeObject=Object&continue=%s",
				 tok);
			rendered(accepts[a], q, pretty, false, 1200, 300, NULL,
				 0);
		}
	/* a small Table is still built whole, with its length */
	struct mhd_reply r;
	char v[64];
	const char *const th[] = { "Accept: application/json;as=Table;v=v1;"
				   "g=meta.k8s.io",
				   NULL };
	CHECK(mhd_stub_ask(srv.port, "GET", "/api/v1/pods?resourceVersion=0",
			   th, 0, &r) == 0);
	CHECK(r.status == 200);
	CHECK(mhd_reply_header(&r, "Content-Length", v, sizeof(v)));
	CHECK(r.len > 1 && r.body[r.len - 1] == '\n');
	mhd_reply_free(&r);
}

/* Out of memory at each allocation in turn: an answer or a closed
 * connection, never a crash or a leak; and the next request is whole. */
static void test_alloc_fail(void)
{
	int answered = 0, closed = 0;
	for (int n = 1; n <= 12; n++) {
		struct mhd_reply r;
		alloc_fail_after(n);
		int rc = mhd_stub_get(srv.port,
				      "/api/v1/pods?resourceVersion=11&limit=1",
				      &r);
		alloc_fail_after(0);
		if (rc == 0 && r.status == 200)
			answered++;
		else
			closed++;
		mhd_reply_free(&r);
	}
	CHECK(closed > 0);   /* the first allocations fail the request */
	CHECK(answered > 0); /* and past them it goes through */
	struct mhd_reply r;
	char got[128];
	CHECK(get("/api/v1/pods?resourceVersion=0", &r) == 200);
	names(r.body, got, sizeof(got));
	CHECK_STR(got, "a/p1 a/p2 b/q1");
	mhd_reply_free(&r);
}

/* A kind's apiVersion in every envelope, whole: a group may be a
 * 253-byte DNS name (it once went through 160-byte buffers). */
static void test_long_group(void)
{
	char want[400], pfx[400];
	snprintf(want, sizeof(want),
		 "{\"kind\":\"WidgetList\",\"apiVersion\":\"%s/v1alpha1\",",
		 long_group);
	snprintf(pfx, sizeof(pfx),
		 "{\"kind\":\"Widget\",\"apiVersion\":\"%s/v1alpha1\",",
		 long_group);
	struct mhd_reply r;
	CHECK(get("/api/v1/namespaces/long/pods?resourceVersion=0", &r) == 200);
	CHECK(r.body && !strncmp(r.body, want, strlen(want)));
	/* the items go without their kind and apiVersion, as the
	 * apiserver writes them */
	CHECK(r.body && strstr(r.body, "\"items\":[{\"metadata\":"));
	mhd_reply_free(&r);
	CHECK(get("/api/v1/namespaces/long/pods/w1?resourceVersion=0", &r) ==
	      200);
	CHECK(r.body && !strncmp(r.body, pfx, strlen(pfx)));
	mhd_reply_free(&r);
}

int main(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	struct proxy p = { 0 };
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pods = cache_resource_new(cache_kind_lookup("pods"), &up, 16);
	CHECK(pods != NULL);
	load(pods);
	many = cache_resource_new(cache_kind_lookup("pods"), &up, 16);
	CHECK(many != NULL);
	load_many(many);
	names_group(long_group);
	long_kind.group = long_group;
	longg = cache_resource_new(&long_kind, &up, 16);
	CHECK(longg != NULL);
	{
		static const char js[] =
			"{\"metadata\":{\"name\":\"w1\",\"namespace\":\"long\","
			"\"resourceVersion\":\"5\"},\"spec\":{}}";
		struct cache_txn t;
		struct cache_obj *o = cache_obj_parse(
			&long_kind, js, strlen(js), false, NULL, 0);
		CHECK(o != NULL);
		cache_store_txn_begin(longg->store, &t);
		CHECK(cache_store_txn_put(&t, o, NULL) == 0);
		CHECK(cache_store_txn_commit(&t, 10) == 0);
		cache_obj_put(o);
	}
	CHECK(mhd_stub_start(&srv, answer, &p) == 0);
	test_whole();
	test_selectors();
	test_paging();
	test_continue_errors();
	test_rv_rules();
	test_get();
	test_accept();
	test_rendered_streams();
	test_alloc_fail();
	test_long_group();
	mhd_stub_stop(&srv);
	cache_resource_free(pods);
	cache_resource_free(many);
	cache_resource_free(longg);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("list");
}
