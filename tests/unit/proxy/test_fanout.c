/*
 * test_fanout: the fan-out workers over socketpairs. Several producer
 * threads "append" and wake connections while three workers write; every
 * connection's reader must get its whole sequence, once and in order, in
 * well-formed chunks: a slow reader (its socket full, the rest kept and
 * sent when it reads), a reader that hangs up (its connection let go),
 * and the stop (every connection still in the pool handed back). Run
 * under SANITIZE=thread too. (Watches over HTTP: tests/e2e/
 * test_watch_fanout.py.)
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

int main(void)
{
	test_many_writers_three_workers();
	return check_done("fanout");
}
