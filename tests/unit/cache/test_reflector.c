/*
 * test_reflector: one reflector thread against a scripted upstream: the
 * first LIST, the WATCH it opens from the list's resourceVersion, events
 * of every type applied to the store and the history, a BOOKMARK, a
 * malformed line that forces a relist, and a prompt stop in a silent
 * watch; the events of one read are applied before local watchers are
 * woken, once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/reflector.h"
#include "cache/watcher.h"
#include "cache/xfer.h"
#include "config/buf.h"
#include "config/limits.h"
#include "http_stub.h"
#include "check.h"

#define HDR                                                     \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\n\r\n"
#define POD(name, rv)                                                            \
	"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" name \
	"\",\"namespace\":\"ns\",\"resourceVersion\":\"" rv "\"}}"
#define EV(type, name, rv) \
	"{\"type\":\"" type "\",\"object\":" POD(name, rv) "}\n"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Poll (no sleep-and-assert) until the store reaches rv, or 10 s. */
/* Whether the stub has seen n requests within 10 s. */
static bool wait_requests(struct http_stub *s, int n)
{
	for (double end = now_s() + 10; now_s() < end;) {
		if (http_stub_count(s) >= n)
			return true;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

static bool wait_rv(struct cache_resource *r, uint64_t rv)
{
	for (double end = now_s() + 10; now_s() < end;) {
		if (cache_store_rv(r->store) >= rv)
			return true;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

static bool has(struct cache_resource *r, const char *name, uint64_t rv)
{
	struct cache_snap *s = cache_store_snap(r->store);
	struct cache_obj *o = cache_store_snap_find(s, "ns", name);
	bool ok = rv ? o && o->rv == rv : o == NULL;
	cache_store_snap_put(s);
	return ok;
}

/* A pods reflector against a stub serving routes: the stub, the
 * upstream that names it, and the resource (NULL if it could not be made;
 * started when start). */
struct pods {
	struct http_stub s;
	char server[64];
	struct cache_upstream up;
	struct cache_resource *r;
};

static struct cache_resource *pods_new(struct pods *p,
				       struct http_stub_route *routes,
				       int nroutes, int backoff_max_ms,
				       size_t capacity)
{
	CHECK(http_stub_start(&p->s, routes, nroutes) == 0);
	snprintf(p->server, sizeof(p->server), "http://127.0.0.1:%d",
		 p->s.port);
	p->up = (struct cache_upstream){ .server = p->server,
					 .watch_timeout = 60,
					 .backoff_max_ms = backoff_max_ms };
	p->r = cache_resource_new(cache_kind_lookup("pods"), &p->up, capacity);
	return p->r;
}

/* Stops the stub and frees the resource, its readers gone. */
static void pods_free(struct pods *p)
{
	http_stub_stop(&p->s);
	rcu_barrier_bp();
	cache_resource_free(p->r);
}

static void test_list_then_watch(void)
{
	struct http_stub_route routes[] = {
		/* the reflector checks a BOOKMARK's RV against the upstream */
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response =
			  HDR "{\"metadata\":{\"resourceVersion\":\"20\"}}" },
		{ .match = "GET /api/v1/pods?limit=500 ",
		  .once = true,
		  .response =
			  HDR "{\"kind\":\"PodList\",\"metadata\":"
			      "{\"resourceVersion\":\"10\"},\"items\":[" POD(
				      "a", "5") "," POD("b", "9") "]}" },
		{ .match = "GET /api/v1/pods?watch=true&resourceVersion=10&",
		  .once = true,
		  .response = HDR EV("ADDED", "c", "11") EV("MODIFIED", "a",
							    "12")
			  EV("DELETED", "b",
			     "13") "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\","
				   "\"apiVersion\":\"v1\",\"metadata\":"
				   "{\"resourceVersion\":\"20\"}}}\n"
				   "{\"type\":\"ADDED\",\"object\":{\"metadata\":\n" },
		/* the broken line above forces a relist */
		{ .match = "GET /api/v1/pods?limit=500 ",
		  .once = true,
		  .response = HDR
		  "{\"metadata\":{\"resourceVersion\":\"30\"},"
		  "\"items\":[" POD("a", "12") "," POD("d", "25") "]}" },
		{ .match = "GET /api/v1/pods?watch=true&resourceVersion=30&",
		  .response = HDR,
		  .hold = true },
	};
	struct pods p;
	struct cache_resource *r = pods_new(&p, routes, 5, 50, 100);
	struct http_stub *s = &p.s;
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK(cache_reflector_start(r) == 0);

	CHECK(wait_rv(r, 30));
	CHECK(cache_resource_synced(r));
	CHECK(has(r, "a", 12) && has(r, "d", 25) && has(r, "b", 0));
	CHECK(has(r, "c", 0)); /* gone in the relist: a synthetic delete */
	CHECK(__atomic_load_n(&r->stats.lists, __ATOMIC_RELAXED) == 2);
	CHECK(__atomic_load_n(&r->stats.relists_by[REFL_RELIST_BROKEN],
			      __ATOMIC_RELAXED) == 1);
	CHECK(__atomic_load_n(&r->stats.events, __ATOMIC_RELAXED) >= 3);
	CHECK(__atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED));
	/* the history holds the watch's events and the relist's difference */
	CHECK(cache_history_head(r->history) >= 13);

	/* the watch from the relist's RV is under way (the cache reaches 30
	 * before the reflector asks for it) */
	CHECK(wait_requests(s, 5));
	/* a reflector in a silent watch stops at once */
	double t0 = now_s();
	cache_reflector_stop(r);
	CHECK(now_s() - t0 < 5);
	int n = http_stub_count(s);
	CHECK(n == 5); /* list, watch, bookmark check, relist, watch */
	CHECK(strstr(s->req[1], "allowWatchBookmarks=true&timeoutSeconds=60 "));
	CHECK(strstr(s->req[4], "watch=true&resourceVersion=30&"));
	pods_free(&p);
}

/* An ADDED event of pod name at rv whose spec holds arrays nested levels
 * deep: the pod nests levels + 2 deep, the event one more. */
static void deep_event(struct buf *b, const char *name, const char *rv,
		       int levels)
{
	buf_adds(b, "{\"type\":\"ADDED\",\"object\":{\"metadata\":"
		    "{\"name\":\"");
	buf_adds(b, name);
	buf_adds(b, "\",\"namespace\":\"ns\",\"resourceVersion\":\"");
	buf_adds(b, rv);
	buf_adds(b, "\"},\"spec\":{\"x\":");
	for (int i = 0; i < levels; i++)
		buf_addc(b, '[');
	for (int i = 0; i < levels; i++)
		buf_addc(b, ']');
	buf_adds(b, "}}}\n");
}

/* The apiserver's depth limit holds for each object, not for the event
 * that carries it a level down: an object at the limit is applied, one
 * past it is skipped and counted, and the watch goes on (no relist). */
static void test_deep_events(void)
{
	struct buf watch = BUF_INIT;
	buf_adds(&watch, HDR);
	deep_event(&watch, "c", "11", LIMIT_JSON_DEPTH - 1); /* past it */
	deep_event(&watch, "e", "12", LIMIT_JSON_DEPTH - 2); /* at it */
	buf_adds(&watch, EV("ADDED", "f", "13"));
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=500 ",
		  .response = HDR "{\"metadata\":{\"resourceVersion\":"
				  "\"10\"},\"items\":[" POD("a", "5") "]}" },
		{ .match = "GET /api/v1/pods?watch=true&resourceVersion=10&",
		  .response = watch.p,
		  .hold = true },
	};
	struct pods p;
	struct cache_resource *r = pods_new(&p, routes, 2, 50, 100);
	struct http_stub *s = &p.s;
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK(cache_reflector_start(r) == 0);
	CHECK(wait_rv(r, 13));
	CHECK(has(r, "a", 5) && has(r, "c", 0) && has(r, "e", 12) &&
	      has(r, "f", 13));
	CHECK(__atomic_load_n(&r->stats.rejected_by[CACHE_REJECT_DEPTH],
			      __ATOMIC_RELAXED) == 1);
	cache_reflector_stop(r);
	CHECK(__atomic_load_n(&r->stats.lists, __ATOMIC_RELAXED) == 1);
	CHECK(http_stub_count(s) == 2); /* the list and the one watch */
	pods_free(&p);
	buf_free(&watch);
}

/* How long cache_reflector_stop takes once the stub holds the n-th
 * request open (the request silent: no byte comes), or -1. */
static double stop_time(struct http_stub_route *routes, int nroutes, int n)
{
	struct pods p;
	struct cache_resource *r = pods_new(&p, routes, nroutes, 0, 16);
	double took = -1;
	if (r && cache_reflector_start(r) == 0 && wait_requests(&p.s, n)) {
		/* past libcurl's first timers: in the steady silence */
		struct timespec ts = { 0, 300 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		double t0 = now_s();
		cache_reflector_stop(r);
		took = now_s() - t0;
	}
	cache_reflector_stop(r);
	pods_free(&p);
	return took;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * A stop ends a silent transfer at once: the stop pipe is in the poll
 * set, so it does not wait for libcurl's once-a-second progress tick
 * (the stop used to take up to a second: about 0.9 s here, 0.3 s into
 * the silence). The median of a few tries is bounded,
 * so one try slowed by load does not fail it.
 */
static void test_prompt_stop(const char *what, struct http_stub_route *routes,
			     int nroutes, int n)
{
	enum {
		TRIES = 5
	};
	double t[TRIES];
	for (int i = 0; i < TRIES; i++)
		t[i] = stop_time(routes, nroutes, n);
	qsort(t, TRIES, sizeof(t[0]), cmp_double);
	CHECK(t[0] >= 0); /* every try reached the held request */
	CHECK(t[TRIES / 2] < 0.5);
	fprintf(stderr, "  stop in a silent %s: median %.1f ms, max %.1f ms\n",
		what, t[TRIES / 2] * 1e3, t[TRIES - 1] * 1e3);
}

static void test_prompt_stops(void)
{
	struct http_stub_route watch[] = {
		{ .match = "GET /api/v1/pods?limit=500 ",
		  .response = HDR "{\"metadata\":{\"resourceVersion\":\"10\"},"
				  "\"items\":[" POD("a", "5") "]}" },
		{ .match = "watch=true", .response = HDR, .hold = true },
	};
	test_prompt_stop("watch", watch, 2, 2);
	/* the first page of a LIST: its headers came, its body does not */
	struct http_stub_route list[] = {
		{ .match = "GET /api/v1/pods?limit=500 ",
		  .response = HDR,
		  .hold = true },
	};
	test_prompt_stop("LIST page", list, 1, 1);
}

static void test_relist_reason_names(void)
{
	CHECK_STR(cache_resource_relist_reason_name(REFL_RELIST_EXPIRED),
		  "expired");
	CHECK_STR(cache_resource_relist_reason_name(REFL_RELIST_BROKEN),
		  "broken");
	CHECK_STR(cache_resource_relist_reason_name(REFL_RELIST_BACKWARDS),
		  "backwards");
	CHECK_STR(cache_resource_relist_reason_name(REFL_RELIST_NREASONS), "");
	CHECK_STR(cache_resource_relist_reason_name(-1), "");
}

/* A local watcher that records the history's head each time it is
 * woken (an atomic read: no call back into the history's lock). */
static struct cache_history *batch_h;
static int batch_wakes;
static uint64_t batch_head_at_wake;
static void batch_wake(struct cache_waiter *w)
{
	batch_wakes++;
	batch_head_at_wake = cache_history_head(batch_h);
}

/* Three events that one read brings are one chunk: the store and the
 * history take all three, then each local watcher is woken once, and
 * finds all three; it is not woken at the first with two to follow (a
 * wake per event cost each watcher a resume per event). */
static void test_one_wake_per_read(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?watch=true&resourceVersion=10&",
		  .response = HDR EV("ADDED", "c", "11") EV("ADDED", "d", "12")
			  EV("ADDED", "e", "13") },
	};
	struct pods p;
	struct cache_resource *r = pods_new(&p, routes, 1, 50, 100);
	CHECK(r != NULL);
	if (!r)
		return;
	/* the state a LIST at RV 10 leaves, then one watch, on this thread */
	struct cache_txn t;
	cache_store_txn_begin_empty(r->store, &t);
	CHECK(cache_store_txn_commit(&t, 10) == 0);
	cache_history_reset(r->history, 10);
	r->rv = 10;
	batch_h = r->history;
	uint64_t head0 = cache_history_head(r->history);
	struct cache_waiter w = { .wake = batch_wake };
	CHECK(cache_history_wait(r->history, &w, head0, NULL));
	char err[256];
	struct cache_xfer_conn conn;
	CHECK(cache_xfer_conn_open(&conn, r, err, sizeof(err)) == 0);
	struct cache_watcher_end end = { 0 };
	CHECK(cache_watcher_watch(r, &conn, &end) == REFL_OK);
	cache_xfer_conn_close(&conn);
	CHECK(has(r, "c", 11) && has(r, "d", 12) && has(r, "e", 13));
	CHECK(cache_history_head(r->history) == head0 + 3);
	CHECK(batch_wakes == 1);
	CHECK(batch_head_at_wake == head0 + 3);
	cache_history_unwait(r->history, &w);
	pods_free(&p);
}

int main(void)
{
	test_one_wake_per_read();
	test_list_then_watch();
	test_deep_events();
	test_relist_reason_names();
	test_prompt_stops();
	return check_done("reflector");
}
