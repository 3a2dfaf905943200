/*
 * fresh: consistent reads and RV waits (see fresh.h).
 *
 * One mutex guards the waiter list and the probe generations; it is
 * taken on the slow path only (a read that must wait), never by a read
 * the cache can answer at once. The prober thread sends the probes and
 * keeps time: it sleeps until the earliest waiter's deadline.
 */
#include "proxy/fresh.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/probe.h"
#include "cache/rvclock.h"
#include "config/alloc.h"
#include "proxy/reply.h"
#include "proxy/request.h"
#include "config/log.h"
#include "proxy/metrics.h"
#include "proxy/status.h"

#define BUSY_MS 2000	     /* a resource that changed this recently is busy */
#define CATCHUP_MS 15	     /* a busy resource's watch is this close */
#define WATCH_CATCHUP_MS 250 /* an RV-less watch's wait for the probed RV */
#define PROBE_MS 5000	   /* a probe slower than this: the upstream is away */
#define BEHIND_MS 2000	   /* how long a probe's "behind" forwards reads */
#define REFRESH_MS 500	   /* a read on an older "behind" asks a new probe */
#define NAME_LEN 253	   /* the longest object or namespace name */
#define LIST_PROBE_MAX 500 /* a collection a list probe may compare */

struct probe {			/* per resource; locked */
	uint64_t started, done; /* generations */
	uint64_t rv;		/* the answer of generation done */
	bool failed;		/* and whether it failed */
	/* The last answered probe found the cache behind it: the upstream
	 * was at rv > behind_rv, the store's RV then, at behind_ms. While
	 * the store stays at behind_rv (no event, BOOKMARK or relist) the
	 * upstream, whose RV only grows, is still ahead of the cache, so a
	 * new probe could only say the same. */
	bool behind;
	uint64_t behind_rv;
	int64_t behind_ms;
	bool refresh; /* a read asked for a probe no waiter needs */
	/* The object probe: a GET of the one object that RV-less GETs of a
	 * resource known behind ask for. Readers of that object arriving
	 * before it is sent join it (generation obj_started + 1); the slot
	 * holds one object at a time and frees when nobody waits on it. */
	char obj_ns[NAME_LEN + 1], obj_name[NAME_LEN + 1];
	uint64_t obj_started, obj_done; /* generations */
	bool obj_fresh;	 /* generation obj_done proved the cache's copy */
	int obj_waiters; /* waiters on the slot */
	bool obj_denied; /* the upstream refused one: no more object probes */
	/* The list probe: one LIST of a small collection, for RV-less LISTs
	 * of a resource known behind; joined the same way. */
	uint64_t list_started, list_done; /* generations */
	bool list_same; /* generation list_done found the cache's state */
	int list_waiters;
	/* The last list probe that matched: the store at RV proved_at held
	 * the upstream's state at proved_rv. While the store stays there, a
	 * probe answering proved_rv or less proves it again (no write at
	 * all happened since). */
	uint64_t proved_at, proved_rv;
};

struct proxy_fresh {
	/* The proxy's upstream without its token bucket: a probe stands for
	 * client reads that would reach the upstream anyway, and one probe
	 * in flight per resource (serving every read queued behind it)
	 * bounds their rate by the round trip. */
	struct cache_upstream up;
	struct cache_resource **res;
	int nres;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;	    /* wakes the prober */
	struct proxy_wait *waiters; /* locked */
	struct probe *probes;	    /* locked; one per resource */
	bool away;  /* prober thread only: the last probe failed */
	CURL *keep; /* prober thread only: its upstream connection */
	bool stop;  /* locked, and atomic for upstream GETs */
};

static int index_of(struct proxy_fresh *f, struct cache_resource *r)
{
	for (int i = 0, n = __atomic_load_n(&f->nres, __ATOMIC_ACQUIRE); i < n;
	     i++)
		if (f->res[i] == r)
			return i;
	return -1;
}

static bool is_busy(struct cache_resource *r, int64_t now)
{
	int64_t last = __atomic_load_n(&r->last_change_ms, __ATOMIC_RELAXED);
	return last && now - last < BUSY_MS;
}

/* How long the cache may take to reach an RV it has not reached. */
static int64_t budget_ms(const struct proxy_wait *w)
{
	if (w->watch && w->consistent)
		return WATCH_CATCHUP_MS;
	return is_busy(w->r, cache_rvclock_now_ms()) ? CATCHUP_MS : 0;
}

/* Whether a list probe proved resource i's store at the upstream's RV
 * rv or later, and the store is still where it was then. Locked. */
static bool proven(struct proxy_fresh *f, int i, uint64_t rv)
{
	struct probe *p = &f->probes[i];
	return p->proved_at && p->proved_rv >= rv &&
	       cache_store_rv(f->res[i]->store) == p->proved_at;
}

/* Remember what probe p of resource i found. Locked. */
static void note_probe(struct proxy_fresh *f, int i, int64_t now)
{
	struct probe *p = &f->probes[i];
	struct cache_resource *r = f->res[i];
	uint64_t have = cache_store_rv(r->store);
	/* a busy resource's watch may catch up within its grace: probe it */
	p->behind = !p->failed && p->rv > have && !is_busy(r, now) &&
		    !proven(f, i, p->rv);
	p->behind_rv = have;
	p->behind_ms = now;
}

/*
 * Whether an RV-less read of resource i may go upstream without a probe:
 * the last probe found the cache behind the upstream, BEHIND_MS ago at
 * most, and the store has not moved since nor is the resource busy. Only
 * ever forwards a read a probe would have forwarded too. A read that
 * finds the finding older than REFRESH_MS asks for a probe in the
 * background, which keeps it fresh while reads come; a failed probe, or
 * one that finds the cache there, ends it. Locked.
 */
static bool known_behind(struct proxy_fresh *f, int i, int64_t now)
{
	struct probe *p = &f->probes[i];
	struct cache_resource *r = f->res[i];
	if (!p->behind || now - p->behind_ms >= BEHIND_MS ||
	    cache_store_rv(r->store) != p->behind_rv || is_busy(r, now))
		return false;
	if (now - p->behind_ms >= REFRESH_MS && p->started == p->done) {
		p->refresh = true;
		pthread_cond_signal(&f->cond);
	}
	return true;
}

/* Take w off the list and out of its object slot. Locked. */
static void unlink_wait(struct proxy_fresh *f, struct proxy_wait *w)
{
	for (struct proxy_wait **pp = &f->waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	int i = w->queued ? index_of(f, w->r) : -1;
	if (i >= 0 && w->need_obj)
		f->probes[i].obj_waiters--;
	if (i >= 0 && w->need_list)
		f->probes[i].list_waiters--;
	w->need_obj = 0;
	w->need_list = 0;
	w->queued = false;
}

/*
 * Let the RV-less GET w of resource i, known behind, wait for an object
 * probe of its object rather than go upstream: it joins the slot's next
 * probe when the slot holds its object or nothing. A probe sent after w
 * arrived proves it, so it waits for at most the probe in flight and the
 * next one. False when w has no object or the slot holds another one (w
 * goes upstream, as it would have). Locked.
 */
static bool join_object(struct proxy_fresh *f, int i, struct proxy_wait *w,
			int64_t now)
{
	struct probe *p = &f->probes[i];
	if (!w->get_name[0] || p->obj_denied)
		return false;
	if (p->obj_waiters || p->obj_started != p->obj_done) {
		if (strcmp(p->obj_ns, w->get_ns) ||
		    strcmp(p->obj_name, w->get_name))
			return false;
	} else {
		memcpy(p->obj_ns, w->get_ns, sizeof(p->obj_ns));
		memcpy(p->obj_name, w->get_name, sizeof(p->obj_name));
	}
	p->obj_waiters++;
	w->need_obj = p->obj_started + 1;
	w->deadline_ms = now + PROBE_MS;
	pthread_cond_signal(&f->cond);
	return true;
}

/*
 * The same for the RV-less LIST w: it joins the next list probe when it
 * reads the whole collection, the store caches all of it (no selector)
 * and holds few enough objects that one LIST answers them all: then the
 * probe costs what forwarding w would. Locked.
 */
static bool join_list(struct proxy_fresh *f, int i, struct proxy_wait *w,
		      int64_t now)
{
	struct probe *p = &f->probes[i];
	struct cache_resource *r = f->res[i];
	if (!w->whole || w->get_name[0] || !cache_scope_unselected(&r->scope))
		return false;
	struct cache_snap *snap = cache_store_snap(r->store);
	size_t n = snap->count;
	cache_store_snap_put(snap);
	if (n >= LIST_PROBE_MAX)
		return false;
	p->list_waiters++;
	w->need_list = p->list_started + 1;
	w->deadline_ms = now + PROBE_MS;
	pthread_cond_signal(&f->cond);
	return true;
}

/* w, known behind, waits for an object or list probe. Locked. */
static bool join_slot(struct proxy_fresh *f, int i, struct proxy_wait *w,
		      int64_t now)
{
	return join_object(f, i, w, now) || join_list(f, i, w, now);
}

/* Finish w: unlink, set the result, resume its connection. Locked. */
static void finish(struct proxy_fresh *f, struct proxy_wait *w,
		   enum proxy_fresh_result res)
{
	unlink_wait(f, w);
	w->result = res;
	MHD_resume_connection(w->conn);
}

/* The outcome for w now, PROXY_FRESH_WAITING while it must wait on. Locked. */
static enum proxy_fresh_result judge(struct proxy_fresh *f,
				     struct proxy_wait *w, int64_t now)
{
	/* a queued waiter's resource has a slot; an unqueued one needs none */
	int i = index_of(f, w->r);
	struct probe *p = i >= 0 ? &f->probes[i] : NULL;
	if (!p) {
		if (cache_store_rv(w->r->store) >= w->need_rv)
			return PROXY_FRESH_OK;
		return now < w->deadline_ms ? PROXY_FRESH_WAITING :
					      PROXY_FRESH_UPSTREAM;
	}
	if (w->need_obj || w->need_list) {
		/* sent upstream without a probe before the object or list
		 * probe: so when it fails or does not answer in time */
		uint64_t done = w->need_obj ? p->obj_done : p->list_done;
		if (done < (w->need_obj ? w->need_obj : w->need_list))
			return now >= w->deadline_ms ? PROXY_FRESH_UPSTREAM :
						       PROXY_FRESH_WAITING;
		return (w->need_obj ? p->obj_fresh : p->list_same) ?
			       PROXY_FRESH_OK :
			       PROXY_FRESH_UPSTREAM;
	}
	if (w->need_gen) {
		if (p->done < w->need_gen)
			return now >= w->deadline_ms ? PROXY_FRESH_STALE :
						       PROXY_FRESH_WAITING;
		w->need_gen = 0;
		if (p->failed)
			return PROXY_FRESH_STALE;
		w->need_rv = p->rv;
		w->deadline_ms = now + budget_ms(w);
	}
	if (cache_store_rv(w->r->store) >= w->need_rv ||
	    (w->consistent && proven(f, i, w->need_rv)))
		return PROXY_FRESH_OK;
	if (now < w->deadline_ms)
		return PROXY_FRESH_WAITING;
	/* found behind: a read an object or list probe can prove waits for
	 * one (a round trip, as forwarding it would cost), once */
	if (w->consistent && !w->watch && !w->rejoined &&
	    join_slot(f, i, w, now)) {
		w->rejoined = true;
		return PROXY_FRESH_WAITING;
	}
	return PROXY_FRESH_UPSTREAM;
}

/* Resume every waiter whose outcome is known. Locked. */
static void settle(struct proxy_fresh *f, int64_t now)
{
	for (struct proxy_wait *w = f->waiters, *next; w; w = next) {
		next = w->next;
		enum proxy_fresh_result res = judge(f, w, now);
		if (res != PROXY_FRESH_WAITING)
			finish(f, w, res);
	}
}

/* The upstream's current RV for r; prober thread, unlocked. */
static int probe_rv(struct proxy_fresh *f, struct cache_resource *r,
		    uint64_t *rv)
{
	char err[256];
	PROXY_COUNT(fresh_probes);
	int rc = cache_probe_rv_on(&f->up, &f->keep, r->kind, r->scope.ns,
				   &f->stop, rv, err, sizeof(err));
	if (rc && !f->away)
		log_warn(
			"%s: cannot ask the upstream for its resourceVersion (%s); "
			"reads without resourceVersion are served from the cache "
			"until it answers (counted in "
			"informer_proxy_consistent_reads_stale_total)",
			r->kind->resource, err);
	else if (!rc && f->away)
		log_info("%s: the upstream answers again; reads without "
			 "resourceVersion are exact again",
			 r->kind->resource);
	f->away = rc != 0;
	if (!rc)
		cache_rvclock_note(r->clock, *rv, cache_rvclock_now_ms());
	return rc;
}

/*
 * Whether the object of slot p is as new in the cache as at the upstream
 * now: one GET of it, sent after every reader waiting on this generation
 * arrived. The cache's copy is proven when it is the upstream's (or a
 * later one: the upstream's RV only grows, and the cache holds only
 * states the upstream had) or both lack the object. The store only
 * moves forward, so a proof stays one. Prober thread, unlocked; ns and
 * name are the slot's, which does not change while a probe is out.
 */
static bool object_fresh(struct proxy_fresh *f, int i, const char *ns,
			 const char *name)
{
	struct cache_resource *r = f->res[i];
	char err[256];
	bool present = false;
	uint64_t rv = 0;
	PROXY_COUNT(fresh_object_probes);
	int rc = cache_probe_object(&f->up, &f->keep, r->kind, ns, name,
				    &f->stop, &present, &rv, err, sizeof(err));
	if (rc == -EACCES) {
		/* an identity granted list and watch but not get: its GETs
		 * go upstream as before, without a probe that cannot help */
		log_warn("%s: the upstream refused a GET of %s/%s (%s): reads "
			 "without resourceVersion of one object go upstream; "
			 "grant get on %s to this identity to serve them from "
			 "the cache",
			 r->kind->resource, ns, name, err, r->kind->resource);
		pthread_mutex_lock(&f->lock);
		f->probes[i].obj_denied = true;
		pthread_mutex_unlock(&f->lock);
	}
	if (rc) {
		log_v(1, "%s: object probe of %s/%s: %s", r->kind->resource, ns,
		      name, err);
		return false;
	}
	struct cache_obj *o = cache_store_get(r->store, ns, name, NULL);
	bool fresh = present ? o && o->rv >= rv : !o;
	cache_obj_put(o);
	return fresh;
}

/*
 * Whether resource i's store holds the upstream's state now (a list
 * probe), and remember the proof. Prober thread; takes the lock to
 * record.
 */
static bool list_same(struct proxy_fresh *f, int i)
{
	struct cache_resource *r = f->res[i];
	char err[256];
	bool same = false;
	uint64_t rv = 0, at = 0;
	PROXY_COUNT(fresh_list_probes);
	if (cache_probe_same_state(&f->up, &f->keep, r->kind, r->scope.ns,
				   r->store, LIST_PROBE_MAX, &f->stop, &same,
				   &rv, &at, err, sizeof(err))) {
		log_v(1, "%s: list probe: %s", r->kind->resource, err);
		return false;
	}
	if (same) {
		pthread_mutex_lock(&f->lock);
		f->probes[i].proved_at = at;
		f->probes[i].proved_rv = rv;
		pthread_mutex_unlock(&f->lock);
	}
	return same;
}

/* The resource with a waiter for an object (*list false) or list probe
 * not started yet, or -1. Locked. */
static int slot_todo(struct proxy_fresh *f, bool *list)
{
	for (struct proxy_wait *w = f->waiters; w; w = w->next) {
		int i = index_of(f, w->r);
		*list = w->need_list != 0;
		if (w->need_obj > f->probes[i].obj_started ||
		    w->need_list > f->probes[i].list_started)
			return i;
	}
	return -1;
}

/* The resource with a waiter for a probe not started yet, or one a read
 * asked to refresh, or -1. Locked. */
static int probe_todo(struct proxy_fresh *f)
{
	for (struct proxy_wait *w = f->waiters; w; w = w->next) {
		int i = index_of(f, w->r);
		if (w->need_gen > f->probes[i].started)
			return i;
	}
	for (int i = 0, n = __atomic_load_n(&f->nres, __ATOMIC_ACQUIRE); i < n;
	     i++)
		if (f->probes[i].refresh)
			return i;
	return -1;
}

/* Sleep until woken or the earliest waiter's deadline. Locked. */
static void sleep_on(struct proxy_fresh *f)
{
	int64_t until = 0;
	for (struct proxy_wait *w = f->waiters; w; w = w->next)
		if (!until || w->deadline_ms < until)
			until = w->deadline_ms;
	if (!until) {
		pthread_cond_wait(&f->cond, &f->lock);
		return;
	}
	struct timespec ts = { until / 1000, (long)(until % 1000) * 1000000L };
	pthread_cond_timedwait(&f->cond, &f->lock, &ts);
}

static void *prober(void *arg)
{
	struct proxy_fresh *f = arg;
	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		settle(f, cache_rvclock_now_ms());
		int todo = probe_todo(f);
		bool list = false;
		if (todo < 0 && (todo = slot_todo(f, &list)) >= 0) {
			struct probe *p = &f->probes[todo];
			uint64_t gen =
				list ? ++p->list_started : ++p->obj_started;
			pthread_mutex_unlock(&f->lock);
			bool ok = list ? list_same(f, todo) :
					 object_fresh(f, todo, p->obj_ns,
						      p->obj_name);
			pthread_mutex_lock(&f->lock);
			if (list) {
				p->list_done = gen;
				p->list_same = ok;
			} else {
				p->obj_done = gen;
				p->obj_fresh = ok;
			}
			continue;
		}
		if (todo < 0) {
			sleep_on(f);
			continue;
		}
		struct probe *p = &f->probes[todo];
		uint64_t gen = ++p->started;
		p->refresh = false;
		pthread_mutex_unlock(&f->lock);
		uint64_t rv = 0;
		int rc = probe_rv(f, f->res[todo], &rv);
		pthread_mutex_lock(&f->lock);
		p->done = gen;
		p->rv = rv;
		p->failed = rc != 0;
		note_probe(f, todo, cache_rvclock_now_ms());
	}
	pthread_mutex_unlock(&f->lock);
	if (f->keep)
		curl_easy_cleanup(f->keep);
	return NULL;
}

struct proxy_fresh *proxy_fresh_new(const struct cache_upstream *up,
				    struct cache_resource **res, int nres)
{
	struct proxy_fresh *f = xcalloc(1, sizeof(*f));
	pthread_condattr_t ca;
	if (!f)
		return NULL;
	f->up = *up;
	f->up.limit = NULL;
	f->res = res;
	f->nres = nres;
	/* room for what reloads add (proxy_fresh_add) */
	f->probes = xcalloc(PROXY_MAX_REFLECTORS, sizeof(*f->probes));
	pthread_mutex_init(&f->lock, NULL);
	/* deadlines are monotonic, like cache_rvclock_now_ms() */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cond, &ca);
	pthread_condattr_destroy(&ca);
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

int proxy_fresh_add(struct proxy_fresh *f, struct cache_resource *r)
{
	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	int n = f->nres;
	if (n >= PROXY_MAX_REFLECTORS || f->res[n] != r) {
		pthread_mutex_unlock(&f->lock);
		return -ENOSPC;
	}
	memset(&f->probes[n], 0, sizeof(f->probes[n]));
	__atomic_store_n(&f->nres, n + 1, __ATOMIC_RELEASE);
	r->on_progress = proxy_fresh_progress;
	__atomic_store_n(&r->on_progress_ctx, f, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

void proxy_fresh_stop(struct proxy_fresh *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nres; i++)
		__atomic_store_n(&f->res[i]->on_progress_ctx, NULL,
				 __ATOMIC_RELEASE);
	pthread_mutex_lock(&f->lock);
	__atomic_store_n(&f->stop, true, __ATOMIC_RELEASE);
	while (f->waiters)
		finish(f, f->waiters, PROXY_FRESH_TIMEOUT);
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
	int64_t now = cache_rvclock_now_ms();
	w->result = PROXY_FRESH_WAITING;
	w->need_gen = 0;
	w->need_obj = 0;
	w->need_list = 0;
	w->rejoined = false;
	/* the caller's strings may not outlive this call: a read found
	 * behind later joins an object probe by these copies */
	w->get_ns[0] = w->get_name[0] = '\0';
	if (w->name && strlen(w->name) <= NAME_LEN &&
	    (!w->ns || strlen(w->ns) <= NAME_LEN)) {
		snprintf(w->get_ns, sizeof(w->get_ns), "%s",
			 w->ns ? w->ns : "");
		snprintf(w->get_name, sizeof(w->get_name), "%s", w->name);
	}
	w->ns = w->name = NULL;
	w->consistent = probe;
	w->unprobed = false;
	if (!probe) {
		w->deadline_ms = now + budget_ms(w);
		enum proxy_fresh_result res = judge(f, w, now);
		if (res != PROXY_FRESH_WAITING) {
			w->result = res;
			return false;
		}
	}
	int i = index_of(f, w->r);
	pthread_mutex_lock(&f->lock);
	if (f->stop || i < 0) {
		pthread_mutex_unlock(&f->lock);
		w->result = PROXY_FRESH_STALE;
		return false;
	}
	if (probe && !w->watch && known_behind(f, i, now)) {
		if (join_slot(f, i, w, now))
			goto queue;
		pthread_mutex_unlock(&f->lock);
		w->unprobed = true;
		w->result = PROXY_FRESH_UPSTREAM;
		return false;
	}
	if (probe) {
		/* a probe that starts after this request arrived */
		w->need_gen = f->probes[i].started + 1;
		w->deadline_ms = now + PROBE_MS;
	}
queue:
	w->queued = true;
	w->next = f->waiters;
	f->waiters = w;
	MHD_suspend_connection(w->conn);
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return true;
}

void proxy_fresh_progress(void *ctx, struct cache_resource *r)
{
	proxy_fresh_tick(ctx);
}

void proxy_fresh_tick(struct proxy_fresh *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->waiters)
		settle(f, cache_rvclock_now_ms());
	pthread_mutex_unlock(&f->lock);
}

void proxy_fresh_cancel(struct proxy_fresh *f, struct proxy_wait *w)
{
	pthread_mutex_lock(&f->lock);
	unlink_wait(f, w);
	pthread_mutex_unlock(&f->lock);
}

/* The 504 for a resourceVersion the cache did not reach in time. */
static enum MHD_Result too_large(struct MHD_Connection *c,
				 struct cache_resource *r, uint64_t rv)
{
	char msg[160];
	snprintf(msg, sizeof(msg),
		 "Timeout: Too large resource version: %llu, current: %llu",
		 (unsigned long long)rv,
		 (unsigned long long)cache_store_rv(r->store));
	struct proxy_status st = {
		.reason = PROXY_Timeout,
		.message = msg,
		.retry_after = 1,
		.details =
			"{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\","
			"\"message\":\"Too large resource version\"}],"
			"\"retryAfterSeconds\":1}",
	};
	return proxy_reply_status(c, &st);
}

int proxy_fresh_await(struct proxy_fresh *f, struct MHD_Connection *c,
		      struct cache_resource *r, const struct proxy_rv_req *q,
		      bool watch, struct proxy_fresh_req *req,
		      enum MHD_Result *res)
{
	if (!req->waited) {
		bool consistent = !q->rv && !q->any;
		if (!consistent && cache_store_rv(r->store) >= q->rv)
			return 0;
		req->waited = true;
		if (consistent)
			PROXY_COUNT(consistent_reads);
		req->wait.conn = c;
		req->wait.r = r;
		req->wait.watch = watch;
		req->wait.need_rv = q->rv;
		if (proxy_fresh_wait(f, &req->wait, consistent)) {
			*res = MHD_YES;
			return 1;
		}
	}
	switch (req->wait.result) {
	case PROXY_FRESH_TIMEOUT:
		*res = too_large(c, r, req->wait.need_rv);
		return 1;
	case PROXY_FRESH_STALE:
		PROXY_COUNT(consistent_stale);
		log_v(1,
		      "%s: read served from the cache at %llu: the upstream "
		      "cannot be asked",
		      r->kind->resource,
		      (unsigned long long)cache_store_rv(r->store));
		return 0;
	case PROXY_FRESH_UPSTREAM:
		if (watch && req->wait.consistent)
			return 0; /* starts from the cache; events follow */
		PROXY_COUNT(reads_upstream);
		if (req->wait.unprobed)
			PROXY_COUNT(reads_upstream_unprobed);
		req->upstream = true;
		*res = MHD_YES;
		return 1;
	default:
		return 0;
	}
}
