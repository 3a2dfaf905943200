/*
 * test_list: LIST and GET of a cached resource answered from the store,
 * as the apiserver answers them: the list's envelope and order, one
 * namespace's items, label and field selectors (and their 400s), limit
 * and continue paging over the first page's snapshot with
 * remainingItemCount, the resourceVersion rules (a bad limit ignored,
 * "0" ignoring limit, Exact 410 when the snapshot is gone, 500/422 for a
 * bad resourceVersion or match, continue with a resourceVersion 400), an
 * expired or foreign continue token sent upstream, a malformed one 400,
 * GET of an object or its 404 Status, 406 for an Accept it cannot give,
 * and allocation failure.
 */
#include <stdio.h>
#include <string.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/continue.h"
#include "proxy/list.h"
#include "proxy/reply.h"
#include "mhd_stub.h"
#include "check.h"

static struct cache_resource *pods;

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
	enum MHD_Result res = rt.name[0] ?
				      proxy_list_get(p, c, pods, &rt, &req) :
				      proxy_list_handle(p, c, pods, &rt, &req);
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
	/* Exact at an RV whose snapshot is not kept: 410 */
	CHECK(get("/api/v1/pods?resourceVersion=5&resourceVersionMatch=Exact",
		  &r) == 410);
	CHECK(strstr(r.body,
		     "\"message\":\"The resourceVersion for the provided list "
		     "is too old.\",\"reason\":\"Expired\",\"code\":410}") !=
	      NULL);
	mhd_reply_free(&r);
	/* Exact at a pinned snapshot: that snapshot */
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
}

static void test_accept(void)
{
	struct mhd_reply r;
	const char *const xml[] = { "Accept: application/xml", NULL };
	CHECK(mhd_stub_ask(srv.port, "GET", "/api/v1/pods?resourceVersion=0",
			   xml, 0, &r) == 0);
	CHECK(r.status == 406);
	CHECK(strstr(r.body, "(got application/xml)") != NULL);
	CHECK(strstr(r.body, "\"reason\":\"NotAcceptable\"") != NULL);
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

int main(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	struct proxy p = { 0 };
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pods = cache_resource_new(cache_kind_lookup("pods"), &up, 16);
	CHECK(pods != NULL);
	load(pods);
	CHECK(mhd_stub_start(&srv, answer, &p) == 0);
	test_whole();
	test_selectors();
	test_paging();
	test_continue_errors();
	test_rv_rules();
	test_get();
	test_accept();
	test_alloc_fail();
	mhd_stub_stop(&srv);
	cache_resource_free(pods);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("list");
}
