/*
 * test_fanout: the fan-out workers over socketpairs. Several producer
 * threads "append" and wake connections while three workers write; every
 * connection's reader must get its whole sequence, once and in order, in
 * well-formed chunks: a slow reader (its socket full, the rest kept and
 * sent when it reads), a reader that hangs up (its connection let go),
 * and the stop (every connection still in the pool handed back). One
 * producer holds its wakes (proxy_fanout_wake_begin/end, as a reflector
 * does), one does not, one does every other round, so connections are
 * served on the producers' threads and on the workers, interleaved. The
 * waker serves what it woke itself when it is little, leaves a large
 * batch to the workers, and never waits for a busy worker nor leaves its
 * wakes unserved. Then connections that park on a real history between
 * its events, as watches do: each gets every event once and in order, a
 * hang-up while parked lets the connection go, and the history holds one
 * waiter per worker, not one per connection. Run under SANITIZE=thread
 * too. (Watches over HTTP: tests/e2e/test_watch_fanout.py.)
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/history.h"
#include "proxy/fanout.h"
#include "check.h"

#define CONNS 24
#define TOTAL 3000
#define SLOW 0 /* reads only once the producers are done */
#define GONE 1 /* hangs up half way */
#define KEEP 2 /* never completes: ended by the stop */

struct conn {
	struct proxy_fanout_conn fc;
	int id, srv, cli;
	int produced; /* atomic: what the producers appended */
	int sent;     /* worker only */
	int removed;  /* atomic: handed back */
	int ended;    /* atomic: handed back by the stop */
	struct buf got;
	/* as a history's waiter lock: no wake once handed back */
	pthread_mutex_t lock;
};

static struct conn conns[CONNS];
static int producing = 1; /* atomic */

static void hand_back(struct conn *c)
{
	pthread_mutex_lock(&c->lock);
	proxy_fanout_remove(&c->fc);
	shutdown(c->srv, SHUT_WR);
	__atomic_store_n(&c->removed, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->lock);
}

static void wake(struct conn *c)
{
	pthread_mutex_lock(&c->lock);
	if (!__atomic_load_n(&c->removed, __ATOMIC_ACQUIRE))
		proxy_fanout_wake(&c->fc);
	pthread_mutex_unlock(&c->lock);
}

static void service(struct proxy_fanout_conn *fc)
{
	struct conn *c = (struct conn *)fc;
	if (fc->ending || fc->gone) {
		if (fc->ending)
			__atomic_store_n(&c->ended, 1, __ATOMIC_RELAXED);
		hand_back(c);
		return;
	}
	if (proxy_fanout_flush(fc))
		return;
	int upto = __atomic_load_n(&c->produced, __ATOMIC_ACQUIRE);
	if (c->id == KEEP && upto > TOTAL - 10)
		upto = TOTAL - 10; /* holds back the last ones */
	struct buf *b = proxy_fanout_chunk(fc);
	for (int n = 0; c->sent < upto && n < 50; n++)
		buf_printf(b, "%d\n", c->sent++);
	proxy_fanout_chunk_send(fc);
	if (!fc->pend_len && !fc->gone && c->sent == TOTAL) {
		hand_back(c);
		return;
	}
	if (fc->gone || c->sent < upto)
		proxy_fanout_wake(fc); /* more now */
}

static void *producer(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg;
	for (int round = 0, below = 1; below; round++) {
		/* 1 holds its wakes every round, 3 every other one, 2 never */
		bool hold = seed == 1 || (seed == 3 && round % 2);
		if (hold)
			proxy_fanout_wake_begin();
		below = 0;
		for (int i = 0; i < CONNS; i++) {
			int k = 1 + (int)(rand_r(&seed) % 3);
			int was = __atomic_load_n(&conns[i].produced,
						  __ATOMIC_RELAXED);
			int now = was + k > TOTAL ? TOTAL : was + k;
			below |= now < TOTAL;
			/* several producers: take the larger */
			while (was < now &&
			       !__atomic_compare_exchange_n(
				       &conns[i].produced, &was, now, false,
				       __ATOMIC_RELEASE, __ATOMIC_RELAXED))
				;
			wake(&conns[i]);
		}
		if (hold)
			proxy_fanout_wake_end();
		if (round % 50 == 0) {
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/* Reads every client socket but SLOW's (until producing ends) until EOF;
 * GONE hangs up after its first bytes. */
static void *reader(void *arg)
{
	(void)arg;
	int open = CONNS;
	bool eof[CONNS] = { false };
	char tmp[65536];
	while (open) {
		struct pollfd pf[CONNS];
		int map[CONNS], n = 0;
		bool slow_reads =
			!__atomic_load_n(&producing, __ATOMIC_ACQUIRE);
		for (int i = 0; i < CONNS; i++)
			if (!eof[i] && (i != SLOW || slow_reads)) {
				pf[n] = (struct pollfd){ conns[i].cli, POLLIN,
							 0 };
				map[n++] = i;
			}
		if (poll(pf, (nfds_t)n, 50) < 0)
			break;
		for (int j = 0; j < n; j++) {
			if (!pf[j].revents)
				continue;
			struct conn *c = &conns[map[j]];
			ssize_t r = read(c->cli, tmp, sizeof(tmp));
			if (r > 0)
				buf_add(&c->got, tmp, (size_t)r);
			if (r > 0 && c->id == GONE && c->got.len > 100) {
				shutdown(c->cli, SHUT_RDWR);
				r = 0;
			}
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				eof[map[j]] = true;
				open--;
			}
		}
		if (!__atomic_load_n(&producing, __ATOMIC_ACQUIRE) && n == 0)
			break;
	}
	return NULL;
}

/* The chunked bytes of c: well formed, and the numbers 0.. in order;
 * returns how many. */
static int numbers(struct conn *c, bool *ok)
{
	const char *p = c->got.p ? c->got.p : "", *end = p + c->got.len;
	int want = 0;
	*ok = true;
	while (p < end) {
		char *e;
		unsigned long size = strtoul(p, &e, 16);
		if (e == p || e + 2 > end || e[0] != '\r' || e[1] != '\n' ||
		    size == 0) {
			*ok = p == end;
			break;
		}
		const char *d = e + 2;
		if (d + size + 2 > end) { /* the last chunk, cut by a hang-up */
			*ok = c->id == GONE;
			break;
		}
		for (const char *q = d; q < d + size;) {
			int v = (int)strtol(q, &e, 10);
			if (*e != '\n' || v != want) {
				*ok = false;
				return want;
			}
			want++;
			q = e + 1;
		}
		if (d[size] != '\r' || d[size + 1] != '\n') {
			*ok = false;
			break;
		}
		p = d + size + 2;
	}
	return want;
}

static void test_many_writers_three_workers(void)
{
	struct proxy_fanout *fo = proxy_fanout_new(3, 0);
	CHECK(fo != NULL);
	if (!fo)
		return;
	for (int i = 0; i < CONNS; i++) {
		int sv[2];
		CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
		int small = 4096;
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
		conns[i] = (struct conn){
			.id = i, .srv = sv[0], .cli = sv[1], .got = BUF_INIT
		};
		conns[i].fc.service = service;
		pthread_mutex_init(&conns[i].lock, NULL);
		CHECK(proxy_fanout_add(fo, &conns[i].fc, sv[0], NULL) == 0);
	}
	CHECK(proxy_fanout_count(fo) == CONNS);
	pthread_t prod[3], rd;
	pthread_create(&rd, NULL, reader, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&prod[i], NULL, producer,
			       (void *)(size_t)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(prod[i], NULL);
	for (int i = 0; i < CONNS; i++) /* the last append's wake */
		wake(&conns[i]);
	/* all but KEEP finish on their own, SLOW once it is read */
	__atomic_store_n(&producing, 0, __ATOMIC_RELEASE);
	for (int t = 0; t < 2000; t++) {
		int left = 0;
		for (int i = 0; i < CONNS; i++)
			left += i != KEEP && !__atomic_load_n(&conns[i].removed,
							      __ATOMIC_ACQUIRE);
		if (!left)
			break;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	CHECK(proxy_fanout_count(fo) == 1); /* KEEP */
	proxy_fanout_stop(fo);		    /* hands KEEP back */
	CHECK(__atomic_load_n(&conns[KEEP].ended, __ATOMIC_RELAXED));
	CHECK(proxy_fanout_count(fo) == 0);
	pthread_join(rd, NULL);
	for (int i = 0; i < CONNS; i++) {
		bool ok;
		int n = numbers(&conns[i], &ok);
		if (!ok || (i != GONE && i != KEEP && n != TOTAL) ||
		    (i == KEEP && n != TOTAL - 10))
			fprintf(stderr, "conn %d: %d numbers, %s\n", i, n,
				ok ? "well formed" : "malformed");
		CHECK(ok);
		if (i == GONE)
			CHECK(n < TOTAL);
		else
			CHECK(n == (i == KEEP ? TOTAL - 10 : TOTAL));
		close(conns[i].srv);
		close(conns[i].cli);
		buf_free(&conns[i].got);
		pthread_mutex_destroy(&conns[i].lock);
	}
	/* a stopped pool takes no more */
	struct proxy_fanout_conn late = { .service = service };
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(proxy_fanout_add(fo, &late, sv[0], NULL) == -ESHUTDOWN);
	close(sv[0]);
	close(sv[1]);
	proxy_fanout_free(fo);
}

/* ---- parked on a history ---- */

#define PCONNS 40
#define PWORKERS 2
#define PTOTAL 2000
#define PGONE 7 /* hangs up while parked, before any event */

struct pconn {
	struct proxy_fanout_conn fc;
	int id, srv, cli;
	uint64_t cursor; /* worker only */
	int removed;	 /* atomic */
	int bad;	 /* atomic: an event lost, or parking failed */
	struct buf got;
};

static struct pconn pconns[PCONNS];
static struct cache_history *ph;

static struct cache_obj *mk(unsigned rv)
{
	char js[160];
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
		 "\"resourceVersion\":\"%u\"}}",
		 rv);
	return cache_obj_parse(cache_kind_lookup("pods"), js, strlen(js), false,
			       NULL, 0);
}

static void phand_back(struct pconn *c)
{
	proxy_fanout_remove(&c->fc);
	shutdown(c->srv, SHUT_WR);
	__atomic_store_n(&c->removed, 1, __ATOMIC_RELEASE);
}

/* As a watch's: the events after the cursor as "RV\n" lines, then park. */
static void pservice(struct proxy_fanout_conn *fc)
{
	struct pconn *c = (struct pconn *)fc;
	if (fc->ending || fc->gone) {
		phand_back(c);
		return;
	}
	if (proxy_fanout_flush(fc))
		return;
	struct buf *b = proxy_fanout_chunk(fc);
	int n = 0;
	for (; n < 50; n++) {
		struct cache_event *ev;
		int rc = cache_history_get(ph, c->cursor, &ev);
		if (rc == -ERANGE)
			__atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
		if (rc)
			break;
		buf_printf(b, "%llu\n", (unsigned long long)ev->rv);
		cache_history_event_put(ev);
		c->cursor++;
	}
	proxy_fanout_chunk_send(fc);
	if (fc->gone || (!fc->pend_len && c->cursor == PTOTAL)) {
		phand_back(c);
		return;
	}
	if (fc->pend_len)
		return; /* serviced again once the socket has room */
	if (n == 50)
		proxy_fanout_wake(fc);
	else if (proxy_fanout_park(fc, ph, c->cursor))
		__atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
}

/* The one writer: batches of 1-4 events, one wake each. */
static void *pwriter(void *arg)
{
	unsigned seed = 7;
	for (unsigned rv = 1; rv <= PTOTAL;) {
		unsigned k = 1 + rand_r(&seed) % 4;
		for (; k && rv <= PTOTAL; k--, rv++) {
			struct cache_obj *o = mk(rv);
			if (cache_history_add(ph, CACHE_MODIFIED, rv, o, NULL))
				abort();
			cache_obj_put(o);
		}
		cache_history_wake_all(ph);
		if (rv % 64 < 4) {
			struct timespec ts = { 0, 500000 };
			nanosleep(&ts, NULL);
		}
	}
	return arg;
}

static void *preader(void *arg)
{
	int open = PCONNS;
	bool eof[PCONNS] = { false };
	char tmp[65536];
	while (open) {
		struct pollfd pf[PCONNS];
		int map[PCONNS], n = 0;
		for (int i = 0; i < PCONNS; i++)
			if (!eof[i]) {
				pf[n] = (struct pollfd){ pconns[i].cli, POLLIN,
							 0 };
				map[n++] = i;
			}
		if (poll(pf, (nfds_t)n, 50) < 0)
			break;
		for (int j = 0; j < n; j++) {
			if (!pf[j].revents)
				continue;
			struct pconn *c = &pconns[map[j]];
			ssize_t r = read(c->cli, tmp, sizeof(tmp));
			if (r > 0)
				buf_add(&c->got, tmp, (size_t)r);
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				eof[map[j]] = true;
				open--;
			}
		}
	}
	return arg;
}

static size_t waiters_settled(void)
{
	size_t n = 0;
	for (int t = 0; t < 300; t++) { /* 3 s */
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
		n = cache_history_waiters(ph);
		if (n == PWORKERS)
			break;
	}
	return n;
}

static void test_parked_on_a_history(void)
{
	ph = cache_history_new(PTOTAL + 10, 0);
	struct proxy_fanout *fo = proxy_fanout_new(PWORKERS, 0);
	CHECK(fo != NULL && ph != NULL);
	if (!fo || !ph)
		return;
	for (int i = 0; i < PCONNS; i++) {
		int sv[2];
		CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
		int small = 4096;
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
		pconns[i] = (struct pconn){
			.id = i, .srv = sv[0], .cli = sv[1], .got = BUF_INIT
		};
		pconns[i].fc.service = pservice;
		CHECK(proxy_fanout_add(fo, &pconns[i].fc, sv[0], NULL) == 0);
	}
	/* every connection parked, nothing to send: the history holds one
	 * waiter per worker, not one per connection */
	CHECK(waiters_settled() == PWORKERS);
	/* a client that hangs up while parked is let go */
	shutdown(pconns[PGONE].cli, SHUT_RDWR);
	for (int t = 0; t < 300 && !__atomic_load_n(&pconns[PGONE].removed,
						    __ATOMIC_ACQUIRE);
	     t++) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	CHECK(__atomic_load_n(&pconns[PGONE].removed, __ATOMIC_ACQUIRE));
	CHECK(proxy_fanout_count(fo) == PCONNS - 1);

	pthread_t wr, rd;
	pthread_create(&rd, NULL, preader, NULL);
	pthread_create(&wr, NULL, pwriter, NULL);
	pthread_join(wr, NULL);
	for (int t = 0; t < 1000; t++) { /* 10 s */
		int left = 0;
		for (int i = 0; i < PCONNS; i++)
			left += !__atomic_load_n(&pconns[i].removed,
						 __ATOMIC_ACQUIRE);
		if (!left)
			break;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	CHECK(proxy_fanout_count(fo) == 0);
	pthread_join(rd, NULL);
	for (int i = 0; i < PCONNS; i++) {
		struct pconn *c = &pconns[i];
		CHECK(!__atomic_load_n(&c->bad, __ATOMIC_RELAXED));
		/* the chunks' data: 1..PTOTAL, one a line, in order */
		const char *p = c->got.p ? c->got.p : "", *end = p + c->got.len;
		unsigned want = 1;
		bool ok = true;
		while (ok && p < end) {
			char *e;
			unsigned long size = strtoul(p, &e, 16);
			ok = e != p && e + 2 <= end && e[0] == '\r' &&
			     e[1] == '\n';
			const char *d = e + 2, *q = d;
			ok = ok && d + size + 2 <= end;
			while (ok && q < d + size) {
				unsigned long v = strtoul(q, &e, 10);
				ok = *e == '\n' && v == want;
				want++;
				q = e + 1;
			}
			p = d + size + 2;
		}
		unsigned expect = i == PGONE ? 1 : PTOTAL + 1;
		if (!ok || want != expect)
			fprintf(stderr, "parked conn %d: up to %u, %s\n", i,
				want - 1, ok ? "well formed" : "malformed");
		CHECK(ok && want == expect);
		close(c->srv);
		close(c->cli);
		buf_free(&c->got);
	}
	proxy_fanout_stop(fo);
	proxy_fanout_free(fo);
	rcu_barrier();
	cache_history_free(ph);
	rcu_barrier();
}

/* ---- who serves a held wake ---- */

#define MANY 130 /* more than a waker serves itself */

struct who {
	struct proxy_fanout_conn fc;
	int srv, cli;
	pthread_t by;	/* the thread of the last service */
	int served;	/* atomic */
	int block;	/* atomic: the service waits while set */
	int in_service; /* atomic */
	int done;	/* atomic: handed back */
};

static void who_service(struct proxy_fanout_conn *fc)
{
	struct who *w = (struct who *)fc;
	if (fc->ending) {
		proxy_fanout_remove(fc);
		__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&w->in_service, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&w->block, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	w->by = pthread_self();
	struct buf *b = proxy_fanout_chunk(fc);
	buf_adds(b, "x\n");
	proxy_fanout_chunk_send(fc);
	__atomic_add_fetch(&w->served, 1, __ATOMIC_RELEASE);
}

static bool wait_served(struct who *w, int n)
{
	for (int t = 0; t < 1000; t++) {
		if (__atomic_load_n(&w->served, __ATOMIC_ACQUIRE) >= n)
			return true;
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

static void who_open(struct proxy_fanout *fo, struct who *w)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	*w = (struct who){ .srv = sv[0], .cli = sv[1] };
	w->fc.service = who_service;
	CHECK(proxy_fanout_add(fo, &w->fc, sv[0], NULL) == 0);
	CHECK(wait_served(w, 1)); /* the add's own service */
}

static void who_close(struct who *w)
{
	CHECK(__atomic_load_n(&w->done, __ATOMIC_ACQUIRE));
	close(w->srv);
	close(w->cli);
}

/* A few held wakes are served on the waking thread, at its end, once
 * each however often woken; without a hold, on a worker. */
static void test_waker_serves_few(void)
{
	struct proxy_fanout *fo = proxy_fanout_new(2, 0);
	CHECK(fo != NULL);
	if (!fo)
		return;
	struct who w[4];
	for (int i = 0; i < 4; i++)
		who_open(fo, &w[i]);
	proxy_fanout_wake_begin();
	proxy_fanout_wake_begin(); /* nested: the outer end serves */
	for (int i = 0; i < 4; i++) {
		proxy_fanout_wake(&w[i].fc);
		proxy_fanout_wake(&w[i].fc);
	}
	proxy_fanout_wake_end();
	for (int i = 0; i < 4; i++)
		CHECK(__atomic_load_n(&w[i].served, __ATOMIC_ACQUIRE) == 1);
	proxy_fanout_wake_end();
	for (int i = 0; i < 4; i++) {
		CHECK(__atomic_load_n(&w[i].served, __ATOMIC_ACQUIRE) == 2);
		CHECK(pthread_equal(w[i].by, pthread_self()));
	}
	proxy_fanout_wake(&w[0].fc); /* not held: the worker's */
	CHECK(wait_served(&w[0], 3));
	CHECK(!pthread_equal(w[0].by, pthread_self()));
	proxy_fanout_stop(fo);
	for (int i = 0; i < 4; i++)
		who_close(&w[i]);
	proxy_fanout_free(fo);
}

/* More than the waker serves: every one goes to the worker. */
static void test_waker_leaves_many(void)
{
	struct proxy_fanout *fo = proxy_fanout_new(1, 0);
	CHECK(fo != NULL);
	if (!fo)
		return;
	static struct who w[MANY];
	for (int i = 0; i < MANY; i++)
		who_open(fo, &w[i]);
	proxy_fanout_wake_begin();
	for (int i = 0; i < MANY; i++)
		proxy_fanout_wake(&w[i].fc);
	proxy_fanout_wake_end();
	for (int i = 0; i < MANY; i++) {
		CHECK(wait_served(&w[i], 2));
		CHECK(!pthread_equal(w[i].by, pthread_self()));
	}
	proxy_fanout_stop(fo);
	for (int i = 0; i < MANY; i++)
		who_close(&w[i]);
	proxy_fanout_free(fo);
}

/* A worker busy serving: the waker does not wait for it, and what it
 * woke is served once the worker is free (no wake lost). */
static void test_waker_skips_busy_worker(void)
{
	struct proxy_fanout *fo = proxy_fanout_new(1, 0);
	CHECK(fo != NULL);
	if (!fo)
		return;
	struct who a, b;
	who_open(fo, &a);
	who_open(fo, &b);
	__atomic_store_n(&a.in_service, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&a.block, 1, __ATOMIC_RELEASE);
	proxy_fanout_wake(&a.fc); /* the worker serves a, and waits */
	for (int t = 0;
	     t < 1000 && !__atomic_load_n(&a.in_service, __ATOMIC_ACQUIRE);
	     t++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	CHECK(__atomic_load_n(&a.in_service, __ATOMIC_ACQUIRE));
	proxy_fanout_wake_begin();
	proxy_fanout_wake(&b.fc);
	proxy_fanout_wake_end(); /* returns at once: the worker is busy */
	CHECK(__atomic_load_n(&b.served, __ATOMIC_ACQUIRE) == 1);
	__atomic_store_n(&a.block, 0, __ATOMIC_RELEASE);
	CHECK(wait_served(&a, 2));
	CHECK(wait_served(&b, 2));
	CHECK(!pthread_equal(b.by, pthread_self()));
	proxy_fanout_stop(fo);
	who_close(&a);
	who_close(&b);
	proxy_fanout_free(fo);
}

int main(void)
{
	test_waker_serves_few();
	test_waker_leaves_many();
	test_waker_skips_busy_worker();
	test_many_writers_three_workers();
	test_parked_on_a_history();
	return check_done("fanout");
}
