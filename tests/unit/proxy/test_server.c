/*
 * test_server: the proxy's own daemon, started and stopped as main does,
 * in front of a scripted upstream: the dispatch of each request to the
 * health, metrics, list, get or watch handler, or through to the
 * upstream (an unknown path and its 404 Status, writes, subresources,
 * uncached resources, a protobuf-only client), the watch parameter as
 * the apiserver reads it (watch=true, yes and empty are watches; false
 * and 0 are not; the /watch/ prefix), 429 for a resource not yet synced,
 * 400 for a bad request target or an unparsable path, HEAD; a second
 * start on a taken port and one on a non-loopback address refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "proxy/metrics.h"
#include "proxy/server.h"
#include "http_stub.h"
#include "mhd_stub.h"
#include "check.h"

#define RESP(status, type, body)                     \
	"HTTP/1.1 " status "\r\nContent-Type: " type \
	"\r\nConnection: close\r\n"                  \
	"\r\n" body
#define NOT_FOUND                                                          \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"      \
	"\"status\":\"Failure\",\"message\":\"the server could not find "  \
	"the requested resource\",\"reason\":\"NotFound\",\"details\":{}," \
	"\"code\":404}\n"

static struct http_stub_route routes[] = {
	{ .match = "GET /version ",
	  .response = RESP("200 OK", "application/json",
			   "{\"gitVersion\":\"v1.31.0\"}") },
	{ .match = "GET /api ",
	  .response = RESP("200 OK", "application/json", "{}") },
	{ .match = "GET /apis ",
	  .response = RESP("200 OK", "application/json", "{}") },
	{ .match = "GET /api/v1 ",
	  .response = RESP("200 OK", "application/json", "{}") },
	{ .match = "POST /api/v1/namespaces/a/pods ",
	  .response = RESP("201 Created", "application/json",
			   "{\"kind\":\"Pod\"}") },
	{ .match = "/pods/p1/log ",
	  .response = RESP("200 OK", "text/plain", "log-line") },
	{ .match = "GET /api/v1/services",
	  .response = RESP("200 OK", "application/json",
			   "{\"kind\":\"ServiceList\"}") },
	{ .match = "GET /api/v1/pods?resourceVersion=0 ",
	  .response = RESP("200 OK", "application/vnd.kubernetes.protobuf",
			   "k8s-pb") },
	{ .match = "GET /",
	  .response = RESP("404 Not Found", "application/json", NOT_FOUND) },
};

static struct http_stub up_srv;
static struct proxy prx;

static bool upstream_saw(const char *line)
{
	bool seen = false;
	pthread_mutex_lock(&up_srv.lock);
	for (int i = 0; i < up_srv.nreq && !seen; i++)
		seen = strstr(up_srv.req[i], line) != NULL;
	pthread_mutex_unlock(&up_srv.lock);
	return seen;
}

static long ask(const char *method, const char *target, const char *const *hdrs,
		struct mhd_reply *r)
{
	CHECK(mhd_stub_ask(prx.port, method, target, hdrs, 5000, r) == 0);
	return r->status;
}

/* How many events of type a watch stream holds. */
static int count_events(const char *body, const char *type)
{
	int n = 0;
	char pat[64];
	snprintf(pat, sizeof(pat), "{\"type\":\"%s\"", type);
	for (const char *p = body; (p = strstr(p, pat)); p++)
		n++;
	return n;
}

static void test_local(void)
{
	struct mhd_reply r;
	char v[128];
	uint64_t lists = __atomic_load_n(&proxy_metrics_counters.req_list,
					 __ATOMIC_RELAXED);
	CHECK(ask("GET", "/healthz", NULL, &r) == 200);
	CHECK_STR(r.body, "ok");
	mhd_reply_free(&r);
	CHECK(ask("GET", "/readyz", NULL, &r) ==
	      503); /* deployments not synced */
	mhd_reply_free(&r);
	CHECK(ask("GET", "/metrics", NULL, &r) == 200);
	CHECK(strstr(r.body,
		     "informer_proxy_cache_synced{resource=\"pods\"} 1\n") !=
	      NULL);
	mhd_reply_free(&r);
	CHECK(ask("GET", "/api/v1/pods?resourceVersion=0", NULL, &r) == 200);
	CHECK(strstr(r.body,
		     "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
		     "{\"resourceVersion\":\"10\"}") == r.body);
	CHECK(strstr(r.body, "\"name\":\"p1\"") != NULL);
	mhd_reply_free(&r);
	CHECK(__atomic_load_n(&proxy_metrics_counters.req_list,
			      __ATOMIC_RELAXED) == lists + 1);
	CHECK(ask("GET", "/api/v1/namespaces/a/pods/p1?resourceVersion=0", NULL,
		  &r) == 200);
	CHECK(strstr(r.body, "{\"kind\":\"Pod\",") == r.body);
	mhd_reply_free(&r);
	CHECK(ask("GET", "/api/v1/namespaces/a/pods/nope?resourceVersion=0",
		  NULL, &r) == 404);
	CHECK(strstr(r.body, "\"message\":\"pods \\\"nope\\\" not found\"") !=
	      NULL);
	mhd_reply_free(&r);
	/* query escapes, '+' a space as Go reads it */
	CHECK(ask("GET",
		  "/api/v1/pods?resourceVersion=0&labelSelector=app+in+%28db%29",
		  NULL, &r) == 200);
	CHECK(strstr(r.body, "\"name\":\"p1\"") == NULL);
	CHECK(strstr(r.body, "\"name\":\"p2\"") != NULL);
	mhd_reply_free(&r);
	/* HEAD: the headers only */
	CHECK(ask("HEAD", "/api/v1/pods?resourceVersion=0", NULL, &r) == 200);
	CHECK(r.len == 0);
	mhd_reply_free(&r);
	/* not synced: 429 and when to come back */
	uint64_t ns = __atomic_load_n(&proxy_metrics_counters.req_not_synced,
				      __ATOMIC_RELAXED);
	CHECK(ask("GET", "/apis/apps/v1/deployments?resourceVersion=0", NULL,
		  &r) == 429);
	CHECK(strstr(r.body,
		     "\"message\":\"the cache of deployments is not synced yet, "
		     "please try again later\"") != NULL);
	CHECK(strstr(r.body, "\"details\":{\"retryAfterSeconds\":1}") != NULL);
	CHECK(mhd_reply_header(&r, "Retry-After", v, sizeof(v)));
	CHECK_STR(v, "1");
	mhd_reply_free(&r);
	CHECK(__atomic_load_n(&proxy_metrics_counters.req_not_synced,
			      __ATOMIC_RELAXED) == ns + 1);
	/* discovery from the set */
	bool served = false;
	for (int i = 0; i < 100 && !served; i++) {
		/* the stub sends no Cache-Control; the set's answer does */
		served = mhd_stub_get(prx.port, "/version", &r) == 0 &&
			 r.status == 200 &&
			 mhd_reply_header(&r, "Cache-Control", v, sizeof(v));
		mhd_reply_free(&r);
		if (!served)
			usleep(50 * 1000);
	}
	CHECK(served);
	int before = http_stub_count(&up_srv);
	CHECK(ask("GET", "/version", NULL, &r) == 200);
	CHECK_STR(r.body, "{\"gitVersion\":\"v1.31.0\"}");
	mhd_reply_free(&r);
	CHECK(http_stub_count(&up_srv) == before); /* not asked again */
}

static void test_bad_requests(void)
{
	struct mhd_reply r;
	CHECK(ask("GET", "/api/v1/pods/%2e%2e/secrets", NULL, &r) == 400);
	CHECK(strstr(r.body,
		     "\"message\":\"\\\".\\\" and \\\"..\\\" segments are not "
		     "allowed in the request path\"") != NULL);
	CHECK(strstr(r.body, "\"reason\":\"BadRequest\",\"code\":400}") !=
	      NULL);
	mhd_reply_free(&r);
	CHECK(ask("GET", "/api/v1/pods%00", NULL, &r) == 400);
	CHECK(strstr(r.body, "%00 is not allowed") != NULL);
	mhd_reply_free(&r);
	/* a name too long to be one: not routable, 400 */
	char path[400] = "/api/v1/namespaces/a/pods/";
	memset(path + strlen(path), 'x', 300);
	CHECK(ask("GET", path, NULL, &r) == 400);
	CHECK(strstr(r.body, "\"message\":\"invalid request path\"") != NULL);
	mhd_reply_free(&r);
	CHECK(!upstream_saw("xxxxxxxx"));
}

static void test_passthrough(void)
{
	struct mhd_reply r;
	char v[128];
	uint64_t pt = __atomic_load_n(&proxy_metrics_counters.req_passthrough,
				      __ATOMIC_RELAXED);
	/* an unknown path: the upstream's 404 Status, as it sent it */
	CHECK(ask("GET", "/no/such/path", NULL, &r) == 404);
	CHECK_STR(r.body, NOT_FOUND);
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	mhd_reply_free(&r);
	CHECK(upstream_saw("GET /no/such/path HTTP/1.1"));
	/* a write to a cached resource */
	const char *const ct[] = { "Content-Type: application/json", NULL };
	CHECK(ask("POST", "/api/v1/namespaces/a/pods", ct, &r) == 201);
	CHECK_STR(r.body, "{\"kind\":\"Pod\"}");
	mhd_reply_free(&r);
	CHECK(upstream_saw("POST /api/v1/namespaces/a/pods HTTP/1.1"));
	/* a subresource, an uncached resource */
	CHECK(ask("GET", "/api/v1/namespaces/a/pods/p1/log", NULL, &r) == 200);
	CHECK_STR(r.body, "log-line");
	mhd_reply_free(&r);
	CHECK(ask("GET", "/api/v1/services?resourceVersion=0", NULL, &r) ==
	      200);
	CHECK_STR(r.body, "{\"kind\":\"ServiceList\"}");
	mhd_reply_free(&r);
	/* a client that takes only protobuf: the cache answers it, in
	 * protobuf (the upstream's answer would have been "k8s-pb") */
	const char *const pb[] = {
		"Accept: application/vnd.kubernetes.protobuf", NULL
	};
	CHECK(ask("GET", "/api/v1/pods?resourceVersion=0", pb, &r) == 200);
	CHECK(r.body && !memcmp(r.body, "k8s\0", 4));
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/vnd.kubernetes.protobuf");
	mhd_reply_free(&r);
	CHECK(!upstream_saw("GET /api/v1/pods?resourceVersion=0"));
	/* a delete of a cached object */
	CHECK(ask("DELETE", "/api/v1/namespaces/a/pods/p1", NULL, &r) == 404);
	mhd_reply_free(&r);
	CHECK(upstream_saw("DELETE /api/v1/namespaces/a/pods/p1 HTTP/1.1"));
	CHECK(__atomic_load_n(&proxy_metrics_counters.req_passthrough,
			      __ATOMIC_RELAXED) == pt + 5);
	/* what the cache serves never reached the upstream */
	CHECK(!upstream_saw("GET /api/v1/namespaces/a/pods/p1?"));
	CHECK(!upstream_saw("/healthz"));
}

/* watch=... as the apiserver reads it: anything but "0" and "false". */
static void test_watch_param(void)
{
	static const struct {
		const char *q;
		bool watch;
	} cases[] = {
		{ "watch=true", true },	  { "watch=1", true },
		{ "watch=yes", true },	  { "watch=", true },
		{ "watch", true },	  { "watch=TRUE", true },
		{ "watch=false", false }, { "watch=FALSE", false },
		{ "watch=0", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char path[200];
		struct mhd_reply r;
		snprintf(
			path, sizeof(path),
			"/api/v1/namespaces/a/pods?resourceVersion=0&timeoutSeconds=1&%s",
			cases[i].q);
		CHECK(ask("GET", path, NULL, &r) == 200);
		if (cases[i].watch) {
			CHECK(count_events(r.body, "ADDED") == 2);
			CHECK(strstr(r.body, "PodList") == NULL);
		} else {
			CHECK(strstr(r.body, "{\"kind\":\"PodList\"") ==
			      r.body);
			CHECK(count_events(r.body, "ADDED") == 0);
		}
		mhd_reply_free(&r);
	}
	/* the /watch/ prefix, whatever the parameter says */
	struct mhd_reply r;
	CHECK(ask("GET",
		  "/api/v1/watch/namespaces/a/pods?resourceVersion=0&timeoutSeconds=1"
		  "&watch=false",
		  NULL, &r) == 200);
	CHECK(count_events(r.body, "ADDED") == 2);
	mhd_reply_free(&r);
	/* a watch's own refusal comes through the dispatch (an unparsable
	 * resourceVersion is the apiserver's 500, as for a LIST) */
	CHECK(ask("GET", "/api/v1/pods?watch=1&resourceVersion=x", NULL, &r) ==
	      500);
	mhd_reply_free(&r);
}

static void test_second_start(void)
{
	struct config cfg = *prx.cfg;
	cfg.listen_port = prx.port; /* taken */
	struct proxy p2 = { .cfg = &cfg,
			    .up = prx.up,
			    .nofile = -1,
			    .res = prx.res,
			    .nres = prx.nres };
	char err[256] = "";
	CHECK(proxy_server_start(&p2, err, sizeof(err)) == -EADDRINUSE);
	CHECK(strstr(err, "cannot listen on 127.0.0.1:") == err);
	proxy_server_stop(&p2);
	proxy_server_release(&p2);
	/* a non-loopback address without auth */
	cfg.listen_host = "0.0.0.0";
	cfg.listen_port = 0;
	struct proxy p3 = { .cfg = &cfg, .up = prx.up, .nofile = -1 };
	CHECK(proxy_server_start(&p3, err, sizeof(err)) == -EPERM);
	CHECK(strstr(err, "is not a loopback address") != NULL);
	proxy_server_stop(&p3);
}

static void load(struct cache_resource *r)
{
	static const char *const objs[][2] = { { "p1", "web" },
					       { "p2", "db" } };
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	for (int i = 0; i < 2; i++) {
		char js[300];
		snprintf(
			js, sizeof(js),
			"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
			"\"%s\",\"namespace\":\"a\",\"resourceVersion\":\"%d\",\"labels\":"
			"{\"app\":\"%s\"}}}",
			objs[i][0], i + 5, objs[i][1]);
		struct cache_obj *o = cache_obj_parse(r->kind, js, strlen(js),
						      false, NULL, 0);
		CHECK(o && cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
	}
	CHECK(cache_store_txn_commit(&t, 10) == 0);
	cache_history_reset(r->history, 10);
	__atomic_store_n(&r->synced, true, __ATOMIC_RELEASE);
}

int main(void)
{
	char server[64], err[256] = "";
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK(http_stub_start(&up_srv, routes,
			      sizeof(routes) / sizeof(*routes)) == 0);
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", up_srv.port);
	struct cache_upstream up = { .server = server };
	struct config cfg = {
		.listen_host = "127.0.0.1",
		.listen_port = 0,
		.threads = 2,
		.history = 16,
		.bookmark_interval = 60,
		.discovery_refresh = 600,
		.grace_seconds = 30,
		.passthrough_timeout = 10,
		.max_connections = 32,
		.max_watchers = 8,
		.idle_timeout = 30,
		.header_timeout = 10,
	};
	struct cache_resource *res[2] = {
		cache_resource_new(cache_kind_lookup("pods"), &up, 16),
		cache_resource_new(cache_kind_lookup("deployments.apps"), &up,
				   16),
	};
	CHECK(res[0] && res[1]);
	load(res[0]);
	prx = (struct proxy){
		.cfg = &cfg, .up = &up, .nofile = -1, .res = res, .nres = 2
	};
	int rc = proxy_server_start(&prx, err, sizeof(err));
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "proxy_server_start: %s\n", err);
	CHECK(prx.port > 0 && prx.daemon != NULL);
	if (!rc) {
		test_local();
		test_bad_requests();
		test_passthrough();
		test_watch_param();
		test_second_start();
	}
	proxy_server_stop(&prx);
	CHECK(prx.daemon == NULL && prx.conns == NULL);
	proxy_server_stop(&prx); /* twice: a no-op */
	proxy_server_release(&prx);
	http_stub_stop(&up_srv);
	rcu_barrier();
	cache_resource_free(res[0]);
	cache_resource_free(res[1]);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("server");
}
