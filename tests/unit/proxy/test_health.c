/*
 * test_health: which paths are probes; /healthz and /livez always "ok";
 * /readyz 503 until every resource has synced and while draining, but
 * not when the upstream fails; /readyz/upstream 503 once the upstream has
 * failed past the grace period; terse or ?verbose, in the apiserver's
 * plain-text form, reasons withheld when terse; one check by name
 * (/readyz/NAME, /livez/NAME), 404 for a name there is none of; checks
 * left out with ?exclude.
 */
#include <string.h>
#include <time.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "proxy/health.h"
#include "mhd_stub.h"
#include "check.h"

static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	return proxy_health_handle(arg, c, url);
}

static void ask(int port, const char *target, long status, const char *body)
{
	struct mhd_reply r;
	char v[128];
	CHECK(mhd_stub_get(port, target, &r) == 0);
	CHECK(r.status == status);
	CHECK_STR(r.body, body);
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "text/plain; charset=utf-8");
	mhd_reply_free(&r);
}

/* The body of target has want in it, and the status is status. */
static void has(int port, const char *target, long status, const char *want)
{
	struct mhd_reply r;
	CHECK(mhd_stub_get(port, target, &r) == 0);
	CHECK(r.status == status);
	if (!strstr(r.body, want)) {
		fprintf(stderr, "  %s: \"%s\" lacks \"%s\"\n", target, r.body,
			want);
		CHECK(0);
	}
	mhd_reply_free(&r);
}

static void test_paths(void)
{
	CHECK(proxy_health_path("/healthz"));
	CHECK(proxy_health_path("/livez"));
	CHECK(proxy_health_path("/readyz"));
	CHECK(proxy_health_path("/readyz/upstream"));
	CHECK(!proxy_health_path("/readyz/"));
	CHECK(!proxy_health_path("/readyz/upstream/"));
	CHECK(!proxy_health_path("/livez/"));
	CHECK(!proxy_health_path("/livez/ping/x"));
	CHECK(proxy_health_path("/healthz/ping"));
	CHECK(proxy_health_path("/livez/ping"));
	CHECK(proxy_health_path("/readyz/informer-sync-pods"));
	CHECK(proxy_health_path("/readyz/no-such-check"));
	CHECK(!proxy_health_path("/metrics"));
	CHECK(!proxy_health_path(""));
	CHECK(!proxy_health_path("/HEALTHZ"));
}

/* /livez/NAME and /readyz/NAME: one check; ?exclude leaves one out. */
static void test_single(int port, struct proxy *p)
{
	struct cache_resource *pods = p->res[0], *deps = p->res[1];
	__atomic_store_n(&pods->synced, true, __ATOMIC_RELEASE);
	ask(port, "/livez/ping", 200, "ok");
	ask(port, "/healthz/ping", 200, "ok");
	ask(port, "/readyz/ping", 200, "ok");
	ask(port, "/readyz/shutdown", 200, "ok");
	ask(port, "/readyz/informer-sync-pods", 200, "ok");
	ask(port, "/readyz/informer-sync-deployments.apps", 500,
	    "internal server error: not synced yet");
	/* a readyz check is not a livez one; an unknown name is a Status */
	has(port, "/livez/informer-sync-pods", 404, "\"reason\":\"NotFound\"");
	has(port, "/readyz/nosuch", 404, "\"kind\":\"Status\"");
	/* the not-synced check left out: ready */
	ask(port, "/readyz?exclude=informer-sync-deployments.apps", 200, "ok");
	ask(port,
	    "/readyz?verbose&exclude=informer-sync-deployments.apps&exclude=upstream-pods",
	    200,
	    "[+]ping ok\n[+]shutdown ok\n[+]informer-sync-pods ok\n"
	    "[+]informer-sync-deployments.apps excluded: ok\n"
	    "[+]upstream-pods excluded: ok\n"
	    "[+]upstream-deployments.apps ok (not heard from yet)\n"
	    "readyz check passed");
	/* excluding another check leaves it failing */
	has(port, "/readyz?exclude=informer-sync-pods", 503,
	    "[-]informer-sync-deployments.apps failed: reason withheld\n");
	has(port, "/readyz?verbose&exclude=nosuch", 503,
	    "warn: some health checks cannot be excluded: no matches for "
	    "\"nosuch\"\nreadyz check failed");
	/* an upstream check asked by name counts, past the grace */
	time_t now = time(NULL);
	ask(port, "/readyz/upstream-pods", 200, "ok");
	__atomic_store_n(&pods->failing_since, (int64_t)now - 300,
			 __ATOMIC_RELAXED);
	has(port, "/readyz/upstream-pods", 500,
	    "internal server error: failing for ");
	__atomic_store_n(&deps->synced, true, __ATOMIC_RELEASE);
	has(port, "/readyz/upstream?exclude=upstream-pods", 200, "ok");
	has(port, "/readyz/upstream", 503, "[-]upstream-pods failed");
	/* draining: shutdown fails alone */
	__atomic_store_n(&p->draining, true, __ATOMIC_RELEASE);
	has(port, "/readyz/shutdown", 500,
	    "internal server error: the proxy is shutting down");
	ask(port, "/readyz?exclude=shutdown&exclude=upstream-pods", 200, "ok");
	__atomic_store_n(&p->draining, false, __ATOMIC_RELEASE);
	__atomic_store_n(&pods->failing_since, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pods->synced, false, __ATOMIC_RELEASE);
	__atomic_store_n(&deps->synced, false, __ATOMIC_RELEASE);
}

static void test_probes(int port, struct proxy *p)
{
	struct cache_resource *pods = p->res[0], *deps = p->res[1];
	/* nothing synced: alive, not ready */
	ask(port, "/healthz", 200, "ok");
	ask(port, "/livez", 200, "ok");
	ask(port, "/livez?verbose", 200, "[+]ping ok\nlivez check passed");
	ask(port, "/readyz", 503,
	    "[+]ping ok\n[+]shutdown ok\n"
	    "[-]informer-sync-pods failed: reason withheld\n"
	    "[-]informer-sync-deployments.apps failed: reason withheld\n"
	    "[+]upstream-pods ok\n[+]upstream-deployments.apps ok\n"
	    "readyz check failed");
	ask(port, "/readyz?verbose", 503,
	    "[+]ping ok\n[+]shutdown ok\n"
	    "[-]informer-sync-pods failed: not synced yet\n"
	    "[-]informer-sync-deployments.apps failed: not synced yet\n"
	    "[+]upstream-pods ok (not heard from yet)\n"
	    "[+]upstream-deployments.apps ok (not heard from yet)\n"
	    "readyz check failed");
	/* one of two */
	__atomic_store_n(&pods->synced, true, __ATOMIC_RELEASE);
	has(port, "/readyz?verbose=1", 503,
	    "[+]informer-sync-pods ok\n"
	    "[-]informer-sync-deployments.apps failed: not synced yet\n");
	has(port, "/readyz/upstream", 503, "readyz/upstream check failed");
	/* both */
	__atomic_store_n(&deps->synced, true, __ATOMIC_RELEASE);
	time_t now = time(NULL);
	__atomic_store_n(&pods->last_contact, (int64_t)now - 2,
			 __ATOMIC_RELAXED);
	ask(port, "/readyz", 200, "ok");
	ask(port, "/readyz/upstream", 200, "ok");
	has(port, "/readyz?verbose", 200,
	    "[+]informer-sync-deployments.apps ok\n"
	    "[+]upstream-pods ok (last heard from ");
	has(port, "/readyz?verbose", 200, "readyz check passed");
	/* the upstream failing within the grace period: both ready */
	__atomic_store_n(&pods->failing_since, (int64_t)now - 5,
			 __ATOMIC_RELAXED);
	has(port, "/readyz?verbose", 200, "[+]upstream-pods ok (failing for ");
	has(port, "/readyz/upstream?verbose", 200, "s, grace 30s)\n");
	ask(port, "/readyz/upstream", 200, "ok");
	/* past it: /readyz still ready (the cache serves), /readyz/upstream
	 * not; /healthz does not care */
	__atomic_store_n(&pods->failing_since, (int64_t)now - 300,
			 __ATOMIC_RELAXED);
	ask(port, "/readyz", 200, "ok");
	has(port, "/readyz?verbose", 200,
	    "s, past the 30s grace; the cache still serves)\n");
	has(port, "/readyz/upstream?verbose", 503,
	    "[-]upstream-pods failed: failing for ");
	has(port, "/readyz/upstream?verbose", 503,
	    "s, past the 30s grace\n[+]upstream-deployments.apps ok");
	has(port, "/readyz/upstream?verbose", 503,
	    "readyz/upstream check failed");
	has(port, "/readyz/upstream", 503,
	    "[-]upstream-pods failed: reason withheld\n");
	ask(port, "/healthz", 200, "ok");
	/* healthy again */
	__atomic_store_n(&pods->failing_since, 0, __ATOMIC_RELAXED);
	ask(port, "/readyz/upstream", 200, "ok");
	/* draining (SIGTERM): not ready, still alive */
	__atomic_store_n(&p->draining, true, __ATOMIC_RELEASE);
	has(port, "/readyz", 503,
	    "[+]ping ok\n[-]shutdown failed: reason withheld\n");
	has(port, "/readyz?verbose", 503,
	    "[-]shutdown failed: the proxy is shutting down\n");
	has(port, "/readyz/upstream", 503, "[-]shutdown failed");
	ask(port, "/livez", 200, "ok");
	__atomic_store_n(&p->draining, false, __ATOMIC_RELEASE);
}

int main(void)
{
	struct mhd_stub s;
	struct config cfg = { .grace_seconds = 30 };
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	struct cache_resource *res[2] = {
		cache_resource_new(cache_kind_lookup("pods"), &up, 16),
		cache_resource_new(cache_kind_lookup("deployments.apps"), &up,
				   16),
	};
	struct proxy p = { .cfg = &cfg, .res = res, .nres = 2 };
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_paths();
	CHECK(res[0] && res[1] && mhd_stub_start(&s, answer, &p) == 0);
	test_single(s.port, &p);
	test_probes(s.port, &p);
	/* no resources at all: ready */
	p.nres = 0;
	ask(s.port, "/readyz?verbose", 200,
	    "[+]ping ok\n[+]shutdown ok\nreadyz check passed");
	mhd_stub_stop(&s);
	cache_resource_free(res[0]);
	cache_resource_free(res[1]);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("health");
}
