/*
 * test_health: which paths are probes; /healthz and /livez always "ok";
 * /readyz 503 until every resource has synced and 503 again once the
 * upstream has failed past the grace period, terse or ?verbose, in the
 * apiserver's plain-text form.
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

static void test_paths(void)
{
	CHECK(proxy_health_path("/healthz"));
	CHECK(proxy_health_path("/livez"));
	CHECK(proxy_health_path("/readyz"));
	CHECK(!proxy_health_path("/readyz/"));
	CHECK(!proxy_health_path("/healthz/ping"));
	CHECK(!proxy_health_path("/metrics"));
	CHECK(!proxy_health_path(""));
	CHECK(!proxy_health_path("/HEALTHZ"));
}

static void test_probes(int port, struct proxy *p)
{
	struct cache_resource *pods = p->res[0], *deps = p->res[1];
	/* nothing synced: alive, not ready */
	ask(port, "/healthz", 200, "ok");
	ask(port, "/livez", 200, "ok");
	ask(port, "/readyz", 503,
	    "[-]informer-sync failed: reason withheld\n"
	    "readyz check failed");
	ask(port, "/readyz?verbose", 503,
	    "[-]informer-sync-pods failed: not synced\n"
	    "[-]informer-sync-deployments failed: not synced\n"
	    "readyz check failed");
	/* one of two */
	__atomic_store_n(&pods->synced, true, __ATOMIC_RELEASE);
	ask(port, "/readyz?verbose=1", 503,
	    "[+]informer-sync-pods ok\n"
	    "[-]informer-sync-deployments failed: not synced\n"
	    "readyz check failed");
	/* both */
	__atomic_store_n(&deps->synced, true, __ATOMIC_RELEASE);
	ask(port, "/readyz", 200, "ok");
	ask(port, "/readyz?verbose", 200,
	    "[+]informer-sync-pods ok\n[+]informer-sync-deployments ok\n"
	    "readyz check passed");
	/* the upstream failing within the grace period: still ready */
	time_t now = time(NULL);
	__atomic_store_n(&pods->failing_since, (int64_t)now - 5,
			 __ATOMIC_RELAXED);
	struct mhd_reply r;
	CHECK(mhd_stub_get(port, "/readyz?verbose", &r) == 0);
	CHECK(r.status == 200);
	CHECK(strstr(r.body, "[+]upstream-pods failing for ") != NULL);
	CHECK(strstr(r.body, "s (grace 30s)\n") != NULL);
	CHECK(strstr(r.body, "readyz check passed") != NULL);
	mhd_reply_free(&r);
	/* past it: not ready, though synced; /healthz does not care */
	__atomic_store_n(&pods->failing_since, (int64_t)now - 300,
			 __ATOMIC_RELAXED);
	CHECK(mhd_stub_get(port, "/readyz?verbose", &r) == 0);
	CHECK(r.status == 503);
	CHECK(strstr(r.body,
		     "[+]informer-sync-pods ok\n[-]upstream-pods failing for ") ==
	      r.body);
	CHECK(strstr(r.body, "readyz check failed") != NULL);
	mhd_reply_free(&r);
	ask(port, "/readyz", 503,
	    "[-]informer-sync failed: reason withheld\n"
	    "readyz check failed");
	ask(port, "/healthz", 200, "ok");
	/* healthy again */
	__atomic_store_n(&pods->failing_since, 0, __ATOMIC_RELAXED);
	ask(port, "/readyz", 200, "ok");
}

int main(void)
{
	struct mhd_stub s;
	struct config cfg = { .grace_seconds = 30 };
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	struct cache_resource *res[2] = {
		cache_refl_new(cache_kind_lookup("pods"), &up, 16),
		cache_refl_new(cache_kind_lookup("deployments.apps"), &up, 16),
	};
	struct proxy p = { .cfg = &cfg, .res = res, .nres = 2 };
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_paths();
	CHECK(res[0] && res[1] && mhd_stub_start(&s, answer, &p) == 0);
	test_probes(s.port, &p);
	/* no resources at all: ready */
	p.nres = 0;
	ask(s.port, "/readyz?verbose", 200, "readyz check passed");
	mhd_stub_stop(&s);
	cache_refl_free(res[0]);
	cache_refl_free(res[1]);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("health");
}
