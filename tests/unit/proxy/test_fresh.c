/*
 * test_fresh: the freshness wait of consistent reads (proxy/fresh.c).
 *
 * Its decisions: a read whose RV the cache has reached is answered from
 * the cache at once and without a probe; an RV-less read probes the
 * upstream (limit=1 LIST) and is answered from the cache when the cache
 * is there, after a 15 ms grace when the resource is busy, else sent
 * upstream; a quiet resource a probe found behind is sent upstream
 * without a probe until its store moves, it gets busy, or the finding
 * is 2 s old (renewed by background probes while reads come, ended by a
 * failed one); an RV-less watch waits up to 250 ms and then starts from the
 * cache; a watch-list from resourceVersion=N is a read from N: from the
 * cache when it is there, else upstream (no 504 the apiserver, whose
 * cache etcd keeps current, would not give). Its waiting: connections
 * suspended and resumed by reflector progress, by a probe's answer or by
 * a deadline, also while the prober is stuck in a probe to a silent
 * upstream. Its faults: a 500, an answer without resourceVersion, a
 * refused connection and a silent upstream all serve the cache as it is
 * (counted); stopping resumes every waiter; allocation failure in
 * proxy_fresh_new(). For a resource known behind, the probes that prove
 * the cache instead of forwarding: a GET of the object an RV-less GET
 * asks for, a LIST of a small collection compared with the store; and
 * how many probes many concurrent reads cost (at most the one in flight
 * and the next).
 *
 * The upstream is tests/unit/http_stub.h; each resource is an in-memory
 * store whose RV the test moves as a reflector would. Requests reach
 * proxy_fresh_await() through a minimal libmicrohttpd daemon on
 * 127.0.0.1:0 whose handler answers "cache RV" or "upstream".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include <microhttpd.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/resource.h"
#include "cache/rvclock.h"
#include "cache/scope.h"
#include "cache/store.h"
#include "config/alloc.h"
#include "proxy/fresh.h"
#include "proxy/metrics.h"
#include "http_stub.h"
#include "check.h"

#define JSON_200(body)                                          \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\n\r\n" body
#define RV_100                                      \
	JSON_200("{\"kind\":\"List\",\"metadata\":" \
		 "{\"resourceVersion\":\"100\"},\"items\":[]}")

/* ------------------------------------------------------------------ */
/* Resources: a store whose RV the test moves                           */

#define NRES 32
static struct cache_resource *all[NRES];
static int nall;

static void set_rv(struct cache_resource *r, uint64_t rv)
{
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	CHECK(cache_store_txn_commit(&t, rv) == 0);
	CHECK(cache_store_rv(r->store) == rv);
}

static struct cache_resource *resource(const char *kind, uint64_t rv)
{
	struct cache_resource *r = calloc(1, sizeof(*r));
	r->kind = cache_kind_lookup(kind);
	r->store = cache_store_new();
	set_rv(r, rv);
	all[nall++] = r;
	return r;
}

/* A resource whose scope has a label selector: no list probe compares
 * what it caches with a whole collection, so a read known behind goes
 * upstream unprobed. */
static struct cache_resource *selected(const char *kind, uint64_t rv)
{
	struct cache_resource *r = resource(kind, rv);
	CHECK(cache_scope_init(&r->scope, NULL, "app=x", NULL, NULL, 0) == 0);
	return r;
}

/* Put pod ns/name at rv into r's store and move the store to store_rv. */
static void put_pod(struct cache_resource *r, const char *ns, const char *name,
		    uint64_t rv, uint64_t store_rv)
{
	char js[256];
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
		 "\"resourceVersion\":\"%llu\"}}",
		 name, ns, (unsigned long long)rv);
	struct cache_obj *o =
		cache_obj_parse(r->kind, js, strlen(js), false, NULL, 0);
	CHECK(o != NULL);
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	CHECK(cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_commit(&t, store_rv) == 0);
}

/* What a reflector does after it applies an event. */
static void progress(struct cache_resource *r, uint64_t rv)
{
	set_rv(r, rv);
	__atomic_store_n(&r->last_change_ms, cache_rvclock_now_ms(),
			 __ATOMIC_RELAXED);
	void *ctx = __atomic_load_n(&r->on_progress_ctx, __ATOMIC_ACQUIRE);
	if (ctx)
		r->on_progress(ctx, r);
}

static void busy(struct cache_resource *r)
{
	__atomic_store_n(&r->last_change_ms, cache_rvclock_now_ms(),
			 __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* A daemon whose handler asks proxy_fresh_await()                      */

/* Request /N goes to slot N: which fresh state and resource it asks. */
static struct {
	struct proxy_fresh *f;
	struct cache_resource *r;
} slot[64];
static int nslot;
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

struct req {
	struct proxy_fresh *f;
	struct cache_resource *r;
	struct proxy_fresh_req fr;
	char ns[64], name[64];
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code,
			     const char *body)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret = MHD_queue_response(c, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* ?rv=N (resourceVersion=N), ?any=1 (resourceVersion=0), ?watch=1 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct req *rq = *state;
	if (!rq) {
		int i = atoi(url + 1);
		rq = calloc(1, sizeof(*rq));
		pthread_mutex_lock(&slot_lock);
		if (i >= 0 && i < nslot) {
			rq->f = slot[i].f;
			rq->r = slot[i].r;
		}
		pthread_mutex_unlock(&slot_lock);
		*state = rq;
		if (!rq->f)
			return MHD_NO;
		return MHD_YES;
	}
	struct proxy_rv_req q = { 0 };
	const char *v =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "rv");
	if (v)
		q.rv = strtoull(v, NULL, 10);
	q.any = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "any") !=
		NULL;
	bool watch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						 "watch") != NULL;
	/* ?get=NS/NAME: a GET of that object (its name kept in rq) */
	const char *get =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "get");
	const char *slash = get ? strchr(get, '/') : NULL;
	/* a LIST reads the whole collection */
	rq->fr.wait.whole = !get;
	if (slash && !rq->fr.waited) {
		snprintf(rq->ns, sizeof(rq->ns), "%.*s", (int)(slash - get),
			 get);
		snprintf(rq->name, sizeof(rq->name), "%s", slash + 1);
		rq->fr.wait.ns = rq->ns;
		rq->fr.wait.name = rq->name;
	}
	enum MHD_Result res = MHD_NO;
	if (proxy_fresh_await(rq->f, c, rq->r, &q, watch, &rq->fr, &res)) {
		if (rq->fr.upstream)
			return reply(c, 200, "upstream");
		return res; /* suspended, or the 504 queued */
	}
	char body[64];
	snprintf(body, sizeof(body), "cache %llu",
		 (unsigned long long)cache_store_rv(rq->r->store));
	return reply(c, 200, body);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *state;
	if (!rq)
		return;
	if (rq->fr.waited)
		proxy_fresh_cancel(rq->f, &rq->fr.wait);
	free(rq);
	*state = NULL;
}

static int port;

static struct MHD_Daemon *daemon_start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0,
		NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&a, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, NULL, MHD_OPTION_END);
	if (!d)
		return NULL;
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = i ? i->port : 0;
	return d;
}

struct call {
	struct proxy_fresh *f;
	struct cache_resource *r;
	const char *query;
	int code;
	char body[1024];
	int64_t ms; /* how long the answer took */
};

/* One HTTP/1.0 request; fills code (-1 on a transport error), body and
 * ms, measured from before the connection is made. */
static void *call_run(void *arg)
{
	struct call *k = arg;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[512], resp[2048];
	size_t have = 0;
	ssize_t r;
	k->code = -1;
	k->body[0] = '\0';
	pthread_mutex_lock(&slot_lock);
	int i = nslot < 64 ? nslot++ : 0;
	slot[i].f = k->f;
	slot[i].r = k->r;
	pthread_mutex_unlock(&slot_lock);
	int64_t t0 = cache_rvclock_now_ms();
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int n = snprintf(req, sizeof(req), "GET /%d%s%s HTTP/1.0\r\n\r\n", i,
			 *k->query ? "?" : "", k->query);
	bool sent = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)) &&
		    write(fd, req, (size_t)n) == n;
	while (sent && have < sizeof(resp) - 1 &&
	       (r = read(fd, resp + have, sizeof(resp) - 1 - have)) > 0)
		have += (size_t)r;
	resp[have] = '\0';
	if (fd >= 0)
		close(fd);
	k->ms = cache_rvclock_now_ms() - t0;
	char *b = strstr(resp, "\r\n\r\n");
	if (sscanf(resp, "HTTP/1.%*d %d", &k->code) == 1 && b)
		snprintf(k->body, sizeof(k->body), "%s", b + 4);
	return NULL;
}

static struct call call(struct proxy_fresh *f, struct cache_resource *r,
			const char *query)
{
	struct call k = { .f = f, .r = r, .query = query };
	call_run(&k);
	return k;
}

/* The test's ticker: proxy_fresh_tick() every 100 ms, as the proxy's
 * ticker does every 500 ms. */
static struct proxy_fresh *tick_f; /* atomic */
static bool tick_stop;		   /* atomic */

static void *ticker(void *arg)
{
	while (!__atomic_load_n(&tick_stop, __ATOMIC_ACQUIRE)) {
		struct proxy_fresh *f =
			__atomic_load_n(&tick_f, __ATOMIC_ACQUIRE);
		if (f)
			proxy_fresh_tick(f);
		usleep(100000);
	}
	return NULL;
}

struct later {
	struct cache_resource *r;
	uint64_t rv;
	int after_ms;
};

static void *later_run(void *arg)
{
	struct later *l = arg;
	usleep((useconds_t)l->after_ms * 1000);
	progress(l->r, l->rv);
	return NULL;
}

static uint64_t counter(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

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
static void test_busy_catches_up(struct proxy_fresh *f,
				 struct cache_resource *r)
{
	busy(r);
	struct later l = { r, 100, 5 };
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
	struct later l = { catchup, 100, 80 };
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

/* ------------------------------------------------------------------ */
/* A resource already known to be behind goes upstream without a probe */

struct quiet {
	struct http_stub s;
	struct proxy_fresh *f;
	struct cache_resource *r;
	char server[64]; /* the upstream keeps a pointer to it */
};

static void quiet_start(struct quiet *q, struct http_stub_route *routes,
			int nroutes)
{
	CHECK(http_stub_start(&q->s, routes, nroutes) == 0);
	snprintf(q->server, sizeof(q->server), "http://127.0.0.1:%d",
		 q->s.port);
	struct cache_upstream upc = { .server = q->server };
	q->r = selected("pods", 40);
	q->f = proxy_fresh_new(&upc, &q->r, 1);
	CHECK(q->f != NULL);
}

static void quiet_stop(struct quiet *q)
{
	proxy_fresh_stop(q->f);
	proxy_fresh_free(q->f);
	http_stub_stop(&q->s);
}

/* An RV-less read: its answer, and whether it probed. */
static bool read_probed(struct quiet *q, const char *query, const char *want)
{
	int probes = http_stub_count(&q->s);
	struct call k = call(q->f, q->r, query);
	CHECK(k.code == 200);
	CHECK_STR(k.body, want);
	return http_stub_count(&q->s) > probes;
}

/* An RV-less read sent upstream without a probe of its own (a probe it
 * asked for in the background may reach the stub meanwhile). */
static bool read_unprobed(struct quiet *q)
{
	uint64_t un = counter(&proxy_metrics_counters.reads_upstream_unprobed);
	struct call k = call(q->f, q->r, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "upstream");
	return counter(&proxy_metrics_counters.reads_upstream_unprobed) ==
	       un + 1;
}

static bool probes_reach(struct http_stub *s, int n)
{
	for (int i = 0; i < 300 && http_stub_count(s) < n; i++)
		usleep(10000);
	return http_stub_count(s) >= n;
}

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
	struct quiet q;
	CHECK(http_stub_start(&q.s, routes, 5) == 0);
	snprintf(q.server, sizeof(q.server), "http://127.0.0.1:%d", q.s.port);
	struct cache_upstream upc = { .server = q.server };
	q.r = resource("pods", 1); /* no selector */
	put_pod(q.r, "ns-1", "a", 30, 30);
	put_pod(q.r, "ns-1", "b", 35, 40);
	q.f = proxy_fresh_new(&upc, &q.r, 1);
	CHECK(q.f != NULL);
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

/* The stub answers one connection at a time: a client that connects and
 * says nothing holds it, so the probes queue behind it. */
static int stub_hold(struct http_stub *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)s->port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)));
	usleep(100000); /* the stub is reading it */
	return fd;
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
	struct MHD_Daemon *d = daemon_start();
	CHECK(d != NULL && port > 0);
	if (!d)
		return check_done("fresh");
	pthread_t tick;
	CHECK(pthread_create(&tick, NULL, ticker, NULL) == 0);

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
	test_busy_catches_up(f, res[9]);
	test_watches(f, res[3], res[4], res[7], res[8]);
	test_upstream_faults(f, res[5], res[6]);

	__atomic_store_n(&tick_f, NULL, __ATOMIC_RELEASE);
	proxy_fresh_stop(f);
	for (int i = 0; i < 10; i++)
		CHECK(res[i]->on_progress_ctx == NULL);
	proxy_fresh_free(f);
	http_stub_stop(&s);

	test_known_behind();
	test_known_behind_ages();
	test_object_probe();
	test_list_probe();
	test_coalesced();
	test_object_probe_silent();
	test_refused();
	test_silent_upstream();
	test_alloc_failure();

	__atomic_store_n(&tick_stop, true, __ATOMIC_RELEASE);
	pthread_join(tick, NULL);
	MHD_stop_daemon(d);
	rcu_barrier();
	for (int i = 0; i < nall; i++) {
		cache_store_free(all[i]->store);
		cache_scope_free(&all[i]->scope);
		free(all[i]);
	}
	return check_done("fresh");
}
