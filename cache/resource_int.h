/*
 * resource_int: what the reflector's modules (reflector, watcher, lister,
 * pager, xfer) share about a resource: how a LIST or WATCH ended, the
 * limits in force, and the counters and marks they keep. Not for proxy/.
 *
 * Unless said otherwise, call these from the resource's reflector thread
 * or from the threads of its LIST (lister.c's parsers, pager.c's
 * fetchers): they touch only atomic fields.
 */
#ifndef CACHE_RESOURCE_INT_H
#define CACHE_RESOURCE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/json.h"
#include "cache/resource.h"
#include "config/buf.h"

/* How a LIST or WATCH ended. REFL_RETRY: the connection failed or went
 * silent, resume the watch; REFL_REFUSED: the upstream answered 429/5xx,
 * resume after backing off; REFL_ERROR: the bytes were wrong, relist;
 * REFL_EXPIRED: 410, relist; REFL_BACKWARDS: the upstream's RV is below
 * ours (a wiped cluster), relist; REFL_STOP: asked to stop. */
enum {
	REFL_OK,
	REFL_RETRY,
	REFL_REFUSED,
	REFL_EXPIRED,
	REFL_ERROR,
	REFL_STOP,
	REFL_BACKWARDS
};

/* The limits in force (cache_upstream's, or config/limits.h's). */
size_t cache_resource_page_max(const struct cache_resource *r);
size_t cache_resource_line_max(const struct cache_resource *r);
size_t cache_resource_list_max(const struct cache_resource *r);

void cache_resource_stat_inc(uint64_t *s);
/* Count a failed LIST or WATCH, by the reason its last transfer's end
 * (last_curl_error, last_http_status) gives. */
void cache_resource_count_error(struct cache_resource *r);
/* Whether the upstream answers, for /readyz's grace period: healthy
 * clears the mark, failing sets it (once, to now). */
void cache_resource_mark_healthy(struct cache_resource *r);
void cache_resource_mark_failing(struct cache_resource *r);
/* Note bytes from the upstream now (last_contact). */
void cache_resource_touch(struct cache_resource *r);
/* Tell r->on_progress, if set, of a published change. Reflector thread. */
void cache_resource_tell_progress(struct cache_resource *r);

/* Sleep ms, or less if r is asked to stop meanwhile. Returns false when
 * it is stopping. */
bool cache_resource_sleep(struct cache_resource *r, long ms);

/* Count and log one upstream object skipped for why (enum
 * cache_reject): by its key, read as well as the bytes allow. what says
 * where ("list", "watch"). Logs when *logged (atomic; may be NULL) was
 * below a few, so that a LIST of many bad items stays readable. */
void cache_resource_reject(struct cache_resource *r, const char *what,
			   const struct json_doc *d, int root, int why,
			   const char *err, unsigned *logged);

/* The fold key (config/log.h) of r's retry warnings about what (a
 * verb, a code), into key, the caller's buffer; what "" gives the prefix
 * of them all. Folded per resource, request and error, so that an
 * upstream down or refusing is one line a fold window, not one a retry;
 * r->warned says one was logged, and the next 200 closes them all
 * (cache_resource_retry_over). */
void cache_resource_retry_key(const struct cache_resource *r, const char *what,
			      char *key, size_t len);
/* r's upstream answered a request with a 200: the retry warnings that
 * fold are over (written now, folded). Any of r's threads. */
void cache_resource_retry_over(struct cache_resource *r);

/* Log the message of an upstream Status body, if there is one. */
/* The level of a line about an upstream failure of r: debug (1) while
 * r->quiet_start and not yet synced, else 0 (a warning). */
int cache_resource_failure_level(struct cache_resource *r);

void cache_resource_log_status(struct cache_resource *r, const char *what,
			       long code, const struct buf *body);

#endif
