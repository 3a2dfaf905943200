/*
 * resource: one cached resource, what the HTTP side reads of it and what
 * its reflector (reflector.h) keeps up to date.
 *
 * struct cache_resource holds the kind, the store, the history, whether
 * the first sync has finished, and the statistics that /metrics and
 * /readyz show. Its pointers stay valid from cache_resource_new() until
 * cache_resource_free(). The reflector thread is its only writer (of the
 * store, the history and the fields marked as its own); any thread may
 * read what is marked atomic, with __atomic loads.
 *
 * The stop signal lives here too: cache_resource_ask_stop() makes every
 * wait of the resource's reflector threads end at once (a transfer in
 * xfer.c, a backoff sleep), whichever thread is in it.
 */
#ifndef CACHE_RESOURCE_H
#define CACHE_RESOURCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache/history.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/rvclock.h"
#include "cache/scope.h"
#include "cache/store.h"
#include "cache/upstream.h"
#include "config/histogram.h"

enum cache_resource_relist_reason {
	REFL_RELIST_EXPIRED,   /* the upstream answered 410 to a resume */
	REFL_RELIST_BROKEN,    /* bad bytes, an ERROR event, or events that
				 * did not fit the cache */
	REFL_RELIST_BACKWARDS, /* the upstream's RV went below ours (wiped) */
	REFL_RELIST_NREASONS
};

/* "expired", "broken", "backwards": the label of the relists metric. */
const char *cache_resource_relist_reason_name(int reason);

/* Why an upstream LIST or WATCH failed, from how its transfer ended. */
enum cache_resource_error {
	CACHE_ERROR_TIMEOUT, /* libcurl's timeout, or a stalled watch */
	CACHE_ERROR_CONNECT, /* no connection: resolve, connect, reset */
	CACHE_ERROR_TLS,     /* handshake or certificate */
	CACHE_ERROR_HTTP,    /* an answer with a code other than 200 */
	CACHE_ERROR_INVALID, /* a 200 whose body could not be used */
	CACHE_ERROR_OTHER,   /* anything else (memory, a cut transfer) */
	CACHE_ERROR_NREASONS
};

/* "timeout", "connect", "tls", "http", "invalid", "other": the reason
 * label of the upstream errors metric. */
const char *cache_resource_error_name(int reason);
/* The reason of a transfer that ended with libcurl's rc and HTTP code. */
int cache_resource_error_reason(int curl_rc, long code);

struct cache_resource_stats { /* all atomic */
	uint64_t lists, watches, events, relists, errors, malformed;
	uint64_t relists_by[REFL_RELIST_NREASONS];
	/* failed LISTs and WATCHes by enum cache_resource_error and the
	 * HTTP code of the last answer, in config_histogram_code_slot()'s
	 * slots ("error": none came) */
	uint64_t errors_by[CACHE_ERROR_NREASONS][CONFIG_HISTOGRAM_NCODES];
	/* list items and watch objects skipped, by enum cache_reject */
	uint64_t rejected_by[CACHE_REJECT_NREASONS];
	uint64_t fast_forwards; /* quiet resumes moved to a newer RV */
	uint64_t watchers;	/* local watches open now (the proxy's) */
	/* requests of this kind that the scope let the cache answer, and
	 * ones passed through because they reach outside it (the proxy's;
	 * counted only where the scope is not the whole resource) */
	uint64_t scope_served, scope_passthrough;
	/* protobuf reads of this kind passed through because the cache
	 * cannot encode them faithfully, by reason (the proxy's:
	 * proxy/protobuf.h, PROXY_PB_PASS_NREASONS) */
	uint64_t pb_passthrough_by[3];
	/* 1 once a protobuf watch of it met an object it could not encode:
	 * from then on its protobuf watches go upstream */
	uint64_t pb_watch_failed;
	/* the full LIST under way, or the last one: 1 while one runs,
	 * objects parsed and bytes received so far, the total the upstream
	 * announced (objects so far + remainingItemCount; 0: unknown) and
	 * when it began (monotonic ms) */
	uint64_t list_active, list_objects, list_bytes, list_expected;
	uint64_t list_started_ms, list_ended_ms;
};

struct cache_shape;

struct cache_resource {
	const struct cache_kind *kind;
	struct cache_store *store;
	struct cache_history *history;
	bool synced;  /* atomic; set once, after the first list */
	bool retired; /* atomic; removed by a config reload: its watches end,
		       * requests pass it by, it is freed at exit */
	bool quiet_start;     /* set before start: until the first sync, its
			   * upstream failures are logged at debug level,
			   * for the owner reports them in one line */
	int64_t last_contact; /* atomic; unix time of the last upstream bytes */
	int last_curl_error;  /* atomic; of the last failed request */
	long last_http_status;	     /* atomic; of the last answer */
	int64_t failing_since;	     /* atomic; unix time of the first failure
					 * since the last success, 0 when healthy */
	int64_t last_change_ms;	     /* atomic; monotonic ms of the last
					 * upstream event applied, 0: none */
	bool list_over;		     /* atomic; the last LIST was abandoned past
			 * --upstream-list-max-mib */
	bool list_cycle;	     /* atomic; the last LIST was abandoned:
				      * its continue tokens went round */
	bool bookmarks_seen;	     /* atomic; the upstream sends BOOKMARKs
					 * for this resource, so silence is a stall */
	struct cache_rvclock *clock; /* the RVs of its storage domain */
	struct cache_resource_stats stats;
	/* the proxy's, observed without a lock: from an event's arrival to
	 * its copy into a local watch's stream (seconds), and how many
	 * events a watch was behind the history's head when it sent */
	struct config_histogram delivery_lag, watcher_lag;
	/* Told after every published change, from the reflector thread,
	 * while on_progress_ctx (atomic) is not NULL. Set before start. */
	void (*on_progress)(void *ctx, struct cache_resource *r);
	void *on_progress_ctx;

	/* What of the resource this reflector caches: set before start,
	 * read-only after (cache_resource_set_scope) */
	struct cache_scope scope;
	/* Which parts of the upstream's LIST pages and events are
	 * tokenized: the kind's (owned, made by cache_resource_new) */
	struct cache_shape *shape;

	/* owned by the reflector thread (up: read by its LIST's threads) */
	struct cache_upstream up;
	pthread_t thread;
	bool started; /* the main thread's: cache_reflector_start/stop */
	bool stop;    /* atomic; see cache_resource_ask_stop */
	/* a pipe, readable from the first cache_resource_ask_stop on:
	 * every wait of the reflector's threads (a transfer, a backoff)
	 * polls wake[0] and ends when it is (never read, so it wakes all) */
	int wake[2];
	uint64_t rv;	 /* last RV applied */
	int retry_after; /* seconds the upstream asked us to wait */
	int attempt;	 /* atomic; failed tries since it was last healthy,
			  * for the retry warnings */
	bool warned;	 /* atomic; a retry warning is folding (xfer.c) */
};

/* A resource of kind, reading upstream as up says, with a history of
 * that many events; not started (reflector.h starts it). NULL when out
 * of memory. Main thread. */
struct cache_resource *cache_resource_new(const struct cache_kind *kind,
					  const struct cache_upstream *up,
					  size_t history);
/* Cache only *s of the resource (takes what s owns; s is left empty).
 * Before cache_reflector_start(). */
void cache_resource_set_scope(struct cache_resource *r, struct cache_scope *s);
/* Ask r's reflector to stop: sets stop and wakes every wait of its
 * threads. Returns at once; cache_reflector_stop() joins. Any thread,
 * more than once is fine. */
void cache_resource_ask_stop(struct cache_resource *r);
/* After its reflector stopped, every reader gone and rcu_barrier().
 * NULL is fine. */
void cache_resource_free(struct cache_resource *r);

static inline bool cache_resource_retired(const struct cache_resource *r)
{
	return __atomic_load_n(&r->retired, __ATOMIC_ACQUIRE);
}

static inline bool cache_resource_synced(struct cache_resource *r)
{
	return __atomic_load_n(&r->synced, __ATOMIC_ACQUIRE);
}

static inline bool cache_resource_stopping(const struct cache_resource *r)
{
	return __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
}

#endif
