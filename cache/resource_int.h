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
#include "config/log.h"

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

/* Log msg, with fields, about r's upstream failing a request (why: the
 * verb and the error, e.g. "list curl 7" or "watch 500"): a warning,
 * folded per resource, request and error (config/log.h), so that an
 * upstream down or refusing is one line a fold window, not one a retry;
 * but a debug line, unfolded, while r->quiet_start and not yet synced
 * (main's start-up check tells then). The next 200 closes the folded
 * ones (cache_resource_retry_over). Any of r's threads. */
void cache_resource_retry_log(struct cache_resource *r, const char *why,
			      const struct log_field *fields, const char *msg);
/* r's upstream answered a request with a 200: the retry warnings that
 * fold are over (written now, folded). Any of r's threads. */
void cache_resource_retry_over(struct cache_resource *r);

void cache_resource_log_status(struct cache_resource *r, const char *what,
			       long code, const struct buf *body);

#endif
