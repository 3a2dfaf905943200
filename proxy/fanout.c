/*
 * fanout: the worker threads that write idle watch streams.
 *
 * Each worker has an epoll set of its connections' sockets (hang-ups,
 * and room to write for one with bytes left over), an eventfd, and a
 * ready list: proxy_fanout_wake() puts a connection on it and signals
 * the eventfd when the list was empty, so the writer of an event wakes
 * each worker once, not each connection. The worker takes connections
 * off the list one at a time and calls their service, which writes a
 * batch of lines as one chunk. Once a second it drops a connection
 * whose socket has taken nothing for the stall timeout.
 *
 * A connection with nothing to send parks in its worker's lot for the
 * history it waits on: a list only the worker touches. The lot is the
 * history's waiter for all of them; the history's wake marks it woken
 * and signals the worker, which moves the whole list onto its ready list
 * under one lock. With 10,000 watches on 2 workers an event took 10,000
 * wakes through the worker's lock (by the writer, under the history's
 * waiter lock) and 20,000 turns of the history's lock (an unwait and a
 * wait per delivery, on both workers); now it takes 2 wakes, and a
 * parked connection takes the history's lock only when its lot is not
 * armed already (the first to park after a wake).
 *
 * A thread that wakes connections between proxy_fanout_wake_begin() and
 * proxy_fanout_wake_end() (a reflector waking its history's watchers)
 * signals no worker at each wake: at the end it serves the woken
 * connections itself when they are few (INLINE_MAX) and their worker is
 * not serving at that moment, and signals the worker for the rest. An
 * event then costs one thread's wakeup per level of a tree of proxies,
 * where handing each batch to a worker cost the waker's lock convoy on
 * the waiter lock and a second thread's wakeup (docs/PERFORMANCE.md,
 * B13). A worker's serve lock makes sure one thread at a time serves its
 * connections.
 *
 * A connection's leftover bytes are malloc'd only while they wait and
 * freed once sent: an idle watch keeps no buffer here, and the scratch
 * buffer a batch is built in is the worker's, one per thread.
 */
#include "proxy/fanout.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"

/* Room for a chunk's size line in front of its data: 16 hex digits and
 * CRLF. */
#define HEAD_ROOM 18
/* A scratch buffer grown past this by a big line is given back after. */
#define SCRATCH_KEEP (256 * 1024)
#define EVENTS 64
#define SCAN_MS 1000
/* By default at most this many connections are served on a waking
 * thread per proxy_fanout_wake_end(); a worker with more ready is
 * signalled instead, so a large fan-out keeps every worker's core and
 * the waker (a reflector) goes back to reading soon. */
#define INLINE_MAX 128
/* The workers one thread's wakes are held for; more are signalled at
 * once. */
#define DEFER_MAX 16

/* One worker's connections waiting on one history. */
struct lot {
	struct cache_waiter waiter; /* first: the history wakes it */
	struct proxy_fanout_worker *wk;
	struct cache_history *h;
	struct proxy_fanout_conn *head, *tail; /* parked; under serve */
	/* queued in the history, or about to be: set by the worker before
	 * it queues the waiter, cleared by the wake (atomic) */
	bool armed;
	bool woken; /* wk->lock */
	long n;	    /* parked: changed under serve, read by a wake (atomic) */
	struct lot *next; /* the worker's lots; under serve */
};

struct proxy_fanout_worker {
	struct proxy_fanout *fo;
	pthread_t thread;
	bool started;
	int ep, efd;
	pthread_mutex_t lock; /* guards the ready list, signalled */
	/* held while a thread serves this worker's connections (the
	 * worker's own pass or a waker's, see proxy_fanout_wake_end()):
	 * services, the all list, the scratch buffer; taken before lock */
	pthread_mutex_t serve;
	struct proxy_fanout_conn *rhead, *rtail;
	size_t nready;	   /* on the ready list, under lock */
	bool signalled;	   /* the eventfd has been written since last read */
	bool stop;	   /* under lock */
	bool lots_woken;   /* some lot's woken is set; under lock */
	long woken_parked; /* about how many those lots hold; under lock */
	struct proxy_fanout_conn *all; /* under serve */
	long n;			       /* connections, atomic */
	struct buf scratch;
	struct lot *lots; /* under serve; freed with the pool */
};

struct proxy_fanout {
	unsigned n;
	unsigned inline_max;
	int64_t stall_ms;
	struct proxy_fanout_worker *w;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Under wk->lock. */
static void ready_unlink(struct proxy_fanout_worker *wk,
			 struct proxy_fanout_conn *fc)
{
	if (fc->rprev)
		fc->rprev->rnext = fc->rnext;
	else
		wk->rhead = fc->rnext;
	if (fc->rnext)
		fc->rnext->rprev = fc->rprev;
	else
		wk->rtail = fc->rprev;
	fc->rprev = fc->rnext = NULL;
	fc->queued = false;
	wk->nready--;
}

/* Under wk->lock: returns true when the eventfd must be written (it
 * has not been since the worker last read it). */
static bool claim_signal(struct proxy_fanout_worker *wk)
{
	if (wk->signalled)
		return false;
	wk->signalled = true;
	return true;
}

/* Under wk->lock: fc on the ready list, once. */
static void enqueue(struct proxy_fanout_worker *wk,
		    struct proxy_fanout_conn *fc)
{
	if (fc->queued)
		return;
	fc->queued = true;
	fc->rnext = NULL;
	fc->rprev = wk->rtail;
	if (wk->rtail)
		wk->rtail->rnext = fc;
	else
		wk->rhead = fc;
	wk->rtail = fc;
	wk->nready++;
}

static void signal_worker(struct proxy_fanout_worker *wk)
{
	uint64_t one = 1;
	ssize_t r = write(wk->efd, &one, sizeof(one));
	(void)r; /* an eventfd write fails only on overflow */
}

/* This thread's wakes held between proxy_fanout_wake_begin() and
 * proxy_fanout_wake_end(): the workers to serve or signal at the end. */
static __thread struct {
	int depth;
	unsigned n;
	struct proxy_fanout_worker *w[DEFER_MAX];
} held;

/* Remember wk for proxy_fanout_wake_end(); false when this thread holds
 * no wakes now, or holds too many workers already. */
static bool hold(struct proxy_fanout_worker *wk)
{
	if (!held.depth)
		return false;
	for (unsigned i = 0; i < held.n; i++)
		if (held.w[i] == wk)
			return true;
	if (held.n == DEFER_MAX)
		return false;
	held.w[held.n++] = wk;
	return true;
}

void proxy_fanout_wake(struct proxy_fanout_conn *fc)
{
	struct proxy_fanout_worker *wk = fc->wk;
	pthread_mutex_lock(&wk->lock);
	enqueue(wk, fc);
	bool signal = !hold(wk) && claim_signal(wk);
	pthread_mutex_unlock(&wk->lock);
	if (signal)
		signal_worker(wk);
}

/* Write the eventfd unless it has been and the worker has not read it
 * yet, when anything is ready. */
static void signal_if_ready(struct proxy_fanout_worker *wk)
{
	pthread_mutex_lock(&wk->lock);
	bool signal = (wk->rhead || wk->lots_woken) && claim_signal(wk);
	pthread_mutex_unlock(&wk->lock);
	if (signal)
		signal_worker(wk);
}

/* Under wk->lock: l's connections are for its worker to make ready,
 * counted once for proxy_fanout_wake_end(). */
static void lot_woken(struct proxy_fanout_worker *wk, struct lot *l)
{
	if (!l->woken)
		wk->woken_parked += __atomic_load_n(&l->n, __ATOMIC_RELAXED);
	l->woken = true;
	wk->lots_woken = true;
}

/* A history's wake (its waiter lock held): the lot's connections are
 * made ready by its worker, or by the waker (proxy_fanout_wake_end()). */
static void lot_wake(struct cache_waiter *w)
{
	struct lot *l = (struct lot *)w;
	struct proxy_fanout_worker *wk = l->wk;
	__atomic_store_n(&l->armed, false, __ATOMIC_RELEASE);
	pthread_mutex_lock(&wk->lock);
	lot_woken(wk, l);
	bool signal = !hold(wk) && claim_signal(wk);
	pthread_mutex_unlock(&wk->lock);
	if (signal)
		signal_worker(wk);
}

/* Under serve. */
static void unpark(struct proxy_fanout_conn *fc)
{
	struct lot *l = fc->lot;
	if (!l)
		return;
	if (fc->pprev)
		fc->pprev->pnext = fc->pnext;
	else
		l->head = fc->pnext;
	if (fc->pnext)
		fc->pnext->pprev = fc->pprev;
	else
		l->tail = fc->pprev;
	fc->pprev = fc->pnext = NULL;
	fc->lot = NULL;
	__atomic_store_n(&l->n, l->n - 1, __ATOMIC_RELAXED);
}

int proxy_fanout_park(struct proxy_fanout_conn *fc, struct cache_history *h,
		      uint64_t seq)
{
	struct proxy_fanout_worker *wk = fc->wk;
	struct lot *l = wk->lots;
	while (l && l->h != h)
		l = l->next;
	if (!l) {
		l = xcalloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
		l->waiter.wake = lot_wake;
		l->wk = wk;
		l->h = h;
		l->next = wk->lots;
		wk->lots = l;
	}
	unpark(fc);
	fc->lot = l;
	fc->pprev = l->tail;
	fc->pnext = NULL;
	if (l->tail)
		l->tail->pnext = fc;
	else
		l->head = fc;
	l->tail = fc;
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELAXED);
	/* Armed: a wake is due after any append from now on (or is on its
	 * way), and its worker, this thread, serves the lot after this. */
	if (__atomic_load_n(&l->armed, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_store_n(&l->armed, true, __ATOMIC_RELEASE);
	if (!cache_history_wait(h, &l->waiter, seq, NULL)) {
		/* the event is there already: serve the lot now */
		__atomic_store_n(&l->armed, false, __ATOMIC_RELEASE);
		pthread_mutex_lock(&wk->lock);
		lot_woken(wk, l);
		pthread_mutex_unlock(&wk->lock);
	}
	return 0;
}

/* Under serve and wk->lock: every woken lot's connections join the
 * ready list. */
static void lots_ready(struct proxy_fanout_worker *wk)
{
	wk->lots_woken = false;
	wk->woken_parked = 0;
	for (struct lot *l = wk->lots; l; l = l->next) {
		if (!l->woken)
			continue;
		l->woken = false;
		while (l->head) {
			struct proxy_fanout_conn *fc = l->head;
			unpark(fc);
			enqueue(wk, fc);
		}
	}
}

/* Under serve: fc joins the worker's list of all it serves. */
static void link_all(struct proxy_fanout_worker *wk,
		     struct proxy_fanout_conn *fc)
{
	if (fc->linked)
		return;
	fc->linked = true;
	fc->aprev = NULL;
	fc->anext = wk->all;
	if (wk->all)
		wk->all->aprev = fc;
	wk->all = fc;
}

static void arm(struct proxy_fanout_conn *fc, uint32_t events)
{
	if (fc->armed == events)
		return;
	struct epoll_event ev = { .events = events, .data.ptr = fc };
	if (epoll_ctl(fc->wk->ep, EPOLL_CTL_MOD, fc->fd, &ev) == 0)
		fc->armed = events;
}

#define IDLE_EVENTS (EPOLLRDHUP | EPOLLET)

bool proxy_fanout_remove(struct proxy_fanout_conn *fc)
{
	struct proxy_fanout_worker *wk = fc->wk;
	epoll_ctl(wk->ep, EPOLL_CTL_DEL, fc->fd, NULL);
	pthread_mutex_lock(&wk->lock);
	if (fc->queued)
		ready_unlink(wk, fc);
	pthread_mutex_unlock(&wk->lock);
	unpark(fc);
	if (fc->linked) {
		if (fc->aprev)
			fc->aprev->anext = fc->anext;
		else
			wk->all = fc->anext;
		if (fc->anext)
			fc->anext->aprev = fc->aprev;
		fc->aprev = fc->anext = NULL;
		fc->linked = false;
	}
	__atomic_sub_fetch(&wk->n, 1, __ATOMIC_RELAXED);
	bool whole = !fc->pend_len;
	free(fc->pend);
	fc->pend = NULL;
	fc->pend_len = 0;
	fc->wk = NULL;
	return whole;
}

/* Write n bytes; returns how many went, or -1 when the socket failed.
 * A TLS record the session has begun must be finished first
 * (gnutls_record_send() called again with the same length). */
static ssize_t put(struct proxy_fanout_conn *fc, const char *p, size_t n)
{
	if (!fc->tls) {
		ssize_t r = send(fc->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r >= 0)
			return r;
		return errno == EAGAIN || errno == EWOULDBLOCK ||
				       errno == EINTR ?
			       0 :
			       -1;
	}
	size_t k = fc->tls_again ? fc->tls_again : n;
	ssize_t r = gnutls_record_send((gnutls_session_t)fc->tls, p, k);
	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
		fc->tls_again = k;
		return 0;
	}
	fc->tls_again = 0;
	return r < 0 ? -1 : r;
}

/* Send p..n, keeping what the socket does not take. */
static void send_all(struct proxy_fanout_conn *fc, const char *p, size_t n,
		     bool from_pend)
{
	size_t off = 0;
	while (off < n) {
		ssize_t r = put(fc, p + off, n - off);
		if (r < 0) {
			fc->gone = true;
			return;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	if (from_pend) {
		if (off == n) {
			free(fc->pend);
			fc->pend = NULL;
			fc->pend_len = 0;
			fc->stalled_ms = 0;
		} else if (off) {
			memmove(fc->pend, fc->pend + off, n - off);
			fc->pend_len = n - off;
			fc->stalled_ms = now_ms();
		}
	} else if (off < n) {
		fc->pend = xmalloc(n - off);
		if (!fc->pend) {
			fc->gone = true;
			return;
		}
		memcpy(fc->pend, p + off, n - off);
		fc->pend_len = n - off;
		fc->stalled_ms = now_ms();
	}
	arm(fc, fc->pend_len ? IDLE_EVENTS | EPOLLOUT : IDLE_EVENTS);
}

bool proxy_fanout_flush(struct proxy_fanout_conn *fc)
{
	if (fc->pend_len && !fc->gone)
		send_all(fc, fc->pend, fc->pend_len, true);
	return fc->pend_len && !fc->gone;
}

struct buf *proxy_fanout_chunk(struct proxy_fanout_conn *fc)
{
	struct buf *b = &fc->wk->scratch;
	if (b->cap > SCRATCH_KEEP)
		buf_free(b);
	buf_reset(b);
	buf_add(b, "                  ", HEAD_ROOM);
	return b;
}

void proxy_fanout_chunk_send(struct proxy_fanout_conn *fc)
{
	struct buf *b = &fc->wk->scratch;
	if (!buf_ok(b) || b->len < HEAD_ROOM) {
		fc->gone = true; /* out of memory: end the stream */
		return;
	}
	size_t data = b->len - HEAD_ROOM;
	if (!data)
		return;
	buf_adds(b, "\r\n");
	if (!buf_ok(b)) {
		fc->gone = true;
		return;
	}
	/* the size in hex and CRLF, written backwards in front of the data
	 * (no snprintf: this runs once per delivery) */
	char *start = b->p + HEAD_ROOM;
	*--start = '\n';
	*--start = '\r';
	for (size_t v = data; v || start == b->p + HEAD_ROOM - 2; v >>= 4)
		*--start = "0123456789abcdef"[v & 15];
	send_all(fc, start, (size_t)(b->p + b->len - start), false);
}

/* Drop the connections whose socket has taken nothing for the stall
 * timeout: their service sees gone. */
static void scan(struct proxy_fanout_worker *wk, int64_t now)
{
	int64_t stall = wk->fo->stall_ms;
	if (!stall)
		return;
	for (struct proxy_fanout_conn *fc = wk->all; fc; fc = fc->anext)
		if (fc->pend_len && now - fc->stalled_ms >= stall) {
			fc->gone = true;
			proxy_fanout_wake(fc);
		}
}

/* Under serve: serve what is ready now, at most max connections; what
 * a service wakes again goes to the back and waits for the next pass. */
static void serve_pass(struct proxy_fanout_worker *wk, size_t max)
{
	struct proxy_fanout_conn *last;
	pthread_mutex_lock(&wk->lock);
	last = wk->rtail;
	pthread_mutex_unlock(&wk->lock);
	for (size_t i = 0; last && i < max; i++) {
		pthread_mutex_lock(&wk->lock);
		struct proxy_fanout_conn *fc = wk->rhead;
		if (fc)
			ready_unlink(wk, fc);
		pthread_mutex_unlock(&wk->lock);
		if (!fc)
			break;
		link_all(wk, fc);
		unpark(fc);
		fc->service(fc);
		if (fc == last)
			break;
	}
}

void proxy_fanout_wake_begin(void)
{
	held.depth++;
}

void proxy_fanout_wake_end(void)
{
	if (!held.depth || --held.depth)
		return;
	/* the workers with more ready than the budget first: they start
	 * on their cores while this thread serves the small ones */
	size_t budget = held.n ? held.w[0]->fo->inline_max : 0;
	bool inline_wk[DEFER_MAX];
	for (unsigned i = 0; i < held.n; i++) {
		struct proxy_fanout_worker *wk = held.w[i];
		pthread_mutex_lock(&wk->lock);
		/* the connections of woken lots, as their wakes counted
		 * them: a large share goes to the worker at once, before
		 * this thread makes any lot ready */
		size_t n = wk->nready + (size_t)wk->woken_parked;
		inline_wk[i] = n && n <= budget && !wk->stop;
		pthread_mutex_unlock(&wk->lock);
		if (!inline_wk[i])
			signal_if_ready(wk);
	}
	for (unsigned i = 0; i < held.n; i++) {
		struct proxy_fanout_worker *wk = held.w[i];
		if (!inline_wk[i])
			continue;
		/* a worker serving now would find the list on its next pass,
		 * if it has not begun it: signal it then */
		if (!pthread_mutex_trylock(&wk->serve)) {
			pthread_mutex_lock(&wk->lock);
			if (wk->lots_woken && !wk->stop)
				lots_ready(wk);
			size_t n = wk->nready;
			bool serve = n <= budget && !wk->stop;
			if (serve)
				budget -= n;
			pthread_mutex_unlock(&wk->lock);
			if (serve)
				serve_pass(wk, n);
			pthread_mutex_unlock(&wk->serve);
		}
		signal_if_ready(wk); /* left, or woken again meanwhile */
	}
	held.n = 0;
}

static void *worker(void *arg)
{
	struct proxy_fanout_worker *wk = arg;
	struct epoll_event evs[EVENTS];
	int64_t last_scan = now_ms();
	for (;;) {
		/* Wait on the epoll set without taking its events, and take
		 * them under serve: a waker's pass may remove a connection
		 * (and its owner free it) meanwhile, and an event taken
		 * before that would point at it. */
		struct pollfd pf = { .fd = wk->ep, .events = POLLIN };
		poll(&pf, 1, SCAN_MS);
		pthread_mutex_lock(&wk->serve);
		int n = epoll_wait(wk->ep, evs, EVENTS, 0);
		for (int i = 0; i < n; i++) {
			struct proxy_fanout_conn *fc = evs[i].data.ptr;
			if (!fc) {
				uint64_t v;
				ssize_t r = read(wk->efd, &v, sizeof(v));
				(void)r;
				continue;
			}
			if (evs[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
				fc->gone = true;
			/* served below, in this pass */
			pthread_mutex_lock(&wk->lock);
			enqueue(wk, fc);
			pthread_mutex_unlock(&wk->lock);
		}
		pthread_mutex_lock(&wk->lock);
		bool stop = wk->stop;
		if (wk->lots_woken && !stop)
			lots_ready(wk);
		wk->signalled = false; /* after lots_ready()'s enqueues */
		pthread_mutex_unlock(&wk->lock);
		if (stop) {
			/* everything queued joins the list, then each ends */
			pthread_mutex_lock(&wk->lock);
			while (wk->rhead) {
				struct proxy_fanout_conn *fc = wk->rhead;
				ready_unlink(wk, fc);
				link_all(wk, fc);
			}
			pthread_mutex_unlock(&wk->lock);
			while (wk->all) {
				wk->all->ending = true;
				wk->all->service(wk->all);
			}
			/* no wake reaches this worker after these */
			for (struct lot *l = wk->lots; l; l = l->next)
				cache_history_unwait(l->h, &l->waiter);
			pthread_mutex_unlock(&wk->serve);
			return NULL;
		}
		serve_pass(wk, SIZE_MAX);
		int64_t now = now_ms();
		bool scanned = now - last_scan >= SCAN_MS;
		if (scanned) {
			last_scan = now;
			scan(wk, now);
		}
		pthread_mutex_unlock(&wk->serve);
		pthread_mutex_lock(&wk->lock);
		bool more = wk->rhead || wk->lots_woken;
		if (more && !wk->signalled) {
			wk->signalled = true;
			signal_worker(wk);
		}
		pthread_mutex_unlock(&wk->lock);
		if (scanned)
			alloc_anchor(); /* left-over bytes are freed here */
	}
}

struct proxy_fanout *proxy_fanout_new(unsigned n, unsigned stall_s)
{
	if (!n)
		n = 1;
	struct proxy_fanout *fo = xcalloc(1, sizeof(*fo));
	if (!fo)
		return NULL;
	fo->w = xcalloc(n, sizeof(*fo->w));
	if (!fo->w) {
		free(fo);
		return NULL;
	}
	fo->stall_ms = (int64_t)stall_s * 1000;
	fo->inline_max = INLINE_MAX;
	for (unsigned i = 0; i < n; i++) {
		struct proxy_fanout_worker *wk = &fo->w[i];
		wk->fo = fo;
		wk->scratch = (struct buf)BUF_INIT;
		wk->ep = epoll_create1(EPOLL_CLOEXEC);
		wk->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		pthread_mutex_init(&wk->lock, NULL);
		pthread_mutex_init(&wk->serve, NULL);
		fo->n = i + 1;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
		if (wk->ep < 0 || wk->efd < 0 ||
		    epoll_ctl(wk->ep, EPOLL_CTL_ADD, wk->efd, &ev) ||
		    pthread_create(&wk->thread, NULL, worker, wk)) {
			proxy_fanout_stop(fo);
			proxy_fanout_free(fo);
			return NULL;
		}
		wk->started = true;
	}
	return fo;
}

void proxy_fanout_set_inline_max(struct proxy_fanout *fo, unsigned n)
{
	fo->inline_max = n;
}

void proxy_fanout_stop(struct proxy_fanout *fo)
{
	if (!fo)
		return;
	for (unsigned i = 0; i < fo->n; i++) {
		struct proxy_fanout_worker *wk = &fo->w[i];
		if (!wk->started)
			continue;
		pthread_mutex_lock(&wk->lock);
		wk->stop = true;
		pthread_mutex_unlock(&wk->lock);
		signal_worker(wk);
	}
	for (unsigned i = 0; i < fo->n; i++) {
		struct proxy_fanout_worker *wk = &fo->w[i];
		if (wk->started)
			pthread_join(wk->thread, NULL);
		wk->started = false;
	}
}

void proxy_fanout_free(struct proxy_fanout *fo)
{
	if (!fo)
		return;
	for (unsigned i = 0; i < fo->n; i++) {
		struct proxy_fanout_worker *wk = &fo->w[i];
		if (wk->ep >= 0)
			close(wk->ep);
		if (wk->efd >= 0)
			close(wk->efd);
		pthread_mutex_destroy(&wk->lock);
		pthread_mutex_destroy(&wk->serve);
		buf_free(&wk->scratch);
		while (wk->lots) {
			struct lot *l = wk->lots;
			wk->lots = l->next;
			free(l);
		}
	}
	free(fo->w);
	free(fo);
}

int proxy_fanout_add(struct proxy_fanout *fo, struct proxy_fanout_conn *fc,
		     int fd, void *tls)
{
	struct proxy_fanout_worker *wk = &fo->w[0];
	for (unsigned i = 1; i < fo->n; i++)
		if (__atomic_load_n(&fo->w[i].n, __ATOMIC_RELAXED) <
		    __atomic_load_n(&wk->n, __ATOMIC_RELAXED))
			wk = &fo->w[i];
	fc->wk = wk;
	fc->fd = fd;
	fc->tls = tls;
	fc->gone = fc->ending = fc->queued = false;
	fc->pend = NULL;
	fc->pend_len = fc->tls_again = 0;
	fc->stalled_ms = 0;
	fc->rprev = fc->rnext = fc->aprev = NULL;
	fc->lot = NULL;
	fc->pprev = fc->pnext = NULL;
	fc->armed = IDLE_EVENTS;
	struct epoll_event ev = { .events = IDLE_EVENTS, .data.ptr = fc };
	if (epoll_ctl(wk->ep, EPOLL_CTL_ADD, fd, &ev)) {
		int e = errno;
		fc->wk = NULL;
		return -e;
	}
	/* the all list is the worker's: it links fc in when first served */
	fc->anext = NULL;
	fc->linked = false;
	pthread_mutex_lock(&wk->lock);
	bool stopped = wk->stop, signal = false;
	if (!stopped) {
		enqueue(wk, fc);
		signal = claim_signal(wk);
		__atomic_add_fetch(&wk->n, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&wk->lock);
	if (stopped) {
		epoll_ctl(wk->ep, EPOLL_CTL_DEL, fd, NULL);
		fc->wk = NULL;
		return -ESHUTDOWN;
	}
	if (signal)
		signal_worker(wk);
	return 0;
}

long proxy_fanout_count(const struct proxy_fanout *fo)
{
	long n = 0;
	if (fo)
		for (unsigned i = 0; i < fo->n; i++)
			n += __atomic_load_n(&fo->w[i].n, __ATOMIC_RELAXED);
	return n;
}
