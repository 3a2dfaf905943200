/*
 * fresh: consistent reads and RV waits (see fresh.h).
 *
 * One mutex guards the waiter list and the probe generations; it is
 * taken on the slow path only (a read that must wait), never by a read
 * the cache can answer at once.
 */
#include "proxy/fresh.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "config/log.h"

#define WAIT_MS 3000		/* the apiserver's wait for a future RV */
#define PROBE_WAIT_MS 10000	/* a consistent read's wait for the watch */

struct probe {				/* per resource; locked */
	uint64_t started, done;		/* generations */
	uint64_t rv;			/* the answer of generation done */
	bool failed;			/* and whether it failed */
};

struct proxy_fresh {
	const struct cache_upstream *up;
	struct cache_resource **res;
	int nres;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* wakes the prober */
	struct proxy_wait *waiters;	/* locked */
	struct probe *probes;		/* locked; one per resource */
	bool stop;			/* locked, and atomic for upstream GETs */
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int index_of(struct proxy_fresh *f, struct cache_resource *r)
{
	for (int i = 0; i < f->nres; i++)
		if (f->res[i] == r)
			return i;
	return -1;
}

/* Finish w: unlink, set the result, resume its connection. Locked. */
static void finish(struct proxy_fresh *f, struct proxy_wait *w,
		   enum fresh_result res)
{
	for (struct proxy_wait **pp = &f->waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	w->queued = false;
	w->result = res;
	MHD_resume_connection(w->conn);
}

/* Resume every waiter whose condition now holds. Locked. */
static void settle(struct proxy_fresh *f, int64_t now)
{
	for (struct proxy_wait *w = f->waiters, *next; w; w = next) {
		next = w->next;
		int i = index_of(f, w->r);
		struct probe *p = &f->probes[i];
		if (w->need_gen) {
			if (p->done < w->need_gen) {
				if (now >= w->deadline_ms)
					finish(f, w, FRESH_STALE);
				continue;
			}
			w->need_gen = 0;
			if (p->failed) {
				finish(f, w, FRESH_STALE);
				continue;
			}
			w->need_rv = p->rv;
		}
		if (cache_store_rv(w->r->store) >= w->need_rv)
			finish(f, w, FRESH_OK);
		else if (now >= w->deadline_ms)
			/* a consistent read whose watch lags is served as it
			 * is; an explicit RV the cache never reached is 504 */
			finish(f, w, w->consistent ? FRESH_STALE : FRESH_TIMEOUT);
	}
}

/* The upstream's current RV for r. */
static int probe_rv(struct proxy_fresh *f, struct cache_resource *r,
		    uint64_t *rv)
{
	char err[256];
	int rc = cache_resource_upstream_rv(f->up, r->kind, &f->stop, rv, err,
					    sizeof(err));
	if (rc)
		log_warn("%s: cannot ask the upstream for its resourceVersion (%s); "
			 "serving a consistent read from the cache as it is",
			 r->kind->resource, err);
	return rc;
}

static void *prober(void *arg)
{
	struct proxy_fresh *f = arg;
	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		int todo = -1;
		for (int i = 0; i < f->nres && todo < 0; i++)
			for (struct proxy_wait *w = f->waiters; w; w = w->next)
				if (w->r == f->res[i] && w->need_gen > f->probes[i].started) {
					todo = i;
					break;
				}
		if (todo < 0) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		struct probe *p = &f->probes[todo];
		uint64_t gen = ++p->started;
		pthread_mutex_unlock(&f->lock);
		uint64_t rv = 0;
		int rc = probe_rv(f, f->res[todo], &rv);
		pthread_mutex_lock(&f->lock);
		p->done = gen;
		p->rv = rv;
		p->failed = rc != 0;
		settle(f, now_ms());
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

struct proxy_fresh *proxy_fresh_new(const struct cache_upstream *up,
				    struct cache_resource **res, int nres)
{
	struct proxy_fresh *f = xcalloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->up = up;
	f->res = res;
	f->nres = nres;
	f->probes = xcalloc((size_t)(nres ? nres : 1), sizeof(*f->probes));
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if (!f->probes || pthread_create(&f->thread, NULL, prober, f)) {
		pthread_mutex_destroy(&f->lock);
		pthread_cond_destroy(&f->cond);
		free(f->probes);
		free(f);
		return NULL;
	}
	for (int i = 0; i < nres; i++) {
		res[i]->on_progress = proxy_fresh_progress;
		__atomic_store_n(&res[i]->on_progress_ctx, f, __ATOMIC_RELEASE);
	}
	return f;
}

void proxy_fresh_stop(struct proxy_fresh *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nres; i++)
		__atomic_store_n(&f->res[i]->on_progress_ctx, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&f->lock);
	__atomic_store_n(&f->stop, true, __ATOMIC_RELEASE);
	while (f->waiters)
		finish(f, f->waiters, FRESH_TIMEOUT);
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
}

void proxy_fresh_free(struct proxy_fresh *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f->probes);
	free(f);
}

bool proxy_fresh_wait(struct proxy_fresh *f, struct proxy_wait *w, bool probe)
{
	w->result = FRESH_WAITING;
	w->need_gen = 0;
	w->consistent = probe;
	if (!probe && cache_store_rv(w->r->store) >= w->need_rv) {
		w->result = FRESH_OK;
		return false;
	}
	int i = index_of(f, w->r);
	pthread_mutex_lock(&f->lock);
	if (f->stop || i < 0) {
		pthread_mutex_unlock(&f->lock);
		w->result = FRESH_STALE;
		return false;
	}
	if (probe) {
		/* a probe that starts after this request arrived */
		w->need_gen = f->probes[i].started + 1;
		pthread_cond_signal(&f->cond);
	}
	w->deadline_ms = now_ms() + (probe ? PROBE_WAIT_MS : WAIT_MS);
	w->queued = true;
	w->next = f->waiters;
	f->waiters = w;
	MHD_suspend_connection(w->conn);
	pthread_mutex_unlock(&f->lock);
	return true;
}

void proxy_fresh_progress(void *ctx, struct cache_resource *r)
{
	struct proxy_fresh *f = ctx;
	pthread_mutex_lock(&f->lock);
	if (f->waiters)
		settle(f, now_ms());
	pthread_mutex_unlock(&f->lock);
}

void proxy_fresh_tick(struct proxy_fresh *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->waiters)
		settle(f, now_ms());
	pthread_mutex_unlock(&f->lock);
}

void proxy_fresh_cancel(struct proxy_fresh *f, struct proxy_wait *w)
{
	pthread_mutex_lock(&f->lock);
	for (struct proxy_wait **pp = &f->waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	w->queued = false;
	pthread_mutex_unlock(&f->lock);
}
