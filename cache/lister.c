/*
 * lister: a full paged LIST of one resource, fetched and parsed in a
 * pipeline (see reflector_int.h).
 *
 * The fetching thread (the reflector's) decides each request in order;
 * its pager (pager.h) has asked for the next page as soon as the page
 * before told its continue token, in its first bytes. PARSERS threads
 * turn pages into objects meanwhile. A page that does not parse fails the whole
 * LIST: the cache is never half-applied. A single item the cache cannot
 * take (enum cache_reject) is skipped, counted and logged with its key,
 * and the LIST goes on: one odd object must not freeze a resource.
 *
 * Bounds (config/limits.h): a page past --upstream-page-max-mib is not
 * buffered further and is fetched again with half the limit, down to one
 * item; one item alone past it is skipped when the page's metadata (which
 * the apiserver writes before the items) still tells the next page. All
 * pages together may hold --upstream-list-max-mib, and a continue token
 * may not repeat: past either the LIST is abandoned, retried after
 * backoff, and the cache keeps serving what it has.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/pager.h"
#include "cache/reflector_int.h"
#include "cache/scope.h"
#include "cache/shape.h"
#include "cache/url.h"
#include "config/alloc.h"
#include "config/log.h"


void cache_refl_listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		cache_obj_put(l->objs[i]);
	free(l->objs);
	memset(l, 0, sizeof(*l));
}

/* Take one page: its items into l, its continue token into cont. */
static int take_page(struct cache_resource *r, const struct buf *body,
		     struct json_doc *d, struct listing *l, char **cont,
		     bool first, unsigned *logged)
{
	char err[160];
	if (json_parse_shaped(d, body->p, body->len, cache_shape_list(r->shape),
			      err, sizeof(err))) {
		log_warn("%s: list: malformed page: %s", r->kind->resource,
			 err);
		cache_refl_stat_inc(&r->stats.malformed);
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
		cache_refl_stat_inc(&r->stats.malformed);
		return -EINVAL;
	}
	if (first)
		l->rv = rv;
	int rem = meta > 0 ? json_get(d, meta, "remainingItemCount") : -1;
	if (rem < 0 || json_u64(d, rem, &l->remaining))
		l->remaining = 0;
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
	size_t max = cache_refl_line_max(r);
	for (int it = json_first(d, items); it > 0;
	     it = json_next(d, items, it)) {
		size_t b, e;
		int why = CACHE_REJECT_TOO_LARGE;
		struct cache_obj *o = NULL;
		json_span(d, it, &b, &e);
		if (e - b > max)
			snprintf(err, sizeof(err),
				 "%zu bytes, past --upstream-line-max-mib",
				 e - b);
		else
			o = cache_obj_from_doc_why(r->kind, d, it,
						   r->up.strip_managed_fields,
						   err, sizeof(err), &why);
		if (!o && why < 0)
			return -ENOMEM;
		if (!o) {
			cache_refl_reject(r, "list", d, it, why, err, logged);
			continue;
		}
		if (!(o = cache_scope_strip(&r->scope, o)))
			return -ENOMEM;
		l->objs[l->n++] = o;
	}
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
	struct listing objs; /* this page's objects */
};

/* page buffers kept for reuse: one for each parser, one being fetched */
#define SPARE_BUFS (PARSERS + 1)

struct pipeline {
	struct cache_resource *r;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct page *head, *tail; /* locked: waiting to be parsed */
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
	if (pl->nspare < SPARE_BUFS && !b->failed) {
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
		bool skip = pl->failed;
		pthread_mutex_unlock(&pl->lock);
		char *cont = NULL;
		int rc = skip ? 0 :
				take_page(pl->r, &pg->body, &d, &pg->objs,
					  &cont, true, &pl->logged);
		free(cont);
		give_spare(pl, &pg->body);
		pthread_mutex_lock(&pl->lock);
		if (rc || skip) {
			pl->failed = true;
			cache_refl_listing_free(&pg->objs);
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
		struct cache_refl_stats *st = &pl->r->stats;
		__atomic_add_fetch(&st->list_objects, pg->objs.n,
				   __ATOMIC_RELAXED);
		while (pl->prefix < pl->ndone_cap && pl->done[pl->prefix]) {
			const struct listing *o = &pl->done[pl->prefix]->objs;
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
static int join_pages(struct pipeline *pl, size_t npages, struct listing *l)
{
	size_t total = 0;
	for (size_t i = 0; i < npages; i++)
		total += pl->done[i] ? pl->done[i]->objs.n : 0;
	l->objs = xmalloc((total ? total : 1) * sizeof(*l->objs));
	if (!l->objs)
		return -ENOMEM;
	l->cap = total;
	l->rv = pl->rv;
	for (size_t i = 0; i < npages; i++) {
		struct page *pg = pl->done[i];
		if (!pg->objs.n)
			continue; /* an empty page has no array at all */
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
	cache_refl_stat_inc(&r->stats.malformed);
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
	const struct cache_refl_stats *st = &r->stats;
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

/* A full paged LIST into l. Returns REFL_OK, REFL_ERROR or REFL_STOP. */
int cache_refl_list_all(struct cache_resource *r, CURL *c, struct listing *l)
{
	struct xfer x = { .r = r, .body = BUF_INIT };
	char *cont = NULL;
	char *asked = NULL; /* the continue token of this request */
	int limit = r->up.page_size > 0 ? r->up.page_size : 500;
	size_t page_max = cache_refl_page_max(r),
	       list_max = cache_refl_list_max(r);
	size_t taken = 0; /* bytes of the pages so far */
	struct buf url = BUF_INIT;
	int result = REFL_ERROR;
	size_t npages = 0, last_page = 0;
	struct pipeline pl = { .r = r };
	pthread_t parser[PARSERS];
	int nparsers = 0;
	struct cache_pager *pager = NULL;
	bool free_next =
		false; /* the next page takes no --upstream-qps token */
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.cond, NULL);
	while (nparsers < PARSERS &&
	       !pthread_create(&parser[nparsers], NULL, parse_pages, &pl))
		nparsers++;
	if (!nparsers)
		goto out;
	struct cache_pager_bufs spares = { &pl, take_spare, give_spare };
	pager = cache_pager_new(r, c, &spares);

	cache_refl_stat_inc(&r->stats.lists);
	int64_t began = cache_rvclock_now_ms(), said = began;
	set_stat(&r->stats.list_objects, 0);
	set_stat(&r->stats.list_expected, 0);
	set_stat(&r->stats.list_bytes, 0);
	set_stat(&r->stats.list_started_ms, (uint64_t)began);
	set_stat(&r->stats.list_active, 1);
	/* for (;;), not do-while: a retry of the first page has no
	 * continue token, and must not end the loop */
	for (;;) {
		buf_reset(&url);
		cache_url_list(&url, r->up.server, r->kind, r->scope.ns, limit,
			       cont);
		cache_scope_query(&r->scope, &url);
		free(asked);
		asked = cont;
		cont = NULL;
		if (!buf_ok(&url))
			goto out;
		x.body = take_spare(&pl);
		x.body_over = false;
		/* decided while the page before arrived, as for the one
		 * the pager fetched ahead: the same either way */
		x.continued = asked != NULL && free_next;
		if (taken >= list_max) {
			list_too_large(r, list_max);
			goto out;
		}
		x.body_max = page_max < list_max - taken ? page_max :
							   list_max - taken;
		/* pages are alike: room for the last one's size saves the
		 * buffer's doublings (copies and page faults) */
		if (last_page)
			buf_reserve(&x.body, last_page + last_page / 8);
		/* the page after this one takes no token when this one is
		 * large (REFL_FREE_PAGE_MIN); this one is still arriving,
		 * so the last page completed stands for it, and the LIST's
		 * second page is free once */
		free_next = !npages || last_page >= REFL_FREE_PAGE_MIN;
		long code;
		if (pager) {
			/* the next page: the limit grows back after a
			 * halving; fetched ahead only if this page and a
			 * whole next one fit the LIST's byte budget (taken
			 * is below list_max here; page_max is MiBs from a
			 * flag, so twice it cannot wrap) */
			int next = grown(limit, r->up.page_size);
			bool ahead = list_max - taken >= 2 * page_max + 256;
			cache_pager_set(pager, next, page_max, last_page,
					free_next, ahead);
			code = cache_pager_get(pager, url.p, &x);
		} else {
			code = cache_refl_http_get(r, c, url.p, &x);
		}
		last_page = x.body.len;
		if (x.body_over && !cache_refl_stopping(r)) {
			if (x.body_max < page_max) {
				list_too_large(r, list_max);
				goto out;
			}
			if (limit > 1) {
				limit /= 2;
				log_warn(
					"%s: list: page past %zu bytes "
					"(--upstream-page-max-mib): fetching it again "
					"%d item(s) at a time",
					r->kind->resource, page_max, limit);
				cont = asked; /* the same page, smaller */
				asked = NULL;
				buf_free(&x.body);
				last_page = 0;
				continue;
			}
			/* one item alone is too large: skip it if the page's
			 * metadata, written first, says where the next one is */
			int more = cache_pager_peek_continue(&x.body, &cont);
			buf_free(&x.body);
			last_page = 0;
			if (more || !cont || (asked && !strcmp(asked, cont))) {
				log_error(
					"%s: list: one item is past %zu bytes "
					"(--upstream-page-max-mib) and the page does "
					"not tell the next one: abandoned",
					r->kind->resource, page_max);
				cache_refl_stat_inc(&r->stats.malformed);
				goto out;
			}
			cache_refl_stat_inc(
				&r->stats.rejected_by[CACHE_REJECT_TOO_LARGE]);
			log_warn("%s: list: skipping an item past %zu bytes "
				 "(--upstream-page-max-mib)",
				 r->kind->resource, page_max);
			taken += page_max;
			continue;
		}
		if (log_enabled(3)) {
			double total = 0, start = 0;
			curl_easy_getinfo(x.c, CURLINFO_TOTAL_TIME, &total);
			curl_easy_getinfo(x.c, CURLINFO_STARTTRANSFER_TIME,
					  &start);
			log_v(3,
			      "%s: list page %zu: %zu bytes, first byte %.1f ms, all %.1f ms",
			      r->kind->resource, npages, x.body.len,
			      start * 1e3, total * 1e3);
		}
		if (cache_refl_stopping(r)) {
			result = REFL_STOP;
			goto out;
		}
		if (code != 200) {
			if (code > 0)
				cache_refl_log_status(r, "list", code, &x.body);
			if (code < 0 || code == 429 || code >= 500)
				cache_refl_mark_failing(r);
			r->retry_after = x.retry_after;
			goto out;
		}
		if (cache_pager_peek_continue(&x.body, &cont)) {
			log_warn("%s: list: malformed page: no metadata",
				 r->kind->resource);
			cache_refl_stat_inc(&r->stats.malformed);
			goto out;
		}
		if (cont && asked && !strcmp(cont, asked)) {
			log_error(
				"%s: list: the upstream sent the same continue token "
				"twice: abandoned",
				r->kind->resource);
			cache_refl_stat_inc(&r->stats.malformed);
			goto out;
		}
		/* a page costs its bytes and some bookkeeping, so that a chain
		 * of empty pages is bounded too */
		taken += x.body.len + 256;
		set_stat(&r->stats.list_bytes,
			 get_stat(&r->stats.list_bytes) + x.body.len);
		int64_t now = cache_rvclock_now_ms();
		int every =
			r->up.progress_interval ? r->up.progress_interval : 5;
		if (now - said >= every * 1000L) {
			log_progress(r, false);
			said = now;
		}
		limit = grown(limit, r->up.page_size);
		struct page *pg = xcalloc(1, sizeof(*pg));
		pthread_mutex_lock(&pl.lock);
		if (pg && npages == pl.ndone_cap) {
			size_t ncap = pl.ndone_cap ? pl.ndone_cap * 2 : 64;
			struct page **nd =
				xrealloc(pl.done, ncap * sizeof(*nd));
			if (nd) {
				memset(nd + pl.ndone_cap, 0,
				       (ncap - pl.ndone_cap) * sizeof(*nd));
				pl.done = nd;
				pl.ndone_cap = ncap;
			}
		}
		bool ok = pg && npages < pl.ndone_cap && !pl.failed;
		if (ok) {
			pg->body = x.body; /* the parser owns the bytes now */
			x.body = (struct buf)BUF_INIT;
			pg->seq = npages++;
			if (pl.tail)
				pl.tail->next = pg;
			else
				pl.head = pg;
			pl.tail = pg;
			pthread_cond_signal(&pl.cond);
		}
		pthread_mutex_unlock(&pl.lock);
		if (!ok) {
			free(pg);
			goto out;
		}
		if (!cont)
			break;
	}
	result = REFL_OK;
out:
	cache_pager_free(pager); /* before the spares it gives back go */
	pthread_mutex_lock(&pl.lock);
	pl.closed = true;
	if (result != REFL_OK)
		pl.failed = true; /* drop what is queued */
	pthread_cond_broadcast(&pl.cond);
	pthread_mutex_unlock(&pl.lock);
	for (int i = 0; i < nparsers; i++)
		pthread_join(parser[i], NULL);
	if (result == REFL_OK && (pl.failed || join_pages(&pl, npages, l)))
		result = REFL_ERROR;
	if (nparsers) {
		set_stat(&r->stats.list_active, 0);
		set_stat(&r->stats.list_ended_ms,
			 (uint64_t)cache_rvclock_now_ms());
		if (result == REFL_OK) {
			log_progress(r, true);
			__atomic_store_n(&r->list_over, false,
					 __ATOMIC_RELAXED);
		}
	}
	for (size_t i = 0; i < npages && pl.done; i++)
		if (pl.done[i]) {
			cache_refl_listing_free(&pl.done[i]->objs);
			free(pl.done[i]);
		}
	free(pl.done);
	while (pl.nspare)
		buf_free(&pl.spare[--pl.nspare]);
	pthread_mutex_destroy(&pl.lock);
	pthread_cond_destroy(&pl.cond);
	if (result != REFL_OK)
		cache_refl_listing_free(l);
	free(cont);
	free(asked);
	buf_free(&url);
	buf_free(&x.body);
	return result;
}
