/*
 * test_fresh: the freshness wait of consistent reads (proxy/fresh.c).
 *
 * Its decisions: a read whose RV the cache has reached is answered from
 * the cache at once and without a probe; an RV-less read probes the
 * upstream (limit=1 LIST) and is answered from the cache when the cache
 * is there, after a 15 ms grace when the resource is busy, else sent
 * upstream; an RV-less watch waits up to 250 ms and then starts from the
 * cache; a watch-list from resourceVersion=N is a read from N: from the
 * cache when it is there, else upstream (no 504 the apiserver, whose
 * cache etcd keeps current, would not give). Its waiting: connections
 * suspended and resumed by reflector progress, by a probe's answer or by
 * a deadline, also while the prober is stuck in a probe to a silent
 * upstream. Its faults: a 500, an answer without resourceVersion, a
 * refused connection and a silent upstream all serve the cache as it is
 * (counted); stopping resumes every waiter; allocation failure in
 * proxy_fresh_new(). A resource a probe found behind is
 * test_fresh_behind.c's.
 *
 * The upstream is tests/unit/http_stub.h; each resource is an in-memory
 * store whose RV the test moves as a reflector would. Requests reach
 * proxy_fresh_await() through fresh_stub.h's daemon on 127.0.0.1:0,
 * whose handler answers "cache RV" or "upstream".
 */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "cache/resource.h"
#include "config/alloc.h"
#include "proxy/fresh.h"
#include "proxy/metrics.h"
#include "check.h"
#include "fresh_stub.h"
#include "http_stub.h"

/* ------------------------------------------------------------------ */
/* Decisions known at once (no connection is suspended)                 */

static void test_decide_now(struct proxy_fresh *f, struct cache_resource *pods,
			    struct cache_resource *stranger)
{
	struct proxy_wait w = { .r = pods };

	/* resourceVersion=N the cache has reached */
	w.need_rv = 50;
	CHECK(!proxy_fresh_wait(f, &w, false));
	CHECK(w.result == PROXY_FRESH_OK);
	w.need_rv = 100;
	CHECK(!proxy_fresh_wait(f, &w, false));
	CHECK(w.result == PROXY_FRESH_OK);
	/* ahead of a quiet cache: no wait, the upstream answers */
	w.need_rv = 101;
	CHECK(!proxy_fresh_wait(f, &w, false));
	CHECK(w.result == PROXY_FRESH_UPSTREAM);
	CHECK(!w.queued);

	/* a resource the prober does not know cannot be proven fresh */
	struct proxy_wait s = { .r = stranger };
	CHECK(!proxy_fresh_wait(f, &s, true));
	CHECK(s.result == PROXY_FRESH_STALE);
	busy(stranger);
	s.need_rv = 999;
	CHECK(!proxy_fresh_wait(f, &s, false));
	CHECK(s.result == PROXY_FRESH_STALE);
}

/* ------------------------------------------------------------------ */
/* Through the daemon                                                   */

static void test_rv_reads(struct http_stub *s, struct proxy_fresh *f,
			  struct cache_resource *pods)
{
	int probes = http_stub_count(s);
	uint64_t up = counter(&proxy_metrics_counters.reads_upstream);

	struct call k = call(f, pods, "rv=100");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 100");
	k = call(f, pods, "any=1");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 100");
	/* N ahead of a quiet cache: the upstream answers it, at once */
	k = call(f, pods, "rv=500");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "upstream");
	CHECK(k.ms < 1000);
	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up + 1);
	/* none of these asked the upstream for its RV */
	CHECK(http_stub_count(s) == probes);
}

static void test_consistent_reads(struct http_stub *s, struct proxy_fresh *f,
				  struct cache_resource *pods,
				  struct cache_resource *quiet,
				  struct cache_resource *busy_r)
{
	uint64_t reads = counter(&proxy_metrics_counters.consistent_reads);
	uint64_t up = counter(&proxy_metrics_counters.reads_upstream);
	int probes = http_stub_count(s);

	/* the probe says 100 and the cache is at 100 */
	struct call k = call(f, pods, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 100");
	CHECK(http_stub_count(s) == probes + 1);
	pthread_mutex_lock(&s->lock);
	CHECK_STR(s->req[probes], "GET /api/v1/pods?limit=1 HTTP/1.1");
	pthread_mutex_unlock(&s->lock);

	/* the cache is at 40 and quiet: it cannot prove itself, upstream */
	k = call(f, quiet, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "upstream");

	/* busy: a 15 ms grace for the watch to catch up; then, its whole
	 * collection cached, a list probe (which this stub refuses: 404),
	 * then upstream */
	busy(busy_r);
	k = call(f, busy_r, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "upstream");
	CHECK(k.ms >= 15);
	pthread_mutex_lock(&s->lock);
	CHECK_STR(s->req[probes + 3], "GET /api/v1/secrets?limit=500 HTTP/1.1");
	pthread_mutex_unlock(&s->lock);

	CHECK(counter(&proxy_metrics_counters.consistent_reads) == reads + 3);
	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up + 2);
	CHECK(http_stub_count(s) == probes + 4);
}

/* A busy resource whose watch brings the probed RV while the read
 * waits (for the probe or within the grace after it) is answered from
 * the cache, not sent upstream. */
static void test_busy_catches_up(struct http_stub *s, struct proxy_fresh *f,
				 struct cache_resource *r)
{
	busy(r);
	struct later l = { r, 100, 0, s, http_stub_count(s) };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, later_run, &l) == 0);
	struct call k = call(f, r, "");
	pthread_join(th, NULL);
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 100");
}

static void test_watches(struct proxy_fresh *f, struct cache_resource *lag,
			 struct cache_resource *catchup,
			 struct cache_resource *rvwait,
			 struct cache_resource *never)
{
	uint64_t up = counter(&proxy_metrics_counters.reads_upstream);

	/* RV-less watch, the cache behind the probe: 250 ms, then from the
	 * cache as it is; never upstream */
	struct call k = call(f, lag, "watch=1");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 40");
	CHECK(k.ms >= 250);
	CHECK(k.ms < 2000);

	/* the same, but the watch brings the RV after 80 ms */
	struct later l = { catchup, 100, 80, NULL, 0 };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, later_run, &l) == 0);
	k = call(f, catchup, "watch=1");
	pthread_join(th, NULL);
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 100");
	CHECK(k.ms < 250);

	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up);

	/* a watch-list from resourceVersion=60 the quiet cache has not
	 * reached: upstream at once, as a LIST from 60 (the cache's next
	 * BOOKMARK may be a minute away; no 3 s wait, no 504) */
	k = call(f, never, "watch=1&rv=60");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "upstream");
	CHECK(k.ms < 2000);
	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up + 1);

	/* reached: from the cache, no wait */
	set_rv(rvwait, 60);
	k = call(f, rvwait, "watch=1&rv=60");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 60");
	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up + 1);
}

/* The upstream cannot be asked: the cache answers as it is, counted. */
static void test_upstream_faults(struct proxy_fresh *f,
				 struct cache_resource *err500,
				 struct cache_resource *norv)
{
	uint64_t stale = counter(&proxy_metrics_counters.consistent_stale);
	uint64_t up = counter(&proxy_metrics_counters.reads_upstream);

	struct call k = call(f, err500, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 40");
	k = call(f, norv, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 40");
	/* an RV-less watch too */
	k = call(f, err500, "watch=1");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 40");
	CHECK(k.ms < 2000);

	CHECK(counter(&proxy_metrics_counters.consistent_stale) == stale + 3);
	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up);
}

static void test_refused(void)
{
	struct cache_resource *r = resource("pods", 40);
	struct cache_upstream upc = { .server = "http://127.0.0.1:1" };
	struct proxy_fresh *f = proxy_fresh_new(&upc, &r, 1);
	CHECK(f != NULL);
	uint64_t stale = counter(&proxy_metrics_counters.consistent_stale);
	struct call k = call(f, r, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 40");
	CHECK(k.ms < 3000);
	CHECK(counter(&proxy_metrics_counters.consistent_stale) == stale + 1);
	proxy_fresh_stop(f);
	proxy_fresh_free(f);
}

/*
 * A silent upstream: the probe gets headers, then nothing. The read is
 * served stale when the probe's 5 s are up, by the ticker, while the
 * prober is still stuck. Then stop: the next waiter gets the 504 of a
 * shutdown at once, the stuck probe is abandoned, and later requests are
 * stale without waiting.
 */
static void test_silent_upstream(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .hold = true,
		  .response =
			  "HTTP/1.1 200 OK\r\nContent-Type: application/json"
			  "\r\nContent-Length: 500\r\n\r\n{\"metadata\":" },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 1) == 0);
	char server[64];
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream upc = { .server = server };
	struct cache_resource *r = resource("pods", 40);
	struct proxy_fresh *f = proxy_fresh_new(&upc, &r, 1);
	CHECK(f != NULL);
	__atomic_store_n(&tick_f, f, __ATOMIC_RELEASE);

	uint64_t stale = counter(&proxy_metrics_counters.consistent_stale);
	struct call k = call(f, r, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "cache 40");
	CHECK(k.ms >= 5000 && k.ms < 7000);
	CHECK(counter(&proxy_metrics_counters.consistent_stale) == stale + 1);
	CHECK(http_stub_count(&s) == 1);

	/* a waiter behind the stuck probe, then stop */
	struct call w = { .f = f, .r = r, .query = "" };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, call_run, &w) == 0);
	usleep(300000);
	int64_t t0 = cache_rvclock_now_ms();
	__atomic_store_n(&tick_f, NULL, __ATOMIC_RELEASE);
	proxy_fresh_stop(f);
	CHECK(cache_rvclock_now_ms() - t0 < 3000);
	pthread_join(th, NULL);
	CHECK(w.code == 504);
	CHECK(w.ms < 3000);

	struct proxy_wait after = { .r = r };
	CHECK(!proxy_fresh_wait(f, &after, true));
	CHECK(after.result == PROXY_FRESH_STALE);
	proxy_fresh_free(f);
	http_stub_stop(&s);
}

static void test_alloc_failure(void)
{
	struct cache_resource *r = resource("pods", 1);
	struct cache_upstream upc = { .server = "http://127.0.0.1:1" };
	int n, fails = 0;
	struct proxy_fresh *f = NULL;
	for (n = 1; n < 10 && !f; n++) {
		alloc_fail_after(n);
		f = proxy_fresh_new(&upc, &r, 1);
		alloc_fail_after(0);
		if (!f) {
			fails++;
			/* nothing was hooked into the resource */
			CHECK(r->on_progress_ctx == NULL);
		}
	}
	CHECK(f != NULL);
	CHECK(fails == 2); /* the state, then the probe table */
	CHECK(r->on_progress == proxy_fresh_progress);
	CHECK(r->on_progress_ctx == f);
	proxy_fresh_stop(f);
	CHECK(r->on_progress_ctx == NULL);
	proxy_fresh_free(f);
}

int main(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=1 ", .response = RV_100 },
		{ .match = "GET /api/v1/services?limit=1 ",
		  .response = RV_100 },
		{ .match = "GET /api/v1/secrets?limit=1 ", .response = RV_100 },
		{ .match = "GET /api/v1/endpoints?limit=1 ",
		  .response = RV_100 },
		{ .match = "GET /api/v1/serviceaccounts?limit=1 ",
		  .response = RV_100 },
		{ .match = "GET /api/v1/events?limit=1 ", .response = RV_100 },
		{ .match = "GET /api/v1/configmaps?limit=1 ",
		  .response = "HTTP/1.1 500 Internal Server Error\r\n"
			      "Content-Type: application/json\r\n"
			      "Connection: close\r\n\r\n"
			      "{\"kind\":\"Status\",\"code\":500}" },
		{ .match = "GET /api/v1/nodes?limit=1 ",
		  .response = JSON_200("{\"metadata\":{}}") },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 8) == 0);
	if (!fresh_stub_start())
		return check_done("fresh");

	char server[64];
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream upc = { .server = server };
	struct cache_resource *res[] = {
		resource("pods", 100),
		selected("services", 40),	   /* quiet */
		resource("secrets", 40),	   /* busy */
		resource("endpoints", 40),	   /* watch lags */
		resource("serviceaccounts", 40),   /* watch catches up */
		resource("configmaps", 40),	   /* 500 */
		resource("nodes", 40),		   /* 200 without RV */
		resource("namespaces", 40),	   /* watch rv=60, reached */
		resource("persistentvolumes", 40), /* watch rv=60, never */
		resource("events", 40),		   /* busy, catches up */
	};
	struct cache_resource *stranger = resource("leases", 1);
	struct proxy_fresh *f = proxy_fresh_new(&upc, res, 10);
	CHECK(f != NULL);
	__atomic_store_n(&tick_f, f, __ATOMIC_RELEASE);

	test_decide_now(f, res[0], stranger);
	test_rv_reads(&s, f, res[0]);
	test_consistent_reads(&s, f, res[0], res[1], res[2]);
	test_busy_catches_up(&s, f, res[9]);
	test_watches(f, res[3], res[4], res[7], res[8]);
	test_upstream_faults(f, res[5], res[6]);

	__atomic_store_n(&tick_f, NULL, __ATOMIC_RELEASE);
	proxy_fresh_stop(f);
	for (int i = 0; i < 10; i++)
		CHECK(res[i]->on_progress_ctx == NULL);
	proxy_fresh_free(f);
	http_stub_stop(&s);

	test_refused();
	test_silent_upstream();
	test_alloc_failure();

	fresh_stub_stop();
	return check_done("fresh");
}
