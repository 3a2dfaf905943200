/*
 * pager: the upstream requests of one paged LIST, each page asked for
 * while the page before it is still arriving.
 *
 * The apiserver writes a page's metadata, with the continue token of the
 * next page, before its items. Two fetchers, each a thread with its own
 * connection, take turns: while one receives page k, the other has asked
 * for page k + 1 as soon as page k's first bytes told its token. The
 * upstream's time to the first byte of a page (an etcd range read and
 * count on a real cluster, a network round trip on any) then overlaps
 * the previous page's transfer instead of adding to it.
 *
 * The LIST loop (lister.c) still decides every request, in order, and
 * checks every answer as before: a page fetched ahead is handed to it
 * only when it asks for exactly that page's URL, and is dropped (its
 * transfer aborted) otherwise. So at most one request is in flight
 * beyond the loop's own, and an odd page (an error, a page past its
 * byte budget, a repeated token) costs one wasted request at most.
 *
 * Ownership: one pager per cache_lister_list() call, used by that
 * thread only; the pager owns its threads, its second connection, and
 * the bodies of pages not yet handed over. Without its threads, or its
 * second connection, it fetches one page after the other. A stop of the
 * resource, or a page dropped, ends its transfer at once (xfer.h).
 */
#ifndef CACHE_PAGER_H
#define CACHE_PAGER_H

#include "cache/xfer.h"

struct cache_pager;

/* Page buffers come from and go back to the caller's spares. */
struct cache_pager_bufs {
	void *ctx;
	struct buf (*take)(void *ctx); /* an empty buffer, maybe with room */
	void (*give)(void *ctx, struct buf *b); /* b is left empty */
};

/* One page asked for, and its answer. */
struct cache_pager_page {
	struct buf body; /* in: an empty buffer, maybe with room; out: the
			  * page (or a Status body) */
	size_t body_max; /* in: bytes the page may have, 0: any */
	bool continued;	 /* in: takes no --upstream-qps token */
	bool body_over;	 /* out: the page went past body_max (what fits
			  * is kept: its metadata may still tell the next
			  * page) */
	int retry_after; /* out: seconds, from a 429/503's Retry-After */
	CURL *c;	 /* out: the connection it came on, for getinfo */
};

/* A pager for r's LIST; conn is the reflector's connection, lent to the
 * first fetcher until cache_pager_free(). NULL when out of memory. */
struct cache_pager *cache_pager_new(struct cache_resource *r,
				    struct cache_xfer_conn *conn,
				    const struct cache_pager_bufs *bufs);

/* How the loop will ask for the page after the one it asks for next:
 * with next_limit in its URL and page_max as its byte budget; last_page
 * sizes its buffer; unmetered: without an --upstream-qps token (the page's
 * continued). ahead false: fetch nothing ahead (the LIST's byte budget
 * is near its end, so the loop could not take a page fetched with
 * page_max). */
void cache_pager_set(struct cache_pager *p, int next_limit, size_t page_max,
		     size_t last_page, bool unmetered, bool ahead);

/*
 * GET url (cache_xfer_get's contract) into pg. The page fetched ahead is
 * used when it was asked for url and with pg->body_max; any other one is
 * dropped.
 */
long cache_pager_get(struct cache_pager *p, const char *url,
		     struct cache_pager_page *pg);

/* Abort what is in flight, join the threads, give the buffers back.
 * NULL is fine. */
void cache_pager_free(struct cache_pager *p);

/* The continue token in a page's metadata (NULL on the last page), read
 * before the page is parsed. Returns 0, or -EINVAL while the metadata is
 * not all there or not valid, -ENOMEM. */
int cache_pager_peek_continue(const struct buf *body, char **cont);

#endif
