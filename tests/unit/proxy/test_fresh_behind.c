/*
 * test_fresh_behind: the freshness wait (proxy/fresh.c) for a resource
 * a probe found behind the upstream.
 *
 * A quiet resource so found is sent upstream without a probe until its
 * store moves, it gets busy, or the finding is 2 s old (renewed by
 * background probes while reads come, ended by a failed one). Then the
 * probes that prove the cache instead of forwarding: a GET of the
 * object an RV-less GET asks for, a LIST of a small collection compared
 * with the store; how many probes many concurrent reads cost (at most
 * the one in flight and the next); and a silent upstream under an
 * object probe, which sends its readers upstream at the deadline.
 *
 * Through fresh_stub.h's daemon and quiet resources, each with an
 * upstream of its own (tests/unit/http_stub.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "cache/resource.h"
#include "cache/rvclock.h"
#include "proxy/fresh.h"
#include "proxy/metrics.h"
#include "check.h"
#include "fresh_stub.h"
#include "http_stub.h"

/* ------------------------------------------------------------------ */
/* A resource already known to be behind goes upstream without a probe */

static void test_known_behind(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=1 ", .response = RV_100 },
	};
	struct quiet q;
	quiet_start(&q, routes, 1);
	const uint64_t *unprobed =
		&proxy_metrics_counters.reads_upstream_unprobed;
	uint64_t up = counter(&proxy_metrics_counters.reads_upstream);
	uint64_t un = counter(unprobed);
	uint64_t reads = counter(&proxy_metrics_counters.consistent_reads);

	/* the first read probes: 100 against the cache's 40, upstream */
	CHECK(read_probed(&q, "", "upstream"));
	CHECK(counter(unprobed) == un);
	/* the second knows: upstream at once, one upstream request */
	int probes = http_stub_count(&q.s);
	CHECK(read_unprobed(&q));
	CHECK(read_unprobed(&q));
	CHECK(http_stub_count(&q.s) == probes);
	CHECK(counter(unprobed) == un + 2);
	CHECK(counter(&proxy_metrics_counters.reads_upstream) == up + 3);
	CHECK(counter(&proxy_metrics_counters.consistent_reads) == reads + 3);

	/* a resourceVersion=0 read still comes from the cache, and an
	 * RV-less watch still probes (it never goes upstream) */
	CHECK(!read_probed(&q, "any=1", "cache 40"));
	CHECK(read_probed(&q, "watch=1", "cache 40"));

	/* a BOOKMARK moves the store: the probe is back, finds it behind
	 * again, and the next read knows it again */
	set_rv(q.r, 50);
	CHECK(read_probed(&q, "", "upstream"));
	CHECK(read_unprobed(&q));

	/* an event: the store moves and the resource is busy; every read
	 * probes (15 ms for the watch) while it stays busy */
	progress(q.r, 60);
	CHECK(read_probed(&q, "", "upstream"));
	CHECK(read_probed(&q, "", "upstream"));

	/* the watch reaches the upstream's RV: from the cache, probed */
	progress(q.r, 100);
	CHECK(read_probed(&q, "", "cache 100"));
	CHECK(read_probed(&q, "", "cache 100"));
	quiet_stop(&q);
}

/* Reads keep the finding fresh with probes in the background; without
 * reads it ends after 2 s; a failed probe ends it at once. */
static void test_known_behind_ages(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = RV_100,
		  .once = true },
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = RV_100,
		  .once = true },
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = RV_100,
		  .once = true },
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = RV_100,
		  .once = true },
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = "HTTP/1.1 500 Internal Server Error\r\n"
			      "Connection: close\r\n\r\n{}" },
	};
	struct quiet q;
	quiet_start(&q, routes, 5);
	CHECK(read_probed(&q, "", "upstream")); /* probe 1 */
	int64_t t0 = cache_rvclock_now_ms();

	/* a read on a finding 0.5 s old: upstream at once, and a probe in
	 * the background renews the finding */
	usleep(600000);
	CHECK(read_unprobed(&q));
	CHECK(probes_reach(&q.s, 2));
	/* more than 2 s after the first probe, still known by the second */
	while (cache_rvclock_now_ms() - t0 < 2300)
		usleep(50000);
	CHECK(read_unprobed(&q));
	CHECK(probes_reach(&q.s, 3)); /* renewed again */

	/* no read for over 2 s: the finding is too old, the read probes */
	usleep(2300000);
	CHECK(read_probed(&q, "", "upstream")); /* probe 4 */

	/* the background probe fails (500): the finding ends, and the next
	 * read probes and, the upstream failing, gets the cache as it is */
	usleep(600000);
	int64_t t3 = cache_rvclock_now_ms() - 600;
	CHECK(read_unprobed(&q));
	CHECK(probes_reach(&q.s, 5));
	/* the prober notes the failure just after the stub saw the probe */
	struct call k;
	do {
		int probes = http_stub_count(&q.s);
		k = call(q.f, q.r, "");
		if (http_stub_count(&q.s) > probes)
			break;
		CHECK_STR(k.body, "upstream");
		usleep(20000);
	} while (cache_rvclock_now_ms() - t3 < 1500);
	CHECK(cache_rvclock_now_ms() - t3 < 1500);
	CHECK_STR(k.body, "cache 40");
	quiet_stop(&q);
}

/* ------------------------------------------------------------------ */
/* Probes that prove a resource known behind                            */

#define PODS_LIST_1 "GET /api/v1/pods?limit=1 "
#define PODS_LIST_500 "GET /api/v1/pods?limit=500 "
#define POD_200(rv)                                                \
	JSON_200("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"," \
		 "\"namespace\":\"ns-1\",\"resourceVersion\":\"" rv "\"}}")
#define NOT_FOUND                                                      \
	"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\n\r\n{\"kind\":\"Status\",\"status\":"    \
	"\"Failure\",\"reason\":\"NotFound\",\"code\":404}"
#define ERR_500                                          \
	"HTTP/1.1 500 Internal Server Error\r\n"         \
	"Content-Type: application/json\r\n"             \
	"Connection: close\r\n\r\n{\"kind\":\"Status\"," \
	"\"code\":500}"

static uint64_t probes_of(const uint64_t *c, uint64_t since)
{
	return counter(c) - since;
}

/*
 * GETs of a quiet resource known behind: the upstream's RV (100) is past
 * the store's (40), yet the object the GET asks for is the upstream's,
 * so the cache answers after one GET of that object. An object the
 * upstream has newer, or has deleted, goes upstream; one both lack is
 * the cache's 404; a probe that fails sends the read upstream, as it
 * would have been without one.
 */
static void test_object_probe(void)
{
	struct http_stub_route routes[] = {
		{ .match = PODS_LIST_1, .response = RV_100 },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/a ",
		  .response = POD_200("30") },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/b ",
		  .response = POD_200("41") },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/gone ",
		  .response = NOT_FOUND },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/none ",
		  .response = NOT_FOUND },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/err ",
		  .response = ERR_500 },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/denied ",
		  .response = "HTTP/1.1 403 Forbidden\r\nConnection: close"
			      "\r\nContent-Length: 2\r\n\r\n{}" },
	};
	struct quiet q;
	quiet_start(&q, routes, 7);
	put_pod(q.r, "ns-1", "a", 30, 35);
	put_pod(q.r, "ns-1", "b", 35, 38);
	put_pod(q.r, "ns-1", "gone", 38, 40);
	const uint64_t *obj = &proxy_metrics_counters.fresh_object_probes;
	uint64_t o0 = counter(obj);

	/* the first read probes the RV, finds the store behind, then the
	 * object: the cache's a is the upstream's */
	struct call k = call(q.f, q.r, "get=ns-1/a");
	CHECK_STR(k.body, "cache 40");
	CHECK(probes_of(obj, o0) == 1);
	/* known behind now: the object probe alone */
	int n = http_stub_count(&q.s);
	k = call(q.f, q.r, "get=ns-1/a");
	CHECK_STR(k.body, "cache 40");
	CHECK(http_stub_count(&q.s) == n + 1);
	pthread_mutex_lock(&q.s.lock);
	CHECK_STR(q.s.req[n], "GET /api/v1/namespaces/ns-1/pods/a HTTP/1.1");
	pthread_mutex_unlock(&q.s.lock);

	/* newer at the upstream (41 > 35): upstream */
	k = call(q.f, q.r, "get=ns-1/b");
	CHECK_STR(k.body, "upstream");
	/* deleted at the upstream, still cached: upstream */
	k = call(q.f, q.r, "get=ns-1/gone");
	CHECK_STR(k.body, "upstream");
	/* absent on both sides: the cache (its 404) */
	k = call(q.f, q.r, "get=ns-1/none");
	CHECK_STR(k.body, "cache 40");
	/* the probe fails: upstream, as without it */
	uint64_t stale = counter(&proxy_metrics_counters.consistent_stale);
	k = call(q.f, q.r, "get=ns-1/err");
	CHECK_STR(k.body, "upstream");
	CHECK(counter(&proxy_metrics_counters.consistent_stale) == stale);
	CHECK(probes_of(obj, o0) == 6);
	/* an identity that may list but not get: upstream, and no more
	 * object probes for this resource */
	k = call(q.f, q.r, "get=ns-1/denied");
	CHECK_STR(k.body, "upstream");
	CHECK(probes_of(obj, o0) == 7);
	k = call(q.f, q.r, "get=ns-1/a");
	CHECK_STR(k.body, "upstream");
	CHECK(probes_of(obj, o0) == 7);
	quiet_stop(&q);
}

/*
 * LISTs of a small quiet collection known behind: one LIST of it whose
 * items are the store's proves the store at the upstream's RV. While
 * the store stays there, a limit=1 probe answering that RV proves it
 * again; a collection that differs goes upstream.
 */
static void test_list_probe(void)
{
	struct http_stub_route routes[] = {
		{ .match = PODS_LIST_1, .response = RV_100, .once = true },
		{ .match = PODS_LIST_500,
		  .response = JSON_200(
			  "{\"kind\":\"PodList\",\"metadata\":"
			  "{\"resourceVersion\":\"100\"},\"items\":["
			  "{\"metadata\":{\"name\":\"a\",\"namespace\":"
			  "\"ns-1\",\"resourceVersion\":\"30\"}},"
			  "{\"metadata\":{\"name\":\"b\",\"namespace\":"
			  "\"ns-1\",\"resourceVersion\":\"35\"}}]}"),
		  .once = true },
		{ .match = PODS_LIST_1, .response = RV_100, .once = true },
		/* then b changed at the upstream */
		{ .match = PODS_LIST_1,
		  .response = JSON_200("{\"kind\":\"List\",\"metadata\":"
				       "{\"resourceVersion\":\"101\"},"
				       "\"items\":[]}") },
		{ .match = PODS_LIST_500,
		  .response = JSON_200(
			  "{\"kind\":\"PodList\",\"metadata\":"
			  "{\"resourceVersion\":\"101\"},\"items\":["
			  "{\"metadata\":{\"name\":\"a\",\"namespace\":"
			  "\"ns-1\",\"resourceVersion\":\"30\"}},"
			  "{\"metadata\":{\"name\":\"b\",\"namespace\":"
			  "\"ns-1\",\"resourceVersion\":\"101\"}}]}") },
	};
	struct cache_resource *r = resource("pods", 1); /* no selector */
	put_pod(r, "ns-1", "a", 30, 30);
	put_pod(r, "ns-1", "b", 35, 40);
	struct quiet q;
	quiet_start_with(&q, routes, 5, r);
	const uint64_t *lp = &proxy_metrics_counters.fresh_list_probes;
	uint64_t l0 = counter(lp);

	/* probe (100 > 40), then the list: the same items, the cache */
	struct call k = call(q.f, q.r, "");
	CHECK_STR(k.body, "cache 40");
	CHECK(probes_of(lp, l0) == 1);
	/* known behind: the cache, after one list probe... which the stub
	 * has no more answers for at 100: by then the RV says 101 and b
	 * differs, so the read goes upstream */
	k = call(q.f, q.r, "");
	CHECK_STR(k.body, "upstream");
	CHECK(probes_of(lp, l0) == 2);
	quiet_stop(&q);
}

/*
 * Many concurrent RV-less reads share probes: every read that arrives
 * before a probe is sent joins it, so 32 reads cost the probe in flight
 * and one more, of each kind, never one each; and each read is answered.
 * The upstream is held while they arrive, which makes them concurrent.
 */
static void test_coalesced(void)
{
	struct http_stub_route routes[] = {
		{ .match = PODS_LIST_1, .response = RV_100 },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/a ",
		  .response = POD_200("30") },
	};
	struct quiet q;
	quiet_start(&q, routes, 2);
	put_pod(q.r, "ns-1", "a", 30, 100);
	const uint64_t *rvp = &proxy_metrics_counters.fresh_probes;
	const uint64_t *obj = &proxy_metrics_counters.fresh_object_probes;
	enum {
		N = 32
	};
	struct call k[N];
	pthread_t th[N];

	/* at the upstream's RV: resource probes */
	uint64_t p0 = counter(rvp);
	int hold = stub_hold(&q.s);
	for (int i = 0; i < N; i++) {
		k[i] = (struct call){ .f = q.f, .r = q.r, .query = "" };
		CHECK(pthread_create(&th[i], NULL, call_run, &k[i]) == 0);
	}
	usleep(300000);
	close(hold);
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		CHECK_STR(k[i].body, "cache 100");
	}
	CHECK(probes_of(rvp, p0) >= 1 && probes_of(rvp, p0) <= 2);

	/* known behind (the store back at 40 for the upstream's 100): the
	 * GETs of one object share object probes */
	put_pod(q.r, "ns-1", "a", 30, 40);
	CHECK_STR(call(q.f, q.r, "get=ns-1/a").body, "cache 40");
	uint64_t o0 = counter(obj);
	p0 = counter(rvp);
	hold = stub_hold(&q.s);
	for (int i = 0; i < N; i++) {
		k[i] = (struct call){ .f = q.f,
				      .r = q.r,
				      .query = "get=ns-1/a" };
		CHECK(pthread_create(&th[i], NULL, call_run, &k[i]) == 0);
	}
	usleep(300000);
	close(hold);
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		CHECK_STR(k[i].body, "cache 40");
	}
	CHECK(probes_of(obj, o0) >= 1 && probes_of(obj, o0) <= 2);
	CHECK(probes_of(rvp, p0) <= 1); /* a background renewal at most */
	quiet_stop(&q);
}

/* A silent upstream under an object probe: its readers go upstream at
 * the probe's 5 s deadline (the ticker keeps time); nobody hangs. */
static void test_object_probe_silent(void)
{
	struct http_stub_route routes[] = {
		{ .match = PODS_LIST_1, .response = RV_100 },
		{ .match = "GET /api/v1/namespaces/ns-1/pods/a ",
		  .hold = true,
		  .response =
			  "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{" },
	};
	struct quiet q;
	quiet_start(&q, routes, 2);
	put_pod(q.r, "ns-1", "a", 30, 40);
	__atomic_store_n(&tick_f, q.f, __ATOMIC_RELEASE);
	CHECK_STR(call(q.f, q.r, "").body, "upstream"); /* known behind */
	struct call k[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		k[i] = (struct call){ .f = q.f,
				      .r = q.r,
				      .query = "get=ns-1/a" };
		CHECK(pthread_create(&th[i], NULL, call_run, &k[i]) == 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_STR(k[i].body, "upstream");
		CHECK(k[i].ms >= 4000 && k[i].ms < 8000);
	}
	__atomic_store_n(&tick_f, NULL, __ATOMIC_RELEASE);
	quiet_stop(&q);
}

int main(void)
{
	if (!fresh_stub_start())
		return check_done("fresh_behind");
	test_known_behind();
	test_known_behind_ages();
	test_object_probe();
	test_list_probe();
	test_coalesced();
	test_object_probe_silent();
	fresh_stub_stop();
	return check_done("fresh_behind");
}
