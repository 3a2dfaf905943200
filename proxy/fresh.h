/*
 * fresh: reads that must see a state at least as new as the upstream's.
 *
 * A LIST or GET without resourceVersion is a consistent read: it must
 * include every write the upstream had acknowledged when the request
 * arrived. We get that the way the apiserver's watch cache does since
 * 1.31: ask the upstream for its current RV with a cheap `limit=1` LIST
 * (a quorum read there), then wait until our cache has caught up to it
 * through the watch. One probe serves every request that arrived before
 * it started, so a burst of reads costs one upstream request.
 *
 * A resourceVersion=N read (NotOlderThan, or Exact above the cache) waits
 * the same way for N, up to 3 s, then gets 504 ResourceVersionTooLarge.
 *
 * Waiting never holds a thread: the connection is suspended and resumed
 * when the reflector reports progress, a probe answers, or the deadline
 * passes (the ticker). If the upstream cannot be asked, the read is
 * served from the cache as it is and the staleness is logged: a sidecar
 * keeps answering while its upstream is away.
 */
#ifndef PROXY_FRESH_H
#define PROXY_FRESH_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache/reflector.h"

struct proxy_fresh;

enum fresh_result { FRESH_WAITING, FRESH_OK, FRESH_TIMEOUT, FRESH_STALE };

struct proxy_wait {
	struct proxy_wait *next;	/* in the fresh list; locked */
	struct MHD_Connection *conn;
	struct cache_resource *r;
	uint64_t need_gen;		/* the probe that must answer; 0 = none */
	uint64_t need_rv;		/* the RV the cache must reach */
	int64_t deadline_ms;
	bool consistent;		/* an RV-less read: probe first */
	enum fresh_result result;	/* locked until no longer WAITING */
	bool queued;			/* locked */
};

struct proxy_fresh *proxy_fresh_new(const struct cache_upstream *up,
				    struct cache_resource **res, int nres);
/* Resume every waiter (they see FRESH_TIMEOUT) and stop the prober. */
void proxy_fresh_stop(struct proxy_fresh *f);
void proxy_fresh_free(struct proxy_fresh *f);

/*
 * Start waiting on w (filled by the caller: conn, r, and need_rv for a
 * known RV, or probe = true for a consistent read), suspending the
 * connection. Returns false when there is nothing to wait for (the cache
 * is there already), in which case w->result is FRESH_OK.
 */
bool proxy_fresh_wait(struct proxy_fresh *f, struct proxy_wait *w, bool probe);
/* Take w off the list if it is still there (its request ended). */
void proxy_fresh_cancel(struct proxy_fresh *f, struct proxy_wait *w);
/* Called from the reflector thread after each published change. */
void proxy_fresh_progress(void *ctx, struct cache_resource *r);
/* Called by the ticker: time out waiters past their deadline. */
void proxy_fresh_tick(struct proxy_fresh *f);

#endif
