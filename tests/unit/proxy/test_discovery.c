/*
 * test_discovery: the discovery paths; the set fetched from a scripted
 * upstream (/version, /api, /apis, /api/v1, each /apis/G/V the group list
 * names, the aggregated forms the upstream gives with their exact type)
 * and served from memory: the variant the Accept header picks, the
 * aggregated form's Content-Type, ETag, Vary and 304 for If-None-Match,
 * what is not in the set passed through; no set at all while a required
 * document fails; the set replaced on refresh; allocation failure.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config/alloc.h"
#include "proxy/discovery.h"
#include "proxy/reply.h"
#include "proxy/request.h"
#include "http_stub.h"
#include "mhd_stub.h"
#include "check.h"

#define OK(type) \
	"HTTP/1.1 200 OK\r\nContent-Type: " type "\r\nConnection: close\r\n\r\n"
#define AGG_V2 \
	"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
#define AGG_B1 \
	"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
#define APIS                                                                       \
	"{\"kind\":\"APIGroupList\",\"groups\":[{\"name\":\"apps\",\"versions\":[" \
	"{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}]},{\"name\":\"gone\","  \
	"\"versions\":[{\"groupVersion\":\"gone/v1\",\"version\":\"v1\"}]}]}"

/* The upstream: /apis answers in the v2 aggregated type, whatever was
 * asked, so the set takes it as plain and as v2 but not as v2beta1;
 * /version changes after its first answer; gone/v1 is not there. */
static struct http_stub_route routes[] = {
	{ .match = "GET /version ",
	  .once = true,
	  .response = OK("application/json") "{\"gitVersion\":\"v1.30.0\"}" },
	{ .match = "GET /version ",
	  .response = OK("application/json") "{\"gitVersion\":\"v1.31.0\"}" },
	{ .match = "GET /api ",
	  .response = OK(
		  "application/json") "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"]}" },
	{ .match = "GET /api/v1 ",
	  .response = OK(
		  "application/json") "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\"}" },
	{ .match = "GET /apis/apps/v1 ",
	  .response = OK(
		  "application/json") "{\"kind\":\"APIResourceList\",\"groupVersion\":\"apps/v1\"}" },
	{ .match = "GET /apis ", .response = OK(AGG_V2) APIS },
};

static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	struct proxy_discovery *d = arg;
	if (!strncmp(url, "/has/", 5))
		return proxy_reply_text(
			c, 200, "text/plain",
			proxy_discovery_has(d, c, url + 4) ? "yes" : "no");
	int h = proxy_discovery_serve(d, c, url);
	if (h < 0) /* not in the set: the upstream's */
		return proxy_reply_text(c, 299, "text/plain", "pass");
	return (enum MHD_Result)h;
}

static long ask(int port, const char *path, const char *accept,
		struct mhd_reply *r)
{
	char hdr[256];
	snprintf(hdr, sizeof(hdr), "Accept: %s", accept ? accept : "");
	const char *const hdrs[] = { accept ? hdr : NULL, NULL };
	CHECK(mhd_stub_ask(port, "GET", path, hdrs, 0, r) == 0);
	return r->status;
}

/* Wait until the set holds /version. */
static bool wait_set(int port)
{
	for (int i = 0; i < 100; i++) {
		struct mhd_reply r;
		bool yes = mhd_stub_get(port, "/has/version", &r) == 0 &&
			   r.status == 200 && !strcmp(r.body, "yes");
		mhd_reply_free(&r);
		if (yes)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

static void test_paths(void)
{
	CHECK(proxy_discovery_path("/version"));
	CHECK(proxy_discovery_path("/api"));
	CHECK(proxy_discovery_path("/apis"));
	CHECK(proxy_discovery_path("/api/v1"));
	CHECK(proxy_discovery_path("/apis/apps/v1"));
	CHECK(!proxy_discovery_path("/apis/apps"));
	CHECK(!proxy_discovery_path("/apis/apps/"));
	CHECK(!proxy_discovery_path("/apis//v1"));
	CHECK(!proxy_discovery_path("/apis/apps/v1/deployments"));
	CHECK(!proxy_discovery_path("/api/v1/pods"));
	CHECK(!proxy_discovery_path("/api/v2"));
	CHECK(!proxy_discovery_path("/versions"));
	CHECK(!proxy_discovery_path("/healthz"));
}

static void test_serve(int port)
{
	struct mhd_reply r;
	char v[160], etag[64];
	CHECK(ask(port, "/version", NULL, &r) == 200);
	CHECK_STR(r.body, "{\"gitVersion\":\"v1.30.0\"}");
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	mhd_reply_free(&r);
	CHECK(ask(port, "/api/v1", "application/json", &r) == 200);
	CHECK_STR(r.body,
		  "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\"}");
	mhd_reply_free(&r);
	CHECK(ask(port, "/apis/apps/v1", "*/*", &r) == 200);
	CHECK_STR(
		r.body,
		"{\"kind\":\"APIResourceList\",\"groupVersion\":\"apps/v1\"}");
	mhd_reply_free(&r);
	/* named by the group list, but the upstream had none */
	CHECK(ask(port, "/apis/gone/v1", NULL, &r) == 299);
	mhd_reply_free(&r);
	CHECK(ask(port, "/apis/batch/v1", NULL, &r) == 299);
	mhd_reply_free(&r);
	/* a media type discovery cannot give */
	CHECK(ask(port, "/version", "application/yaml", &r) == 299);
	mhd_reply_free(&r);

	/* the aggregated form, with its own type, a validator, Vary */
	CHECK(ask(port, "/apis", AGG_V2 ",application/json", &r) == 200);
	CHECK_STR(r.body, APIS);
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, AGG_V2);
	CHECK(mhd_reply_header(&r, "Vary", v, sizeof(v)));
	CHECK_STR(v, "Accept");
	CHECK(mhd_reply_header(&r, "Cache-Control", v, sizeof(v)));
	CHECK_STR(v, "public");
	CHECK(mhd_reply_header(&r, "ETag", etag, sizeof(etag)));
	CHECK(strlen(etag) == 18 && etag[0] == '"');
	mhd_reply_free(&r);
	/* spaces in the media range do not matter */
	CHECK(ask(port, "/apis",
		  "application/json; g=apidiscovery.k8s.io; v=v2; "
		  "as=APIGroupDiscoveryList",
		  &r) == 200);
	CHECK(mhd_reply_header(&r, "ETag", v, sizeof(v)));
	CHECK_STR(v, etag);
	mhd_reply_free(&r);
	/* the same ETag: 304, no body */
	char inm[96];
	snprintf(inm, sizeof(inm), "If-None-Match: %s", etag);
	const char *const hdrs[] = { "Accept: " AGG_V2, inm, NULL };
	CHECK(mhd_stub_ask(port, "GET", "/apis", hdrs, 0, &r) == 0);
	CHECK(r.status == 304 && r.len == 0);
	mhd_reply_free(&r);
	const char *const other[] = { "Accept: " AGG_V2, "If-None-Match: \"0\"",
				      NULL };
	CHECK(mhd_stub_ask(port, "GET", "/apis", other, 0, &r) == 0);
	CHECK(r.status == 200 && r.len == strlen(APIS));
	mhd_reply_free(&r);
	/* plain JSON of the same path: no validator */
	CHECK(ask(port, "/apis", "application/json", &r) == 200);
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	CHECK(!mhd_reply_header(&r, "ETag", v, sizeof(v)));
	mhd_reply_free(&r);
	/* v2beta1 was refused (wrong type upstream): the first range the
	 * proxy can read decides, so the upstream answers it */
	CHECK(ask(port, "/apis", AGG_B1 ",application/json;q=0.9", &r) == 299);
	mhd_reply_free(&r);
	CHECK(ask(port, "/apis", AGG_B1, &r) == 299);
	mhd_reply_free(&r);
	/* /api was given only plain; aggregated forms are for /api, /apis */
	CHECK(ask(port, "/api", AGG_V2, &r) == 299);
	mhd_reply_free(&r);
	CHECK(ask(port, "/api/v1", AGG_V2, &r) == 299);
	mhd_reply_free(&r);
	CHECK(ask(port, "/has/apis/apps/v1", NULL, &r) == 200);
	CHECK_STR(r.body, "yes");
	mhd_reply_free(&r);
	CHECK(ask(port, "/has/apis/gone/v1", NULL, &r) == 200);
	CHECK_STR(r.body, "no");
	mhd_reply_free(&r);
}

/* The refresh (every second here) replaces the set. */
static void test_refresh(int port)
{
	bool changed = false;
	for (int i = 0; i < 60 && !changed; i++) {
		struct mhd_reply r;
		changed = mhd_stub_get(port, "/version", &r) == 0 &&
			  r.status == 200 &&
			  !strcmp(r.body, "{\"gitVersion\":\"v1.31.0\"}");
		mhd_reply_free(&r);
		if (!changed)
			usleep(100 * 1000);
	}
	CHECK(changed);
}

/* /api/v1 missing upstream: no set, everything passes through. */
static void test_incomplete(void)
{
	static struct http_stub_route few[] = {
		{ .match = "GET /version ",
		  .response = OK("application/json") "{}" },
		{ .match = "GET /api ",
		  .response = OK("application/json") "{}" },
		{ .match = "GET /apis ",
		  .response = OK("application/json") "{}" },
	};
	struct http_stub up_srv;
	struct mhd_stub s;
	char server[64];
	CHECK(http_stub_start(&up_srv, few, 3) == 0);
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", up_srv.port);
	struct cache_upstream up = { .server = server };
	struct proxy_discovery *d = proxy_discovery_new(&up, 60);
	CHECK(d != NULL);
	CHECK(mhd_stub_start(&s, answer, d) == 0);
	for (int i = 0; i < 30 && http_stub_count(&up_srv) < 4; i++)
		usleep(50 * 1000);
	CHECK(http_stub_count(&up_srv) >= 4); /* it did ask, up to /api/v1 */
	struct mhd_reply r;
	CHECK(ask(s.port, "/version", NULL, &r) == 299);
	mhd_reply_free(&r);
	CHECK(ask(s.port, "/has/api", NULL, &r) == 200);
	CHECK_STR(r.body, "no");
	mhd_reply_free(&r);
	mhd_stub_stop(&s);
	proxy_discovery_free(d);
	http_stub_stop(&up_srv);
}

static void test_alloc_fail(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	alloc_fail_after(1);
	CHECK(proxy_discovery_new(&up, 60) == NULL);
	alloc_fail_after(0);
	proxy_discovery_free(NULL); /* a no-op */
}

int main(void)
{
	struct http_stub up_srv;
	struct mhd_stub s;
	char server[64];
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_paths();
	test_alloc_fail();
	CHECK(http_stub_start(&up_srv, routes,
			      sizeof(routes) / sizeof(*routes)) == 0);
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", up_srv.port);
	struct cache_upstream up = { .server = server };
	struct proxy_discovery *d = proxy_discovery_new(&up, 1);
	CHECK(d != NULL);
	CHECK(mhd_stub_start(&s, answer, d) == 0);
	CHECK(wait_set(s.port));
	test_serve(s.port);
	test_refresh(s.port);
	mhd_stub_stop(&s);
	proxy_discovery_free(d);
	http_stub_stop(&up_srv);
	test_incomplete();
	curl_global_cleanup();
	return check_done("discovery");
}
