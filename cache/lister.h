/*
 * lister: a full paged LIST of one resource, fetched and parsed in a
 * pipeline.
 *
 * The calling thread (the reflector's) decides each request in order;
 * its pager (pager.h) has asked for the next page as soon as the page
 * before told its continue token, in its first bytes. Two parser
 * threads turn pages into objects meanwhile. A page that does not parse
 * fails the whole LIST: the cache is never half-applied. A single item
 * the cache cannot take (enum cache_reject) is skipped, counted and
 * logged with its key, and the LIST goes on: one odd object must not
 * freeze a resource.
 *
 * Bounds (config/limits.h): a page past --upstream-page-max-mib is not
 * buffered further and is fetched again with half the limit, down to one
 * item; one item alone past it is skipped when the page's metadata (which
 * the apiserver writes before the items) still tells the next page. All
 * pages together may hold --upstream-list-max-mib, and a continue token
 * may not come back within one LIST (A, B, A is a cycle): past either
 * the LIST is abandoned, retried after backoff, and the cache keeps
 * serving what it has (a cycle sets r->list_cycle until a LIST ends
 * well).
 *
 * Threads: cache_lister_list() runs in the reflector thread and owns the
 * parser and fetcher threads it starts until it returns.
 */
#ifndef CACHE_LISTER_H
#define CACHE_LISTER_H

#include <stddef.h>
#include <stdint.h>

#include "cache/obj.h"
#include "cache/pager.h"
#include "cache/resource_int.h"
#include "cache/xfer.h"

/* A continue page takes no --upstream-qps token when the page two before
 * it brought this much (the one before is still arriving when the next
 * is asked for), or when it is the LIST's second page: such requests are
 * bounded by the LIST's byte budget. After smaller pages (an upstream
 * answering with near-empty pages and new tokens) each pays, as any
 * request. */
#define CACHE_LISTER_FREE_PAGE_MIN ((size_t)64 * 1024)

/* The objects of a LIST, in the upstream's order (each a reference the
 * listing owns). */
struct cache_listing {
	struct cache_obj **objs;
	size_t n, cap;
	uint64_t rv;
	uint64_t remaining; /* a page's remainingItemCount, 0: none */
	/* objs are in key order, each key once, as checked while they
	 * were made; false: not known (cache_store_sort() finds out) */
	bool sorted;
};

/* A full paged LIST of r into l (empty), on conn (the reflector's,
 * lent for the call). Returns REFL_OK, REFL_ERROR (l left empty; what
 * went wrong is logged and counted, r->retry_after set from a 429/503)
 * or REFL_STOP (r was asked to stop). */
int cache_lister_list(struct cache_resource *r, struct cache_xfer_conn *conn,
		      struct cache_listing *l);

/* Drop l's objects; l is left empty. */
void cache_lister_listing_free(struct cache_listing *l);

/* Pages fetched and waiting for a parser, at most: the fetcher waits
 * for room past it (lister.c says why). */
#define CACHE_LISTER_QUEUE_MAX 4
/* The most pages any LIST of this process had waiting at once (tests). */
size_t cache_lister_queue_peak(void);

#endif
