/*
 * fresh_stub: what the freshness unit tests share (test_fresh.c,
 * test_fresh_behind.c): resources whose in-memory store the test moves
 * as a reflector would (resource, selected, put_pod, progress, busy); a
 * minimal libmicrohttpd daemon on 127.0.0.1:0 whose handler asks
 * proxy_fresh_await() and answers "cache RV" or "upstream" (call,
 * call_run); the test's ticker, which calls proxy_fresh_tick() on
 * tick_f; a quiet resource with an upstream of its own (quiet_start,
 * quiet_stop) and its reads; and fresh_stub_start/fresh_stub_stop, which
 * bring the daemon and the ticker up and down and free every resource.
 * The upstream is tests/unit/http_stub.h.
 *
 * Threads: the daemon answers on its own thread, the ticker runs on
 * another; call() blocks its caller, call_run() suits pthread_create.
 * tick_f and tick_stop are atomic. One test binary includes this once.
 */
#ifndef TESTS_FRESH_STUB_H
#define TESTS_FRESH_STUB_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <urcu-bp.h>

#include <microhttpd.h>

#include "mhd_stub.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/resource.h"
#include "cache/rvclock.h"
#include "cache/scope.h"
#include "cache/store.h"
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

static inline void set_rv(struct cache_resource *r, uint64_t rv)
{
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	CHECK(cache_store_txn_commit(&t, rv) == 0);
	CHECK(cache_store_rv(r->store) == rv);
}

static inline struct cache_resource *resource(const char *kind, uint64_t rv)
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
static inline struct cache_resource *selected(const char *kind, uint64_t rv)
{
	struct cache_resource *r = resource(kind, rv);
	CHECK(cache_scope_init(&r->scope, NULL, "app=x", NULL, NULL, 0) == 0);
	return r;
}

/* Put pod ns/name at rv into r's store and move the store to store_rv. */
static inline void put_pod(struct cache_resource *r, const char *ns,
			   const char *name, uint64_t rv, uint64_t store_rv)
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
static inline void progress(struct cache_resource *r, uint64_t rv)
{
	set_rv(r, rv);
	__atomic_store_n(&r->last_change_ms, cache_rvclock_now_ms(),
			 __ATOMIC_RELAXED);
	void *ctx = __atomic_load_n(&r->on_progress_ctx, __ATOMIC_ACQUIRE);
	if (ctx)
		r->on_progress(ctx, r);
}

static inline void busy(struct cache_resource *r)
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


/* ?rv=N (resourceVersion=N), ?any=1 (resourceVersion=0), ?watch=1 */
static inline enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
					 const char *url, const char *method,
					 const char *version,
					 const char *upload,
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
			return mhd_stub_reply(c, 200, "upstream");
		return res; /* suspended, or the 504 queued */
	}
	char body[64];
	snprintf(body, sizeof(body), "cache %llu",
		 (unsigned long long)cache_store_rv(rq->r->store));
	return mhd_stub_reply(c, 200, body);
}

static inline void on_completed(void *cls, struct MHD_Connection *c,
				void **state,
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

static inline struct MHD_Daemon *daemon_start(void)
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
static inline void *call_run(void *arg)
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

static inline struct call call(struct proxy_fresh *f, struct cache_resource *r,
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

static inline void *ticker(void *arg)
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
	/* when set: wait, instead of after_ms, until the stub has seen more
	 * than seen requests (the read's probe is out), so the watch's
	 * progress lands inside the read's wait however loaded the machine */
	struct http_stub *s;
	int seen;
};

static inline void *later_run(void *arg)
{
	struct later *l = arg;
	if (l->s) {
		for (int i = 0; i < 20000 && http_stub_count(l->s) <= l->seen;
		     i++)
			usleep(100);
	} else {
		usleep((useconds_t)l->after_ms * 1000);
	}
	progress(l->r, l->rv);
	return NULL;
}

static inline uint64_t counter(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* A quiet resource with an upstream and a fresh state of its own       */

struct quiet {
	struct http_stub s;
	struct proxy_fresh *f;
	struct cache_resource *r;
	char server[64]; /* the upstream keeps a pointer to it */
};

/* q's upstream answering routes, and its fresh state over r. */
static inline void quiet_start_with(struct quiet *q,
				    struct http_stub_route *routes, int nroutes,
				    struct cache_resource *r)
{
	CHECK(http_stub_start(&q->s, routes, nroutes) == 0);
	snprintf(q->server, sizeof(q->server), "http://127.0.0.1:%d",
		 q->s.port);
	struct cache_upstream upc = { .server = q->server };
	q->r = r;
	q->f = proxy_fresh_new(&upc, &q->r, 1);
	CHECK(q->f != NULL);
}

/* The same over a selected pods resource at RV 40. */
static inline void quiet_start(struct quiet *q, struct http_stub_route *routes,
			       int nroutes)
{
	quiet_start_with(q, routes, nroutes, selected("pods", 40));
}

static inline void quiet_stop(struct quiet *q)
{
	proxy_fresh_stop(q->f);
	proxy_fresh_free(q->f);
	http_stub_stop(&q->s);
}

/* An RV-less read: its answer, and whether it probed. */
static inline bool read_probed(struct quiet *q, const char *query,
			       const char *want)
{
	int probes = http_stub_count(&q->s);
	struct call k = call(q->f, q->r, query);
	CHECK(k.code == 200);
	CHECK_STR(k.body, want);
	return http_stub_count(&q->s) > probes;
}

/* An RV-less read sent upstream without a probe of its own (a probe it
 * asked for in the background may reach the stub meanwhile). */
static inline bool read_unprobed(struct quiet *q)
{
	uint64_t un = counter(&proxy_metrics_counters.reads_upstream_unprobed);
	struct call k = call(q->f, q->r, "");
	CHECK(k.code == 200);
	CHECK_STR(k.body, "upstream");
	return counter(&proxy_metrics_counters.reads_upstream_unprobed) ==
	       un + 1;
}

static inline bool probes_reach(struct http_stub *s, int n)
{
	for (int i = 0; i < 300 && http_stub_count(s) < n; i++)
		usleep(10000);
	return http_stub_count(s) >= n;
}

/* The stub answers one connection at a time: a client that connects and
 * says nothing holds it, so the probes queue behind it. */
static inline int stub_hold(struct http_stub *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)s->port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)));
	usleep(100000); /* the stub is reading it */
	return fd;
}

/* ------------------------------------------------------------------ */
/* The binary's setup and teardown                                      */

static struct MHD_Daemon *fresh_daemon;
static pthread_t fresh_ticker;

/* Start the daemon and the ticker: false (and a failed check) when the
 * daemon cannot start. */
static inline bool fresh_stub_start(void)
{
	fresh_daemon = daemon_start();
	CHECK(fresh_daemon != NULL && port > 0);
	if (!fresh_daemon)
		return false;
	CHECK(pthread_create(&fresh_ticker, NULL, ticker, NULL) == 0);
	return true;
}

/* Stop the ticker and the daemon, then free every resource. */
static inline void fresh_stub_stop(void)
{
	__atomic_store_n(&tick_stop, true, __ATOMIC_RELEASE);
	pthread_join(fresh_ticker, NULL);
	MHD_stop_daemon(fresh_daemon);
	rcu_barrier();
	for (int i = 0; i < nall; i++) {
		cache_store_free(all[i]->store);
		cache_scope_free(&all[i]->scope);
		free(all[i]);
	}
}

#endif
