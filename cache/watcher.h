/*
 * watcher: one WATCH of a resource, its events applied to the store and
 * the history as they arrive.
 *
 * The watch starts from r->rv with bookmarks on. Each chunk of lines is
 * applied in one store transaction and then appended to the history, so
 * a local watcher that sees an event can LIST and find it. The stream
 * must fit the cache: RVs that go down, an event about an object the
 * cache does not hold (or holds under another uid), an ERROR event or
 * bytes that do not parse end the watch with a verdict that leads the
 * reflector (reflector.h) to relist. A BOOKMARK above every RV the
 * resource's storage domain has shown is checked against the upstream
 * first (probe.h).
 *
 * Threads: the reflector thread only; it writes r's store, history, rv
 * and counters.
 */
#ifndef CACHE_WATCHER_H
#define CACHE_WATCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/resource_int.h"
#include "cache/xfer.h"

/* How a watch went, for what follows it. */
struct cache_watcher_end {
	int64_t opened_ms; /* when the answer began, 0: never */
	bool at_deadline;  /* the upstream ended it at timeoutSeconds */
};

/* One WATCH of r from r->rv on conn (the reflector's) until the stream
 * ends. Returns REFL_OK (a clean close), REFL_RETRY, REFL_REFUSED,
 * REFL_EXPIRED, REFL_ERROR, REFL_BACKWARDS or REFL_STOP
 * (resource_int.h); r->retry_after is set from a refusal's Retry-After.
 * conn is left with a LIST's stall rules. */
int cache_watcher_watch(struct cache_resource *r, struct cache_xfer_conn *conn,
			struct cache_watcher_end *end);

#endif
