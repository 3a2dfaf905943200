/*
 * reflector: the thread that keeps one resource's store and history
 * equal to upstream, LIST then WATCH (see reflector.h).
 *
 * The loop is here: a full LIST (lister.h) applied at once, then WATCHes
 * (watcher.h) resumed from the last RV, a relist when a watch says so,
 * and backoff after errors. Everything here runs on the resource's own
 * thread, except cache_reflector_start/stop, which the main thread
 * calls.
 */
#include "cache/reflector.h"

#include <errno.h>
#include <stdlib.h>

#include "cache/lister.h"
#include "cache/probe.h"
#include "cache/relist.h"
#include "cache/shape.h"
#include "cache/watcher.h"
#include "cache/xfer.h"
#include "config/alloc.h"
#include "config/log.h"

#define BACKOFF_MIN_MS 5
#define HEALTHY_S 10 /* a watch this long resets the backoff */

/* Make the store equal to l. The first time this is a plain load; later
 * (a relist) the differences become synthetic events at l->rv, so local
 * watchers stay on a true stream without being closed. */
static int apply_listing(struct cache_resource *r, struct cache_listing *l)
{
	if (!l->sorted) /* the lister saw them in order: no pass needed */
		l->n = cache_store_sort(l->objs, l->n);
	struct cache_snap *old = cache_store_snap(r->store);
	bool first = !cache_resource_synced(r);
	struct cache_txn t;
	cache_store_txn_begin_empty(r->store, &t);
	if (cache_store_txn_load(&t, l->objs, l->n) ||
	    cache_store_txn_commit(&t, l->rv)) {
		cache_store_snap_put(old);
		return -ENOMEM;
	}
	if (first) {
		cache_history_reset(r->history, l->rv);
	} else {
		struct cache_relist rl;
		int rc = cache_relist_diff(old, r->rv, l->objs, l->n, l->rv,
					   cache_shape_object(r->shape), &rl);
		if (rc == -ERANGE) {
			/* The upstream's RVs are not comparable with ours any
			 * more (a wiped or restored cluster): no true stream
			 * leads there, so every watcher gets 410 and relists. */
			log_warn(
				"%s: upstream resourceVersion went from %llu to %llu: "
				"ending every local watch with 410 Expired",
				r->kind->resource, (unsigned long long)r->rv,
				(unsigned long long)l->rv);
			cache_rvclock_reset(r->clock);
			cache_history_reset(r->history, l->rv);
		} else if (rc) {
			log_error(
				"%s: out of memory diffing a relist; ending local watches",
				r->kind->resource);
			cache_history_reset(r->history, l->rv);
		} else {
			for (size_t i = 0; i < rl.n; i++)
				cache_history_add(r->history, rl.ev[i].type,
						  rl.ev[i].rv, rl.ev[i].obj,
						  rl.ev[i].prev);
			if (rl.n) /* one wake for the whole difference */
				cache_history_wake_all(r->history);
			log_info(
				"%s: relisted at %llu: %zu change(s) sent to local watchers",
				r->kind->resource, (unsigned long long)l->rv,
				rl.n);
			cache_relist_free(&rl);
		}
	}
	cache_store_snap_put(old);
	r->rv = l->rv;
	cache_rvclock_note(r->clock, l->rv, cache_rvclock_now_ms());
	cache_history_set_progress(r->history, l->rv);
	__atomic_store_n(&r->synced, true, __ATOMIC_RELEASE);
	cache_resource_tell_progress(r);
	return 0;
}

/*
 * After a watch that ended cleanly, move a quiet resource up to the
 * newest RV its storage domain showed at least the settle time ago, when
 * the watch was open before then too: every write up to that RV was
 * committed before it was seen, so the watch has delivered the ones of
 * this resource (rvclock.h has the argument). Its next watch resumes
 * from a recent RV the upstream still has, not from its last change,
 * which compaction removes within minutes.
 */
static void fast_forward(struct cache_resource *r,
			 const struct cache_watcher_end *end)
{
	int64_t settle =
		(r->up.settle_seconds > 0 ? r->up.settle_seconds : 30) * 1000L;
	int64_t by = cache_rvclock_now_ms() - settle;
	uint64_t rv;
	if (!end->opened_ms || end->opened_ms > by ||
	    !cache_rvclock_seen_by(r->clock, by, &rv) || rv <= r->rv)
		return;
	log_v(1, "%s: no change upstream from %llu to %llu: resuming from %llu",
	      r->kind->resource, (unsigned long long)r->rv,
	      (unsigned long long)rv, (unsigned long long)rv);
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	cache_store_txn_since(&t, rv); /* nothing changed on the way */
	if (cache_store_txn_commit(&t, rv)) {
		log_error("%s: out of memory moving to %llu", r->kind->resource,
			  (unsigned long long)rv);
		return;
	}
	r->rv = rv;
	cache_history_set_progress(r->history, rv);
	cache_resource_stat_inc(&r->stats.fast_forwards);
	cache_resource_tell_progress(r);
}

/*
 * A watch that ended, by the server or by going silent, may be the sign
 * of an upstream that lost its state: a wiped cluster at the same address
 * closes its watches, then accepts a watch from an RV it has not reached
 * and stays silent. Compare RVs before watching again (one limit=1 LIST),
 * unless the watch simply reached its deadline while the upstream kept
 * showing RVs in this domain (events, BOOKMARKs, other resources): then
 * the renewal is the only request. Returns rc, or REFL_BACKWARDS.
 */
static int check_upstream_rv(struct cache_resource *r, int rc,
			     const struct cache_watcher_end *end)
{
	char err[256];
	uint64_t now = 0;
	if (rc != REFL_OK && rc != REFL_RETRY)
		return rc;
	if (rc == REFL_OK && end->at_deadline &&
	    cache_rvclock_heard_since(r->clock, end->opened_ms))
		return rc;
	if (cache_probe_upstream_rv(&r->up, r->kind, r->scope.ns, &r->stop,
				    &now, err, sizeof(err)))
		return rc;
	if (now < r->rv) {
		log_warn(
			"%s: the upstream is at resourceVersion %llu, below ours "
			"(%llu): relisting",
			r->kind->resource, (unsigned long long)now,
			(unsigned long long)r->rv);
		cache_rvclock_reset(r->clock);
		return REFL_BACKWARDS;
	}
	cache_rvclock_note(r->clock, now, cache_rvclock_now_ms());
	return rc;
}

/* ---- the thread ---- */

/* Exponential backoff from 5 ms to the configured cap, with jitter in
 * [d/2, d]; an upstream's Retry-After of S seconds, when longer, wins,
 * spread over [S, 1.5 S]: the children of a restarted parent proxy all
 * hear "Retry-After: 1" within the same moment, and must not all come
 * back within the same millisecond. */
static void backoff_sleep(struct cache_resource *r, int *attempt)
{
	long cap = r->up.backoff_max_ms > 0 ? r->up.backoff_max_ms : 5000;
	long ms = BACKOFF_MIN_MS;
	for (int i = 0; i < *attempt && ms < cap; i++)
		ms *= 2;
	if (ms > cap)
		ms = cap;
	ms = ms / 2 + rand() % (ms / 2 + 1); /* jitter: [ms/2, ms] */
	if (r->retry_after > 0) {
		long ra = r->retry_after * 1000L;
		ra += rand() % (ra / 2 + 1); /* jitter: [S, 1.5 S] */
		if (ra > ms)
			ms = ra;
	}
	r->retry_after = 0;
	(*attempt)++;
	__atomic_store_n(&r->attempt, *attempt, __ATOMIC_RELAXED);
	cache_resource_sleep(r, ms); /* ends at once on a stop */
}

/* A full LIST applied to the store. Returns REFL_OK, REFL_STOP, or
 * REFL_ERROR after backing off. */
static int list_step(struct cache_resource *r, struct cache_xfer_conn *conn,
		     int *attempt)
{
	struct cache_listing l = { 0 };
	int rc = cache_lister_list(r, conn, &l);
	if (rc == REFL_STOP)
		return rc;
	log_v(2, "%s: listed %zu objects", r->kind->resource, l.n);
	if (rc != REFL_OK || apply_listing(r, &l)) {
		cache_resource_count_error(r);
		cache_lister_listing_free(&l);
		backoff_sleep(r, attempt);
		return REFL_ERROR;
	}
	log_info("%s: synced %zu objects at resourceVersion %llu",
		 r->kind->resource, l.n, (unsigned long long)l.rv);
	cache_lister_listing_free(&l);
	/* A full LIST leaves page buffers, token arrays and index scratch
	 * freed in several threads' heaps; give those pages back rather
	 * than keep them as resident memory. */
	alloc_trim();
	/* no reset of the backoff here: a LIST that works followed by a
	 * watch that fails at once (a rejected event) must not become a
	 * relist loop */
	return REFL_OK;
}

/* Count a watch's verdict that leads to a relist. */
static void count_relist(struct cache_resource *r, int rc)
{
	int why = rc == REFL_EXPIRED ? REFL_RELIST_EXPIRED :
		  rc == REFL_ERROR   ? REFL_RELIST_BROKEN :
				       REFL_RELIST_BACKWARDS;
	cache_resource_stat_inc(&r->stats.relists);
	cache_resource_stat_inc(&r->stats.relists_by[why]);
}

/* One WATCH and what follows it. Returns REFL_STOP, or whether a relist
 * is needed (REFL_EXPIRED) or not (REFL_OK). */
static int watch_step(struct cache_resource *r, struct cache_xfer_conn *conn,
		      int *attempt)
{
	int64_t began = cache_rvclock_now_ms();
	struct cache_watcher_end end = { 0 };
	int rc = cache_watcher_watch(r, conn, &end);
	if (rc == REFL_STOP)
		return rc;
	if (rc == REFL_OK)
		fast_forward(r, &end);
	rc = check_upstream_rv(r, rc, &end);
	bool backwards = rc == REFL_BACKWARDS, relist = false;
	if (rc == REFL_EXPIRED || rc == REFL_ERROR || backwards) {
		count_relist(r, rc);
		relist = true;
		if (backwards)
			rc = REFL_EXPIRED;
	}
	/* Back off after errors, after RVs that went backwards on the
	 * stream or against the upstream (a fault, or a wiped cluster,
	 * which a first short backoff hardly delays), and after a watch
	 * that ended at once (no hot loop against an upstream that closes
	 * every watch); a watch that lived resumes straight away. */
	if (rc == REFL_ERROR || rc == REFL_RETRY || rc == REFL_REFUSED ||
	    backwards || cache_rvclock_now_ms() - began < 1000) {
		if (rc != REFL_OK && rc != REFL_EXPIRED)
			cache_resource_count_error(r);
		if (rc == REFL_RETRY || rc == REFL_REFUSED)
			cache_resource_mark_failing(r);
		backoff_sleep(r, attempt);
	} else if (cache_rvclock_now_ms() - began >= HEALTHY_S * 1000) {
		*attempt = 0; /* healthy for a while: start afresh */
		__atomic_store_n(&r->attempt, 0, __ATOMIC_RELAXED);
	}
	return relist ? REFL_EXPIRED : REFL_OK;
}

static void *run(void *arg)
{
	struct cache_resource *r = arg;
	char err[256];
	struct cache_xfer_conn conn;
	if (cache_xfer_conn_open(&conn, r, err, sizeof(err))) {
		log_error("%s: %s", r->kind->resource, err);
		return NULL;
	}
	int attempt = 0;
	bool need_list = true;
	while (!cache_resource_stopping(r)) {
		if (need_list) {
			int rc = list_step(r, &conn, &attempt);
			if (rc == REFL_STOP)
				break;
			if (rc != REFL_OK)
				continue;
			need_list = false;
		}
		int rc = watch_step(r, &conn, &attempt);
		if (rc == REFL_STOP)
			break;
		need_list = rc == REFL_EXPIRED;
	}
	cache_xfer_conn_close(&conn);
	return NULL;
}

int cache_reflector_start(struct cache_resource *r)
{
	int e = pthread_create(&r->thread, NULL, run, r);
	if (e)
		return -e;
	r->started = true;
	return 0;
}

void cache_reflector_stop(struct cache_resource *r)
{
	if (!r || !r->started)
		return;
	cache_resource_ask_stop(r);
	pthread_join(r->thread, NULL);
	r->started = false;
}
