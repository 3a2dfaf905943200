/*
 * lister: a full paged LIST, fetched by a pager and parsed on PARSERS
 * threads while the next pages download (see lister.h).
 */
#include "cache/lister.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/scope.h"
#include "cache/shape.h"
#include "cache/url.h"
#include "config/alloc.h"
#include "config/log.h"


void cache_lister_listing_free(struct cache_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		cache_obj_put(l->objs[i]);
	free(l->objs);
	memset(l, 0, sizeof(*l));
}

/* Take the items of the array at items into l (room made for them):
 * the ones the cache cannot take are skipped, counted and logged.
 * Returns 0 or -ENOMEM. */
static int take_items(struct cache_resource *r, struct json_doc *d, int items,
		      struct cache_listing *l, unsigned *logged)
{
	char err[160];
	size_t want = l->n + (items > 0 ? (size_t)d->tok[items].size : 0);
	if (want > l->cap) {
		size_t cap = l->cap ? l->cap : 256;
		while (cap < want)
			cap *= 2;
		struct cache_obj **o = xrealloc(l->objs, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		l->objs = o;
		l->cap = cap;
	}
	size_t max = cache_resource_line_max(r);
	for (int it = json_first(d, items); it > 0;
	     it = json_next(d, items, it)) {
		size_t b, e;
		int why = CACHE_REJECT_TOO_LARGE;
		struct cache_obj *o = NULL;
		json_span(d, it, &b, &e);
		if (e - b > max) {
			snprintf(err, sizeof(err),
				 "%zu bytes, past --upstream-line-max-mib",
				 e - b);
		} else {
			alloc_expect(e - b); /* about the object's size */
			o = cache_obj_from_doc_why(r->kind, d, it,
						   r->up.strip_managed_fields,
						   err, sizeof(err), &why);
		}
		if (!o && why < 0)
			return -ENOMEM;
		if (!o) {
			cache_resource_reject(r, "list", d, it, why, err,
					      logged);
			continue;
		}
		if (!(o = cache_scope_strip(&r->scope, o)))
			return -ENOMEM;
		/* in order so far: checked now, while both are in cache */
		if (l->n && l->sorted) {
			const struct cache_obj *p = l->objs[l->n - 1];
			l->sorted = cache_obj_keycmp(p->ns, p->name, o->ns,
						     o->name) < 0;
		}
		l->objs[l->n++] = o;
	}
	return 0;
}

/* Take one page: its items into l, its continue token into cont. */
static int take_page(struct cache_resource *r, const struct buf *body,
		     struct json_doc *d, struct cache_listing *l, char **cont,
		     bool first, unsigned *logged)
{
	char err[160];
	if (json_parse_shaped(d, body->p, body->len, cache_shape_list(r->shape),
			      err, sizeof(err))) {
		log_warn("%s: list: malformed page: %s", r->kind->resource,
			 err);
		cache_resource_stat_inc(&r->stats.malformed);
		return -EINVAL;
	}
	int meta = json_get(d, 0, "metadata");
	int items = json_get(d, 0, "items");
	int rvt = meta > 0 ? json_get(d, meta, "resourceVersion") : -1;
	uint64_t rv;
	if (rvt < 0 || json_u64(d, rvt, &rv) ||
	    (items > 0 && json_type(d, items) != JSMN_ARRAY)) {
		log_warn("%s: list: page has no resourceVersion or items",
			 r->kind->resource);
		cache_resource_stat_inc(&r->stats.malformed);
		return -EINVAL;
	}
	if (first)
		l->rv = rv;
	int rem = meta > 0 ? json_get(d, meta, "remainingItemCount") : -1;
	if (rem < 0 || json_u64(d, rem, &l->remaining))
		l->remaining = 0;
	if (take_items(r, d, items, l, logged))
		return -ENOMEM;
	free(*cont);
	*cont = NULL;
	int ct = meta > 0 ? json_get(d, meta, "continue") : -1;
	if (ct > 0 && json_type(d, ct) == JSMN_STRING) {
		size_t n = json_str_len(d, ct);
		if (n) {
			*cont = xmalloc(n + 1);
			if (!*cont)
				return -ENOMEM;
			json_str(d, ct, *cont, n + 1);
		}
	}
	return 0;
}

/*
 * Pages are parsed on PARSERS threads while the next one downloads: the
 * fetcher only peeks at each page's continue token. Each page keeps its
 * own objects; they are joined in page order at the end, so the list
 * keeps the upstream's order whichever thread parsed what. Either side
 * failing ends the LIST.
 */
#define PARSERS 2

struct page {
	struct page *next; /* the queue, then the done list */
	size_t seq;
	struct buf body;
	struct cache_listing objs; /* this page's objects */
};

/* Pages waiting for a parser, at most: a fetcher that would queue
 * more waits for a parser to take one. Parsing is slower than a local
 * upstream sends; without a bound the queue grew to dozens of pages in
 * a 100k-pod LIST, each a buffer of fresh memory (a third of the
 * fetchers' time went to its page faults). */
#define QUEUE_MAX CACHE_LISTER_QUEUE_MAX
static size_t queue_peak; /* atomic: cache_lister_queue_peak() */

size_t cache_lister_queue_peak(void)
{
	return __atomic_load_n(&queue_peak, __ATOMIC_RELAXED);
}
/* page buffers kept for reuse: as many as can be in use at once (the
 * queue, one for each parser, the page being fetched and the one asked
 * for ahead), so that a LIST's pages all reuse a few buffers */
#define SPARE_BUFS (QUEUE_MAX + PARSERS + 2)

struct pipeline {
	struct cache_resource *r;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct page *head, *tail; /* locked: waiting to be parsed */
	size_t queued;		  /* locked: how many */
	pthread_cond_t room;	  /* a page was taken from the queue */
	struct page **done;	  /* locked: parsed, by seq */
	size_t ndone_cap;
	bool closed;	       /* locked: no more pages will come */
	bool failed;	       /* locked: a page was refused */
	unsigned logged;       /* atomic: items skipped with a warning */
	uint64_t rv;	       /* locked: of the first page */
	size_t prefix;	       /* locked: pages 0..prefix-1 are all parsed */
	uint64_t prefix_items; /* locked: their objects */
	/* locked: parsed pages' buffers, for the next pages to reuse: a
	 * page's bytes in memory already touched, not in fresh zeroed pages
	 * (a buffer past glibc's mmap threshold is a mapping of its own) */
	struct buf spare[SPARE_BUFS];
	int nspare;
};

/* The pager's page buffers: the pipeline's spares. */
static struct buf take_spare(void *ctx)
{
	struct pipeline *pl = ctx;
	struct buf b = BUF_INIT;
	pthread_mutex_lock(&pl->lock);
	if (pl->nspare)
		b = pl->spare[--pl->nspare];
	pthread_mutex_unlock(&pl->lock);
	return b;
}

static void give_spare(void *ctx, struct buf *b)
{
	struct pipeline *pl = ctx;
	pthread_mutex_lock(&pl->lock);
	if (!pl->closed && pl->nspare < SPARE_BUFS && !b->failed) {
		buf_reset(b);
		pl->spare[pl->nspare++] = *b;
	} else {
		buf_free(b);
	}
	pthread_mutex_unlock(&pl->lock);
	*b = (struct buf)BUF_INIT;
}

static void *parse_pages(void *arg)
{
	struct pipeline *pl = arg;
	struct json_doc d = JSON_DOC_INIT;
	pthread_mutex_lock(&pl->lock);
	for (;;) {
		while (!pl->head && !pl->closed)
			pthread_cond_wait(&pl->cond, &pl->lock);
		struct page *pg = pl->head;
		if (!pg)
			break;
		pl->head = pg->next;
		if (!pl->head)
			pl->tail = NULL;
		pl->queued--;
		pthread_cond_signal(&pl->room);
		bool skip = pl->failed;
		pthread_mutex_unlock(&pl->lock);
		char *cont = NULL;
		pg->objs.sorted = true; /* until two objects say otherwise */
		int rc = skip ? 0 :
				take_page(pl->r, &pg->body, &d, &pg->objs,
					  &cont, true, &pl->logged);
		free(cont);
		give_spare(pl, &pg->body);
		pthread_mutex_lock(&pl->lock);
		if (rc || skip) {
			pl->failed = true;
			cache_lister_listing_free(&pg->objs);
			free(pg);
			continue;
		}
		if (pg->seq == 0)
			pl->rv = pg->objs.rv;
		pl->done[pg->seq] = pg;
		/* progress: objects so far, and the total that the last
		 * page of the parsed prefix announced (pages are parsed out
		 * of order, and a page's remainingItemCount counts from the
		 * end of it) */
		struct cache_resource_stats *st = &pl->r->stats;
		__atomic_add_fetch(&st->list_objects, pg->objs.n,
				   __ATOMIC_RELAXED);
		while (pl->prefix < pl->ndone_cap && pl->done[pl->prefix]) {
			const struct cache_listing *o =
				&pl->done[pl->prefix]->objs;
			pl->prefix_items += o->n;
			if (o->remaining)
				__atomic_store_n(&st->list_expected,
						 pl->prefix_items +
							 o->remaining,
						 __ATOMIC_RELAXED);
			pl->prefix++;
		}
	}
	pthread_mutex_unlock(&pl->lock);
	json_doc_free(&d);
	return NULL;
}

/* Join the parsed pages into l, in page order. */
static int join_pages(struct pipeline *pl, size_t npages,
		      struct cache_listing *l)
{
	size_t total = 0;
	for (size_t i = 0; i < npages; i++)
		total += pl->done[i] ? pl->done[i]->objs.n : 0;
	l->objs = xmalloc((total ? total : 1) * sizeof(*l->objs));
	if (!l->objs)
		return -ENOMEM;
	l->cap = total;
	l->rv = pl->rv;
	l->sorted = true;
	for (size_t i = 0; i < npages; i++) {
		struct page *pg = pl->done[i];
		if (!pg->objs.n)
			continue; /* an empty page has no array at all */
		/* in order: each page, and each page after the one before */
		if (l->sorted && l->n) {
			const struct cache_obj *p = l->objs[l->n - 1],
					       *o = pg->objs.objs[0];
			l->sorted = cache_obj_keycmp(p->ns, p->name, o->ns,
						     o->name) < 0;
		}
		l->sorted = l->sorted && pg->objs.sorted;
		memcpy(l->objs + l->n, pg->objs.objs,
		       pg->objs.n * sizeof(*l->objs));
		l->n += pg->objs.n;
		pg->objs.n = 0; /* moved */
	}
	return 0;
}

/* Give up a LIST whose pages together pass list_max; the cache keeps
 * what it has. */
static void list_too_large(struct cache_resource *r, size_t list_max)
{
	log_error("%s: list: more than %zu bytes in all pages "
		  "(--upstream-list-max-mib): abandoned, the cache keeps its "
		  "objects",
		  r->kind->resource, list_max);
	cache_resource_stat_inc(&r->stats.malformed);
	__atomic_store_n(&r->list_over, true, __ATOMIC_RELAXED);
}

static void set_stat(uint64_t *s, uint64_t v)
{
	__atomic_store_n(s, v, __ATOMIC_RELAXED);
}

static uint64_t get_stat(const uint64_t *s)
{
	return __atomic_load_n(s, __ATOMIC_RELAXED);
}

/* One line of a full LIST's progress: objects so far, the expected
 * total from remainingItemCount, MB/s, and the time left at that rate. */
static void log_progress(struct cache_resource *r, bool done)
{
	const struct cache_resource_stats *st = &r->stats;
	uint64_t got = get_stat(&st->list_objects),
		 want = get_stat(&st->list_expected),
		 bytes = get_stat(&st->list_bytes);
	int64_t ms = cache_rvclock_now_ms() -
		     (int64_t)get_stat(&st->list_started_ms);
	double s = ms > 0 ? ms / 1e3 : 1e-3;
	double mbs = bytes / 1e6 / s;
	if (done) {
		log_info(
			"%s: list: %llu objects, %.1f MB in %.1f s (%.1f MB/s)",
			r->kind->resource, (unsigned long long)got, bytes / 1e6,
			s, mbs);
		return;
	}
	if (want > got && got) {
		double eta = (double)(want - got) * s / (double)got;
		log_info("%s: list: %llu of %llu objects (remainingItemCount), "
			 "%.1f MB so far, %.1f MB/s, ETA %.0f s",
			 r->kind->resource, (unsigned long long)got,
			 (unsigned long long)want, bytes / 1e6, mbs, eta);
	} else {
		log_info("%s: list: %llu objects so far (total unknown), "
			 "%.1f MB, %.1f MB/s",
			 r->kind->resource, (unsigned long long)got,
			 bytes / 1e6, mbs);
	}
}

/* The limit of the page after one asked with limit: after a page too
 * large halved it, it doubles back up to the page size. */
static int grown(int limit, int page_size)
{
	if (limit >= page_size)
		return limit;
	return limit * 2 < page_size ? limit * 2 : page_size;
}

/* One LIST under way: the request to make next and what the pages so
 * far told. */
struct list_run {
	struct cache_resource *r;
	struct pipeline pl;
	pthread_t parser[PARSERS];
	int nparsers;
	struct cache_pager *pager;
	struct cache_pager_page pg; /* the page asked for, then its answer */
	struct buf url;
	char *cont;  /* the continue token of the next request */
	char *asked; /* the continue token of this request */
	/* hashes of the continue tokens the pages so far told, open
	 * addressing (0: empty), at most half full */
	uint64_t *seen;
	size_t nseen, seen_cap;
	int limit;
	size_t page_max, list_max;
	size_t taken; /* bytes of the pages so far */
	size_t npages, last_page;
	bool free_next; /* the next page takes no --upstream-qps token */
	int64_t said;	/* monotonic ms of the last progress line */
};

/* Start the parsers and the pager, and the LIST's statistics. Returns 0
 * or -ENOMEM. */
static int run_open(struct list_run *lr, struct cache_resource *r,
		    struct cache_xfer_conn *conn)
{
	*lr = (struct list_run){
		.r = r,
		.pl = { .r = r },
		.url = BUF_INIT,
		.limit = r->up.page_size > 0 ? r->up.page_size : 500,
		.page_max = cache_resource_page_max(r),
		.list_max = cache_resource_list_max(r),
	};
	pthread_mutex_init(&lr->pl.lock, NULL);
	pthread_cond_init(&lr->pl.cond, NULL);
	pthread_cond_init(&lr->pl.room, NULL);
	while (lr->nparsers < PARSERS &&
	       !pthread_create(&lr->parser[lr->nparsers], NULL, parse_pages,
			       &lr->pl))
		lr->nparsers++;
	if (!lr->nparsers)
		return -ENOMEM;
	struct cache_pager_bufs spares = { &lr->pl, take_spare, give_spare };
	lr->pager = cache_pager_new(r, conn, &spares);
	if (!lr->pager)
		return -ENOMEM;
	struct cache_resource_stats *st = &r->stats;
	cache_resource_stat_inc(&st->lists);
	int64_t began = cache_rvclock_now_ms();
	lr->said = began;
	set_stat(&st->list_objects, 0);
	set_stat(&st->list_expected, 0);
	set_stat(&st->list_bytes, 0);
	set_stat(&st->list_started_ms, (uint64_t)began);
	set_stat(&st->list_active, 1);
	return 0;
}

/* Ask for the next page (lr->cont, with lr->limit) within the LIST's
 * byte budget: *code is the HTTP status or -1. Returns 0, or -1 when the
 * request cannot be made (the LIST is abandoned). */
static int ask_page(struct list_run *lr, long *code)
{
	struct cache_resource *r = lr->r;
	buf_reset(&lr->url);
	cache_url_list(&lr->url, r->up.server, r->kind, r->scope.ns, lr->limit,
		       lr->cont);
	cache_scope_query(&r->scope, &lr->url);
	free(lr->asked);
	lr->asked = lr->cont;
	lr->cont = NULL;
	if (!buf_ok(&lr->url))
		return -1;
	if (lr->taken >= lr->list_max) {
		list_too_large(r, lr->list_max);
		return -1;
	}
	struct cache_pager_page *pg = &lr->pg;
	buf_free(&pg->body);
	pg->body = take_spare(&lr->pl);
	/* decided while the page before arrived, as for the one the pager
	 * fetched ahead: the same either way */
	pg->continued = lr->asked != NULL && lr->free_next;
	size_t room = lr->list_max - lr->taken;
	pg->body_max = lr->page_max < room ? lr->page_max : room;
	/* pages are alike: room for the last one's size saves the buffer's
	 * doublings (copies and page faults) */
	if (lr->last_page)
		buf_reserve(&pg->body, lr->last_page + lr->last_page / 8);
	/* the page after this one takes no token when this one is large
	 * (CACHE_LISTER_FREE_PAGE_MIN); this one is still arriving, so the
	 * last page completed stands for it, and the LIST's second page is
	 * free once */
	lr->free_next =
		!lr->npages || lr->last_page >= CACHE_LISTER_FREE_PAGE_MIN;
	/* the next page: the limit grows back after a halving; fetched
	 * ahead only if this page and a whole next one fit the LIST's byte
	 * budget (taken is below list_max here; page_max is MiBs from a
	 * flag, so twice it cannot wrap) */
	int next = grown(lr->limit, r->up.page_size);
	bool ahead = room >= 2 * lr->page_max + 256;
	cache_pager_set(lr->pager, next, lr->page_max, lr->last_page,
			lr->free_next, ahead);
	*code = cache_pager_get(lr->pager, lr->url.p, pg);
	lr->last_page = pg->body.len;
	return 0;
}

/* A page past its byte budget (not stopping). Returns 0 to go on with
 * the same page smaller (in lr->cont), 1 when that page is one item
 * already, -1 to abandon the LIST. */
static int page_too_large(struct list_run *lr)
{
	struct cache_resource *r = lr->r;
	if (lr->pg.body_max < lr->page_max) {
		list_too_large(r, lr->list_max);
		return -1;
	}
	if (lr->limit > 1) {
		buf_free(&lr->pg.body);
		lr->last_page = 0;
		lr->limit /= 2;
		log_warn("%s: list: page past %zu bytes "
			 "(--upstream-page-max-mib): fetching it again "
			 "%d item(s) at a time",
			 r->kind->resource, lr->page_max, lr->limit);
		lr->cont = lr->asked; /* the same page, smaller */
		lr->asked = NULL;
		return 0;
	}
	return 1; /* one item alone */
}

static uint64_t token_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h ? h : 1;
}

/* Note lr->cont, a continue token a page told. Returns 0 when it is new
 * in this LIST, 1 when a page told it before: the pages go round in a
 * cycle (A, B, A...) that would only end at the byte budget, hours
 * later. -ENOMEM. */
static int token_seen(struct list_run *lr)
{
	if (2 * (lr->nseen + 1) > lr->seen_cap) {
		size_t nc = lr->seen_cap ? 2 * lr->seen_cap : 64;
		uint64_t *n = xcalloc(nc, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < lr->seen_cap; i++)
			for (size_t j = lr->seen[i] & (nc - 1); lr->seen[i];
			     j = (j + 1) & (nc - 1))
				if (!n[j]) {
					n[j] = lr->seen[i];
					break;
				}
		free(lr->seen);
		lr->seen = n;
		lr->seen_cap = nc;
	}
	uint64_t h = token_hash(lr->cont);
	size_t j = h & (lr->seen_cap - 1);
	for (; lr->seen[j]; j = (j + 1) & (lr->seen_cap - 1))
		if (lr->seen[j] == h)
			return 1;
	lr->seen[j] = h;
	lr->nseen++;
	return 0;
}

/* A page told a continue token told before: abandon the LIST. */
static void token_cycle(struct cache_resource *r)
{
	log_error("%s: list: the upstream sent a continue token it sent "
		  "before in this LIST (its pages go round in a cycle): "
		  "abandoned, the cache keeps its objects",
		  r->kind->resource);
	cache_resource_stat_inc(&r->stats.malformed);
	__atomic_store_n(&r->list_cycle, true, __ATOMIC_RELAXED);
}

/* One item alone past the byte budget: skip it if the page's metadata,
 * written first, says where the next one is. body holds what fitted.
 * Returns 0 to go on, -1 to abandon the LIST. */
static int skip_large_item(struct list_run *lr, struct buf *body)
{
	struct cache_resource *r = lr->r;
	int more = cache_pager_peek_continue(body, &lr->cont);
	int seen = !more && lr->cont ? token_seen(lr) : 0;
	if (seen > 0) {
		token_cycle(r);
		return -1;
	}
	if (more || !lr->cont || seen) {
		log_error("%s: list: one item is past %zu bytes "
			  "(--upstream-page-max-mib) and the page does "
			  "not tell the next one: abandoned",
			  r->kind->resource, lr->page_max);
		cache_resource_stat_inc(&r->stats.malformed);
		return -1;
	}
	cache_resource_stat_inc(&r->stats.rejected_by[CACHE_REJECT_TOO_LARGE]);
	log_warn("%s: list: skipping an item past %zu bytes "
		 "(--upstream-page-max-mib)",
		 r->kind->resource, lr->page_max);
	lr->taken += lr->page_max;
	lr->last_page = 0;
	return 0;
}

static void log_page_times(struct list_run *lr)
{
	if (!log_enabled(3) || !lr->pg.c)
		return;
	double total = 0, start = 0;
	curl_easy_getinfo(lr->pg.c, CURLINFO_TOTAL_TIME, &total);
	curl_easy_getinfo(lr->pg.c, CURLINFO_STARTTRANSFER_TIME, &start);
	log_v(3,
	      "%s: list page %zu: %zu bytes, first byte %.1f ms, all %.1f ms",
	      lr->r->kind->resource, lr->npages, lr->pg.body.len, start * 1e3,
	      total * 1e3);
}

/* Check a page's answer and read its continue token into lr->cont.
 * Returns 0, or -1 to abandon the LIST (logged and counted). */
static int check_page(struct list_run *lr, long code)
{
	struct cache_resource *r = lr->r;
	if (code != 200) {
		if (code > 0)
			cache_resource_log_status(r, "list", code,
						  &lr->pg.body);
		if (code < 0 || code == 429 || code >= 500)
			cache_resource_mark_failing(r);
		r->retry_after = lr->pg.retry_after;
		return -1;
	}
	if (cache_pager_peek_continue(&lr->pg.body, &lr->cont)) {
		log_warn("%s: list: malformed page: no metadata",
			 r->kind->resource);
		cache_resource_stat_inc(&r->stats.malformed);
		return -1;
	}
	int seen = lr->cont ? token_seen(lr) : 0;
	if (seen > 0)
		token_cycle(r);
	return seen ? -1 : 0;
}

/* Count a good page's bytes, and say how the LIST goes now and then. */
static void note_page(struct list_run *lr)
{
	struct cache_resource *r = lr->r;
	size_t len = lr->pg.body.len;
	/* a page costs its bytes and some bookkeeping, so that a chain of
	 * empty pages is bounded too */
	lr->taken += len + 256;
	set_stat(&r->stats.list_bytes, get_stat(&r->stats.list_bytes) + len);
	int64_t now = cache_rvclock_now_ms();
	int every = r->up.progress_interval ? r->up.progress_interval : 5;
	if (now - lr->said >= every * 1000L) {
		log_progress(r, false);
		lr->said = now;
	}
	lr->limit = grown(lr->limit, r->up.page_size);
}

/* Hand a good page to the parsers. Returns 0, or -1 when out of memory
 * or a parser refused a page before. */
static int queue_page(struct list_run *lr)
{
	struct pipeline *pl = &lr->pl;
	struct page *pg = xcalloc(1, sizeof(*pg));
	pthread_mutex_lock(&pl->lock);
	if (pg && lr->npages == pl->ndone_cap) {
		size_t ncap = pl->ndone_cap ? pl->ndone_cap * 2 : 64;
		struct page **nd = xrealloc(pl->done, ncap * sizeof(*nd));
		if (nd) {
			memset(nd + pl->ndone_cap, 0,
			       (ncap - pl->ndone_cap) * sizeof(*nd));
			pl->done = nd;
			pl->ndone_cap = ncap;
		}
	}
	bool ok = pg && lr->npages < pl->ndone_cap && !pl->failed;
	if (ok) {
		pg->body = lr->pg.body; /* the parser owns the bytes now */
		lr->pg.body = (struct buf)BUF_INIT;
		pg->seq = lr->npages++;
		if (pl->tail)
			pl->tail->next = pg;
		else
			pl->head = pg;
		pl->tail = pg;
		pl->queued++;
		if (pl->queued > cache_lister_queue_peak())
			__atomic_store_n(&queue_peak, pl->queued,
					 __ATOMIC_RELAXED);
		pthread_cond_signal(&pl->cond);
		/* the parsers always take the next page: this wait ends */
		while (pl->queued >= QUEUE_MAX && !pl->failed)
			pthread_cond_wait(&pl->room, &pl->lock);
	}
	pthread_mutex_unlock(&pl->lock);
	if (!ok)
		free(pg);
	return ok ? 0 : -1;
}

/* Fetch pages until the last one. Returns REFL_OK, REFL_ERROR or
 * REFL_STOP. */
static int fetch_pages(struct list_run *lr)
{
	struct cache_resource *r = lr->r;
	/* for (;;), not do-while: a retry of the first page has no
	 * continue token, and must not end the loop */
	for (;;) {
		long code;
		if (ask_page(lr, &code))
			return REFL_ERROR;
		if (lr->pg.body_over && !cache_resource_stopping(r)) {
			int rc = page_too_large(lr);
			if (rc > 0) {
				struct buf body = lr->pg.body;
				lr->pg.body = (struct buf)BUF_INIT;
				rc = skip_large_item(lr, &body);
				buf_free(&body);
			}
			if (rc)
				return REFL_ERROR;
			continue;
		}
		log_page_times(lr);
		if (cache_resource_stopping(r))
			return REFL_STOP;
		if (check_page(lr, code))
			return REFL_ERROR;
		note_page(lr);
		if (queue_page(lr))
			return REFL_ERROR;
		if (!lr->cont)
			return REFL_OK;
	}
}

/* Stop the pager and the parsers, join the pages into l when result is
 * REFL_OK, and free the rest. Returns the LIST's result. */
static int run_close(struct list_run *lr, int result, struct cache_listing *l)
{
	struct pipeline *pl = &lr->pl;
	struct cache_resource *r = lr->r;
	cache_pager_free(lr->pager); /* before the spares it gives back go */
	pthread_mutex_lock(&pl->lock);
	pl->closed = true;
	if (result != REFL_OK)
		pl->failed = true; /* drop what is queued */
	pthread_cond_broadcast(&pl->cond);
	/* no page is fetched any more: the spares go now, not after the
	 * last page is parsed (give_spare() frees the rest as they come) */
	while (pl->nspare)
		buf_free(&pl->spare[--pl->nspare]);
	pthread_mutex_unlock(&pl->lock);
	for (int i = 0; i < lr->nparsers; i++)
		pthread_join(lr->parser[i], NULL);
	if (result == REFL_OK && (pl->failed || join_pages(pl, lr->npages, l)))
		result = REFL_ERROR;
	if (lr->pager) {
		set_stat(&r->stats.list_active, 0);
		set_stat(&r->stats.list_ended_ms,
			 (uint64_t)cache_rvclock_now_ms());
		if (result == REFL_OK) {
			log_progress(r, true);
			__atomic_store_n(&r->list_over, false,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&r->list_cycle, false,
					 __ATOMIC_RELAXED);
		}
	}
	for (size_t i = 0; i < lr->npages && pl->done; i++)
		if (pl->done[i]) {
			cache_lister_listing_free(&pl->done[i]->objs);
			free(pl->done[i]);
		}
	free(pl->done);
	pthread_mutex_destroy(&pl->lock);
	pthread_cond_destroy(&pl->cond);
	pthread_cond_destroy(&pl->room);
	if (result != REFL_OK)
		cache_lister_listing_free(l);
	free(lr->cont);
	free(lr->asked);
	free(lr->seen);
	buf_free(&lr->url);
	buf_free(&lr->pg.body);
	return result;
}

int cache_lister_list(struct cache_resource *r, struct cache_xfer_conn *conn,
		      struct cache_listing *l)
{
	struct list_run lr;
	int result = REFL_ERROR;
	if (!run_open(&lr, r, conn))
		result = fetch_pages(&lr);
	return run_close(&lr, result, l);
}
