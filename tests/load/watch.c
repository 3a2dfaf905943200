/*
 * loadgen watch: many watch streams on a few epoll threads.
 *
 * Each thread owns a set of non-blocking sockets, decodes HTTP/1.1
 * chunked framing by hand, splits the stream on '\n' and looks at each
 * event line only as far as it must: type, metadata.name, namespace and
 * resourceVersion (the apiserver writes metadata first, in Go struct
 * order), and the loadgen.stamp annotation. A complete line inside the
 * receive buffer is scanned in place; only a line cut by a read boundary
 * is copied. That keeps a thread well ahead of 1000 streams.
 *
 * A stream that ends is reopened from the last resourceVersion seen, as
 * an informer does; a 410 ERROR event ends the watcher (expired).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "loadgen.h"

#define SCRATCH (256 * 1024)
#define MAX_RETRIES 50

enum {
	ST_HEAD,
	ST_SIZE,
	ST_DATA,
	ST_CRLF,
	ST_RAW
};

struct del_rec {
	uint64_t rv, recv_ns;
	int tgt;
};

struct wthread {
	struct lg_run *r;
	pthread_t tid;
	int epfd;
	struct lg_watcher **ws;
	int n;
	struct lg_hist hist;
	uint64_t deliveries;
	struct lg_hist *thist; /* per target */
	uint64_t *tdeliveries;
	struct lg_seen *tlast; /* per target, with several */
	uint64_t errors;
	struct del_rec *dels;
	size_t ndel, capdel;
	char *scratch;
	uint64_t *retry_at; /* per watcher, mono ns; 0: none */
	int *retries;
};

static struct wthread *threads;
static int nthreads_;

static int open_stream(struct lg_run *r, struct wthread *t,
		       struct lg_watcher *w)
{
	char req[1024];
	const struct lg_addr *a = &r->targets[w->tgt];
	int fd = lg_tcp_connect(a);
	if (fd < 0)
		return fd;
	int n = snprintf(req, sizeof(req),
			 "GET %s&resourceVersion=%llu HTTP/1.1\r\nHost: %s\r\n"
			 "User-Agent: loadgen\r\nAccept: application/json\r\n"
			 "\r\n",
			 w->path, (unsigned long long)w->last_rv, a->hostport);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		close(fd);
		return -EIO;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	w->fd = fd;
	w->state = ST_HEAD;
	w->hdr.len = 0;
	w->line.len = 0;
	w->chunk_left = 0;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		w->fd = -1;
		return -errno;
	}
	return 0;
}

static void close_stream(struct wthread *t, struct lg_watcher *w,
			 uint64_t retry_ns)
{
	if (w->fd >= 0) {
		epoll_ctl(t->epfd, EPOLL_CTL_DEL, w->fd, NULL);
		close(w->fd);
	}
	w->fd = -1;
	__atomic_store_n(&w->connected, false, __ATOMIC_RELEASE);
	if (w->done)
		return;
	for (int k = 0; k < t->n; k++) {
		if (t->ws[k] != w)
			continue;
		if (++t->retries[k] > MAX_RETRIES) {
			w->done = true;
			t->errors++;
		} else {
			t->retry_at[k] = lg_mono_ns() + retry_ns;
		}
	}
}

static void mark(struct lg_watcher *w, uint64_t rv)
{
	uint64_t i = rv - w->start_rv - 1;
	if (i >= (1ull << 30))
		return;
	if (i >= w->nbits) {
		size_t nb = w->nbits ? w->nbits : 4096;
		while (nb <= i)
			nb *= 2;
		uint64_t *b = realloc(w->bits, nb / 8);
		if (!b)
			return;
		memset((char *)b + w->nbits / 8, 0, (nb - w->nbits) / 8);
		w->bits = b;
		w->nbits = nb;
	}
	w->bits[i / 64] |= 1ull << (i % 64);
}

static bool marked(const struct lg_watcher *w, uint64_t rv)
{
	uint64_t i = rv - w->start_rv - 1;
	return i < w->nbits && (w->bits[i / 64] >> (i % 64) & 1);
}

static uint64_t parse_u64(const char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		v = v * 10 + (uint64_t)(p[i] - '0');
	return v;
}

static int event_type(const char *p, size_t n)
{
	if (n == 5 && !memcmp(p, "ADDED", 5))
		return EV_ADDED;
	if (n == 8 && !memcmp(p, "MODIFIED", 8))
		return EV_MODIFIED;
	if (n == 7 && !memcmp(p, "DELETED", 7))
		return EV_DELETED;
	if (n == 8 && !memcmp(p, "BOOKMARK", 8))
		return 4;
	if (n == 5 && !memcmp(p, "ERROR", 5))
		return 5;
	return 0;
}

/* One event line (without its '\n'). */
static void on_event(struct wthread *t, struct lg_watcher *w, const char *p,
		     size_t n, uint64_t now)
{
	const char *end = p + n;
	size_t tl, nl = 0, nsl = 0, rvl;
	const char *tp = n > 9 && !memcmp(p, "{\"type\":\"", 9) ?
				 lg_str_after(p, p + 40 < end ? p + 40 : end,
					      "{\"type\":\"", &tl) :
				 NULL;
	int type = tp ? event_type(tp, tl) : 0;
	if (!type) {
		t->errors++;
		return;
	}
	if (type == 5) {
		if (lg_find(p, end, "\"code\":410")) {
			w->expired = true;
			w->done = true;
		} else {
			t->errors++;
		}
		return;
	}
	const char *md = lg_find(p, end, "\"metadata\":{");
	const char *rvk =
		md ? lg_find(md, end, "\"resourceVersion\":\"") : NULL;
	const char *rvs =
		rvk ? lg_str_after(rvk, end, "\"resourceVersion\":\"", &rvl) :
		      NULL;
	if (!rvs) {
		t->errors++;
		return;
	}
	uint64_t rv = parse_u64(rvs, rvl);
	if (type == 4) {
		w->bookmarks++;
		if (rv > w->last_rv)
			w->last_rv = rv;
		__atomic_store_n(&w->progress_rv, w->last_rv, __ATOMIC_RELEASE);
		return;
	}
	if (t->r->o.self_test_drop &&
	    ++w->seen == (uint64_t)t->r->o.self_test_drop)
		return; /* self-test: pretend this event never arrived */
	const char *name = lg_str_after(md, rvk, "\"name\":\"", &nl);
	const char *ns = lg_str_after(md, rvk, "\"namespace\":\"", &nsl);
	uint64_t key = lg_hash(ns ? ns : "", nsl, 0xcbf29ce484222325ULL);
	key = lg_hash("/", 1, key);
	key = lg_hash(name ? name : "", nl, key);

	w->received++;
	t->deliveries++;
	t->tdeliveries[w->tgt]++;
	w->last_recv_ns = now;
	if (rv <= w->start_rv) {
		w->unexpected++;
	} else if (marked(w, rv)) {
		w->dup++;
	} else {
		if (rv <= w->last_rv)
			w->ooo++;
		else
			w->last_rv = rv;
		mark(w, rv);
		w->sum += lg_ev_hash(rv, type, key);
		if (t->tlast &&
		    lg_seen_add(&t->tlast[w->tgt], t->r->rv_base, rv, now))
			t->errors++;
	}
	__atomic_store_n(&w->progress_rv, w->last_rv, __ATOMIC_RELEASE);

	if (type == EV_DELETED) {
		/* the object is the last state; its stamp is older than the
		 * delete: resolve against the write log after the run */
		if (t->ndel == t->capdel) {
			size_t c = t->capdel ? t->capdel * 2 : 1024;
			struct del_rec *d = realloc(t->dels, c * sizeof(*d));
			if (!d)
				return;
			t->dels = d;
			t->capdel = c;
		}
		t->dels[t->ndel++] = (struct del_rec){ rv, now, w->tgt };
		return;
	}
	size_t sl;
	const char *st = lg_str_after(rvk, end, "\"loadgen.stamp\":\"", &sl);
	if (st) {
		uint64_t stamp = parse_u64(st, sl);
		uint64_t us = now > stamp ? (now - stamp) / 1000 : 0;
		lg_hist_add(&t->hist, us);
		lg_hist_add(&t->thist[w->tgt], us);
	}
}

static void on_line_bytes(struct wthread *t, struct lg_watcher *w,
			  const char *p, size_t n, uint64_t now)
{
	long dup = t->r->o.self_test_dup;
	while (n) {
		const char *nl = memchr(p, '\n', n);
		if (!nl) {
			lg_buf_add(&w->line, p, n);
			return;
		}
		size_t k = (size_t)(nl - p);
		const char *lp = p;
		size_t ll = k;
		if (w->line.len) {
			lg_buf_add(&w->line, p, k);
			lp = w->line.p;
			ll = w->line.len;
		}
		if (ll) {
			on_event(t, w, lp, ll, now);
			if (dup && w->received == (uint64_t)dup &&
			    !w->self_dup_done) {
				w->self_dup_done = true;
				on_event(t, w, lp, ll, now);
			}
		}
		w->line.len = 0;
		p = nl + 1;
		n -= k + 1;
	}
}

/* Parse a complete response head in w->hdr; 0 when streaming begins. */
static int on_head(struct wthread *t, struct lg_watcher *w)
{
	int status = 0;
	sscanf(w->hdr.p, "HTTP/1.%*d %d", &status);
	if (status != 200) {
		if (!t->r->o.quiet)
			fprintf(stderr, "loadgen: watcher %d: HTTP %d\n", w->id,
				status);
		t->errors++;
		return -EPROTO;
	}
	w->chunked =
		strcasestr(w->hdr.p, "\r\ntransfer-encoding: chunked") != NULL;
	w->state = w->chunked ? ST_SIZE : ST_RAW;
	w->hdr.len = 0;
	__atomic_store_n(&w->connected, true, __ATOMIC_RELEASE);
	return 0;
}

/* Feed raw socket bytes through HTTP and chunk framing. */
static int on_bytes(struct wthread *t, struct lg_watcher *w, const char *p,
		    size_t n, uint64_t now)
{
	while (n) {
		switch (w->state) {
		case ST_HEAD: {
			size_t old = w->hdr.len;
			lg_buf_add(&w->hdr, p, n);
			char *e = memmem(w->hdr.p, w->hdr.len, "\r\n\r\n", 4);
			if (!e)
				return 0;
			size_t used = (size_t)(e + 4 - w->hdr.p) - old;
			e[2] = '\0';
			if (on_head(t, w))
				return -EPROTO;
			p += used;
			n -= used;
			break;
		}
		case ST_SIZE: {
			const char *nl = memchr(p, '\n', n);
			if (!nl) {
				lg_buf_add(&w->hdr, p, n);
				return 0;
			}
			lg_buf_add(&w->hdr, p, (size_t)(nl - p));
			n -= (size_t)(nl + 1 - p);
			p = nl + 1;
			w->chunk_left = strtoull(w->hdr.p, NULL, 16);
			w->hdr.len = 0;
			if (w->chunk_left == 0)
				return -ECONNRESET; /* end of stream */
			w->state = ST_DATA;
			break;
		}
		case ST_DATA: {
			size_t k =
				n < w->chunk_left ? n : (size_t)w->chunk_left;
			on_line_bytes(t, w, p, k, now);
			p += k;
			n -= k;
			w->chunk_left -= k;
			if (!w->chunk_left) {
				w->state = ST_CRLF;
				w->chunk_left = 2;
			}
			break;
		}
		case ST_CRLF: {
			size_t k =
				n < w->chunk_left ? n : (size_t)w->chunk_left;
			p += k;
			n -= k;
			w->chunk_left -= k;
			if (!w->chunk_left)
				w->state = ST_SIZE;
			break;
		}
		case ST_RAW:
			on_line_bytes(t, w, p, n, now);
			return 0;
		}
		if (w->done)
			return -ECONNRESET;
	}
	return 0;
}

static void *thread_main(void *arg)
{
	struct wthread *t = arg;
	struct lg_run *r = t->r;
	struct epoll_event evs[256];

	while (!__atomic_load_n(&r->stop_all, __ATOMIC_ACQUIRE)) {
		int k = epoll_wait(t->epfd, evs, 256, 50);
		uint64_t now = lg_now_ns();
		for (int i = 0; i < k; i++) {
			struct lg_watcher *w = evs[i].data.ptr;
			ssize_t got = recv(w->fd, t->scratch, SCRATCH, 0);
			if (got < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (got <= 0 ||
			    on_bytes(t, w, t->scratch, (size_t)got, now))
				close_stream(t, w, w->done ? 0 : 1000000);
		}
		/* reopen ended streams from where they were */
		uint64_t mono = lg_mono_ns();
		for (int j = 0; j < t->n; j++) {
			struct lg_watcher *w = t->ws[j];
			if (w->fd >= 0 || w->done || !t->retry_at[j] ||
			    t->retry_at[j] > mono)
				continue;
			t->retry_at[j] = 0;
			w->reconnects++;
			if (open_stream(r, t, w))
				close_stream(t, w, 200000000);
		}
	}
	for (int j = 0; j < t->n; j++) {
		struct lg_watcher *w = t->ws[j];
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
	}
	return NULL;
}

int lg_watch_start(struct lg_run *r, pthread_t *tids, int nthreads)
{
	(void)tids;
	int m = r->o.watchers;
	threads = calloc((size_t)nthreads, sizeof(*threads));
	if (!threads)
		return -ENOMEM;
	nthreads_ = nthreads;
	for (int i = 0; i < nthreads; i++) {
		struct wthread *t = &threads[i];
		t->r = r;
		t->epfd = epoll_create1(EPOLL_CLOEXEC);
		t->ws = calloc((size_t)m / (size_t)nthreads + 1,
			       sizeof(*t->ws));
		t->retry_at = calloc((size_t)m / (size_t)nthreads + 1,
				     sizeof(uint64_t));
		t->retries =
			calloc((size_t)m / (size_t)nthreads + 1, sizeof(int));
		t->scratch = malloc(SCRATCH);
		t->thist = calloc((size_t)r->o.ntargets, sizeof(*t->thist));
		t->tdeliveries =
			calloc((size_t)r->o.ntargets, sizeof(uint64_t));
		t->tlast = calloc((size_t)r->o.ntargets, sizeof(*t->tlast));
		if (t->epfd < 0 || !t->ws || !t->retry_at || !t->retries ||
		    !t->scratch || !t->thist || !t->tdeliveries || !t->tlast)
			return -ENOMEM;
	}
	for (int i = 0; i < m; i++) {
		struct wthread *t = &threads[i % nthreads];
		struct lg_watcher *w = &r->w[i];
		t->ws[t->n++] = w;
		int rc = open_stream(r, t, w);
		if (rc) {
			fprintf(stderr, "loadgen: watcher %d: connect: %s\n", i,
				strerror(-rc));
			return rc;
		}
	}
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i].tid, NULL, thread_main,
				   &threads[i]))
			return -EAGAIN;
	return 0;
}

static int cmp_del(const void *a, const void *b)
{
	const struct lg_write *x = a, *y = b;
	return x->rv < y->rv ? -1 : x->rv > y->rv;
}

int lg_watch_join(struct lg_run *r, pthread_t *tids, int nthreads)
{
	(void)tids;
	(void)nthreads;
	/* writes sorted by RV, to resolve delete latencies */
	qsort(r->writes, r->nwrites, sizeof(*r->writes), cmp_del);
	for (int i = 0; i < nthreads_; i++) {
		struct wthread *t = &threads[i];
		pthread_join(t->tid, NULL);
		for (size_t j = 0; j < t->ndel; j++) {
			struct lg_write key = { .rv = t->dels[j].rv };
			struct lg_write *wr =
				bsearch(&key, r->writes, r->nwrites,
					sizeof(key), cmp_del);
			if (wr && t->dels[j].recv_ns > wr->sent_ns) {
				uint64_t us =
					(t->dels[j].recv_ns - wr->sent_ns) /
					1000;
				lg_hist_add(&t->hist, us);
				lg_hist_add(&t->thist[t->dels[j].tgt], us);
			}
		}
		lg_hist_merge(&r->lat, &t->hist);
		for (int k = 0; k < r->o.ntargets; k++) {
			lg_hist_merge(&r->tlat[k], &t->thist[k]);
			r->tdeliveries[k] += t->tdeliveries[k];
			for (size_t j = 0; t->tlast && j < t->tlast[k].n; j++)
				if (t->tlast[k].ns[j] &&
				    lg_seen_add(&r->tlast[k], 0, j,
						t->tlast[k].ns[j]))
					r->watch_errors++;
			if (t->tlast)
				free(t->tlast[k].ns);
		}
		r->deliveries += t->deliveries;
		r->watch_errors += t->errors;
		close(t->epfd);
		free(t->ws);
		free(t->retry_at);
		free(t->retries);
		free(t->scratch);
		free(t->dels);
		free(t->thist);
		free(t->tdeliveries);
		free(t->tlast);
	}
	free(threads);
	threads = NULL;
	return 0;
}
