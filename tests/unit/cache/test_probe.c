/*
 * test_probe: reading the upstream's current resourceVersion with one
 * limit=1 LIST, and every answer that must not yield one; where one
 * object stands (a GET: present at an RV, absent by a NotFound Status,
 * or an error); whether a store holds the upstream's collection (one
 * LIST compared key by key and RV by RV), on a kept-alive handle.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/probe.h"
#include "cache/store.h"
#include "http_stub.h"
#include "check.h"

#define JSON_200(body)                                          \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\n\r\n" body

#define POD(ns, name, rv)                                                \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"" ns "\"," \
	"\"resourceVersion\":\"" rv "\"}}"
#define POD_LIST(rv, cont, items)                                           \
	JSON_200("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":" \
		 "\"" rv "\"" cont "},\"items\":[" items "]}")

static void put(struct cache_store *st, const char *js, uint64_t at)
{
	struct cache_obj *o = cache_obj_parse(cache_kind_lookup("pods"), js,
					      strlen(js), false, NULL, 0);
	CHECK(o != NULL);
	struct cache_txn t;
	cache_store_txn_begin(st, &t);
	CHECK(cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_commit(&t, at) == 0);
}

static void test_object_and_list(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/namespaces/ns-1/pods/a ",
		  .response = JSON_200(POD("ns-1", "a", "30")) },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/gone ",
		  .response = "HTTP/1.1 404 Not Found\r\nContent-Type: "
			      "application/json\r\nConnection: close\r\n\r\n"
			      "{\"kind\":\"Status\",\"reason\":\"NotFound\","
			      "\"code\":404}" },
		/* a 404 that is no NotFound Status: an unknown path */
		{ .match = "GET /api/v1/namespaces/ns-1/pods/odd ",
		  .response = "HTTP/1.1 404 Not Found\r\nConnection: close"
			      "\r\nContent-Length: 9\r\n\r\nnot found" },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/bad ",
		  .response = JSON_200("{\"metadata\":{}}") },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/denied ",
		  .response = "HTTP/1.1 403 Forbidden\r\nConnection: close"
			      "\r\nContent-Length: 2\r\n\r\n{}" },
		{ .match = "GET /api/v1/pods?limit=3 ",
		  .once = true,
		  .response = POD_LIST(
			  "90", "",
			  POD("ns-1", "a", "30") "," POD("ns-2", "b", "40")) },
		/* b at another RV */
		{ .match = "GET /api/v1/pods?limit=3 ",
		  .once = true,
		  .response = POD_LIST(
			  "91", "",
			  POD("ns-1", "a", "30") "," POD("ns-2", "b", "91")) },
		/* one more object upstream */
		{ .match = "GET /api/v1/pods?limit=3 ",
		  .once = true,
		  .response =
			  POD_LIST("92", "",
				   POD("ns-1", "a", "30") "," POD(
					   "ns-2", "b",
					   "40") "," POD("ns-3", "c", "92")) },
		/* one fewer */
		{ .match = "GET /api/v1/pods?limit=3 ",
		  .once = true,
		  .response = POD_LIST("93", "", POD("ns-1", "a", "30")) },
		/* more than a page */
		{ .match = "GET /api/v1/pods?limit=3 ",
		  .once = true,
		  .response = POD_LIST(
			  "94", ",\"continue\":\"x\"",
			  POD("ns-1", "a", "30") "," POD("ns-2", "b", "40")) },
		{ .match = "GET /api/v1/pods?limit=3 ",
		  .response = JSON_200("{\"kind\":\"Status\"}") },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 11) == 0);
	char server[64], err[256] = "";
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream up = { .server = server };
	const struct cache_kind *pods = cache_kind_lookup("pods");
	CURL *keep = NULL;
	bool present = false;
	uint64_t rv = 7, at = 0;

	CHECK(cache_probe_object(&up, &keep, pods, "ns-1", "a", NULL, &present,
				 &rv, err, sizeof(err)) == 0);
	CHECK(present && rv == 30);
	CHECK(keep != NULL);
	CHECK(cache_probe_object(&up, &keep, pods, "ns-1", "gone", NULL,
				 &present, &rv, err, sizeof(err)) == 0);
	CHECK(!present && rv == 0);
	CHECK(cache_probe_object(&up, &keep, pods, "ns-1", "odd", NULL,
				 &present, &rv, err, sizeof(err)) == -EIO);
	CHECK(cache_probe_object(&up, &keep, pods, "ns-1", "bad", NULL,
				 &present, &rv, err, sizeof(err)) == -EIO);
	CHECK_STR(err, "the upstream answered 200, neither the object nor "
		       "its NotFound");
	CHECK(cache_probe_object(&up, &keep, pods, "ns-1", "denied", NULL,
				 &present, &rv, err, sizeof(err)) == -EACCES);

	struct cache_store *st = cache_store_new();
	put(st, POD("ns-1", "a", "30"), 30);
	put(st, POD("ns-2", "b", "40"), 40);
	bool same = false;
	CHECK(cache_probe_same_state(&up, &keep, pods, NULL, st, 3, NULL, &same,
				     &rv, &at, err, sizeof(err)) == 0);
	CHECK(same && rv == 90 && at == 40);
	for (int i = 0; i < 4; i++) { /* other RV, more, fewer, paged */
		same = true;
		CHECK(cache_probe_same_state(&up, &keep, pods, NULL, st, 3,
					     NULL, &same, &rv, &at, err,
					     sizeof(err)) == 0);
		CHECK(!same);
	}
	CHECK(cache_probe_same_state(&up, &keep, pods, NULL, st, 3, NULL, &same,
				     &rv, &at, err, sizeof(err)) == -EIO);
	CHECK(http_stub_count(&s) == 11);
	curl_easy_cleanup(keep);
	http_stub_stop(&s);
	rcu_barrier();
	cache_store_free(st);
}

int main(void)
{
	test_object_and_list();
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = JSON_200(
			  "{\"kind\":\"PodList\",\"metadata\":"
			  "{\"resourceVersion\":\"4242\"},\"items\":[]}") },
		{ .match = "GET /apis/apps/v1/deployments?limit=1 ",
		  .response = JSON_200("{\"metadata\":{}}") },
		{ .match = "GET /api/v1/configmaps?limit=1 ",
		  .response = JSON_200(
			  "{\"metadata\":{\"resourceVersion\":\"x1\"}}") },
		{ .match = "GET /api/v1/secrets?limit=1 ",
		  .response = JSON_200("{\"metadata\":") },
		{ .match = "GET /api/v1/nodes?limit=1 ",
		  .response = "HTTP/1.1 410 Gone\r\nConnection: close\r\n"
			      "Content-Length: 2\r\n\r\n{}" },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 5) == 0);
	char server[64], err[256] = "";
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream up = { .server = server };
	uint64_t rv = 7;

	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), NULL,
				      NULL, &rv, err, sizeof(err)) == 0 &&
	      rv == 4242);
	rv = 7;
	CHECK(cache_probe_upstream_rv(
		      &up, cache_kind_lookup("deployments.apps"), NULL, NULL,
		      &rv, err, sizeof(err)) == -EIO);
	CHECK_STR(err, "the upstream answered 200 without a resourceVersion");
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("configmaps"),
				      NULL, NULL, &rv, err,
				      sizeof(err)) == -EIO);
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("secrets"), NULL,
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("nodes"), NULL,
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK_STR(err, "the upstream answered 410 without a resourceVersion");
	CHECK(rv == 7);
	CHECK(http_stub_count(&s) == 5);
	http_stub_stop(&s);

	err[0] = '\0';
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), NULL,
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK(strstr(err, "GET /api/v1/pods?limit=1: ") == err);
	/* a namespaced scope asks its namespace only */
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), "team-a",
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK(strstr(err, "GET /api/v1/namespaces/team-a/pods?limit=1: ") ==
	      err);
	bool stop = true;
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), NULL,
				      &stop, &rv, err, sizeof(err)) == -EIO);
	return check_done("probe");
}
