/*
 * pager: a paged LIST's requests, the next page asked for while the page
 * before it arrives (see pager.h).
 *
 * One lock guards the fetchers' states; a fetcher's transfer (its xfer
 * and page) belongs to its thread while BUSY and to whoever holds the
 * lock otherwise. The head of a page is looked for by the thread
 * receiving it, in the transfer's body callback, and at most HEAD_MAX
 * bytes in.
 */
#include "cache/pager.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache/ratelimit.h"
#include "cache/scope.h"
#include "cache/url.h"
#include "config/alloc.h"

/* bytes of a page within which its metadata must have come to fetch the
 * next page ahead; the apiserver's takes a few hundred */
#define HEAD_MAX (64 * 1024)

enum {
	F_IDLE,
	F_ASKED,
	F_BUSY,
	F_DONE
};

struct fetcher {
	struct cache_pager *p;
	struct cache_xfer_conn *conn; /* the reflector's (lent), or own */
	pthread_t thread;
	int state;		    /* locked: F_* */
	bool ahead;		    /* locked: asked by another page's head */
	struct buf url;		    /* locked: what it was asked for */
	struct cache_xfer x;	    /* see the file's header */
	struct cache_pager_page pg; /* x's page: x.body is its body */
	bool head_done; /* the page's head was looked at, or given up on */
	long code;	/* once F_DONE */
};

struct cache_pager {
	struct cache_resource *r;
	struct cache_pager_bufs bufs;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct fetcher f[2];
	int n; /* fetcher threads running: 0, 1 or 2 (2: ahead) */
	struct cache_xfer_conn own; /* the second connection */
	bool quit;		    /* locked */
	int limit;		    /* locked: see cache_pager_set */
	size_t page_max, last_page;
	bool unmetered, ahead;
};

/* The span of the top-level "metadata" value, found by a string-aware
 * scan that stops there: the apiserver writes it before "items", so this
 * reads a few hundred bytes of a page. Returns 0 or -ENOENT. */
static int find_metadata(const char *p, size_t n, size_t *start, size_t *end)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (ch == '"') {
			size_t s = ++i;
			while (i < n && p[i] != '"')
				i += p[i] == '\\' ? 2 : 1;
			if (depth != 1 || i - s != 8 ||
			    memcmp(p + s, "metadata", 8))
				continue;
			size_t j = i + 1;
			while (j < n &&
			       (p[j] == ' ' || p[j] == ':' || p[j] == '\n'))
				j++;
			if (j >= n || p[j] != '{')
				return -ENOENT;
			*start = j;
			int d = 0;
			for (; j < n; j++) {
				if (p[j] == '"') {
					for (j++; j < n && p[j] != '"';)
						j += p[j] == '\\' ? 2 : 1;
				} else if (p[j] == '{') {
					d++;
				} else if (p[j] == '}' && --d == 0) {
					*end = j + 1;
					return 0;
				}
			}
			return -ENOENT;
		}
		if (ch == '{' || ch == '[')
			depth++;
		else if (ch == '}' || ch == ']')
			depth--;
	}
	return -ENOENT;
}

int cache_pager_peek_continue(const struct buf *body, char **cont)
{
	size_t s, e;
	struct json_doc d = JSON_DOC_INIT;
	int rc = -EINVAL;
	*cont = NULL;
	if (find_metadata(body->p, body->len, &s, &e) ||
	    json_parse(&d, body->p + s, e - s, NULL, 0))
		goto out;
	rc = 0;
	int ct = json_get(&d, 0, "continue");
	if (ct > 0 && json_type(&d, ct) == JSMN_STRING &&
	    json_str_len(&d, ct)) {
		size_t n = json_str_len(&d, ct);
		*cont = xmalloc(n + 1);
		if (!*cont)
			rc = -ENOMEM;
		else
			json_str(&d, ct, *cont, n + 1);
	}
out:
	json_doc_free(&d);
	return rc;
}

static void give(struct cache_pager *p, struct buf *b)
{
	if (p->bufs.give)
		p->bufs.give(p->bufs.ctx, b);
	else
		buf_free(b);
	*b = (struct buf)BUF_INIT;
}

static size_t on_page(struct cache_xfer *x, char *data, size_t len);

/* Ask f (idle; locked) for url into pg. */
static void ask(struct fetcher *f, const char *url,
		const struct cache_pager_page *pg, bool ahead)
{
	buf_reset(&f->url);
	buf_adds(&f->url, url);
	f->pg = *pg;
	f->pg.body_over = false;
	f->x = (struct cache_xfer){ .r = f->p->r,
				    .on_data = on_page,
				    .ctx = f,
				    .continued = pg->continued,
				    .body = pg->body };
	f->head_done = f->p->n < 2; /* alone: nothing to fetch ahead */
	f->ahead = ahead;
	f->state = F_ASKED;
	pthread_cond_broadcast(&f->p->cond);
}

/* Drop f's page (locked): abort it if in flight and wait for its end. */
static void drop(struct fetcher *f)
{
	struct cache_pager *p = f->p;
	__atomic_store_n(&f->x.cancel, true, __ATOMIC_RELEASE);
	cache_xfer_conn_wake(f->conn); /* a page may wait for its first byte */
	while (f->state == F_ASKED || f->state == F_BUSY)
		pthread_cond_wait(&p->cond, &p->lock);
	if (f->state == F_DONE)
		give(p, &f->x.body);
	f->x.body = (struct buf)BUF_INIT;
	f->state = F_IDLE;
	f->ahead = false;
}

/* Called as a page's bytes arrive, in its fetcher's thread: once the
 * page's metadata is in, ask the other fetcher for the next page. */
static void on_head(struct fetcher *f)
{
	struct cache_pager *p = f->p;
	char *cont = NULL;
	if (cache_pager_peek_continue(&f->x.body, &cont)) {
		f->head_done = f->x.body.len >= HEAD_MAX;
		return; /* not all there yet */
	}
	f->head_done = true;
	if (!cont)
		return; /* the last page */
	pthread_mutex_lock(&p->lock);
	struct fetcher *o = &p->f[f == &p->f[0]];
	if (!p->quit && p->ahead && o->state == F_IDLE) {
		struct buf url = BUF_INIT;
		cache_url_list(&url, p->r->up.server, p->r->kind,
			       p->r->scope.ns, p->limit, cont);
		cache_scope_query(&p->r->scope, &url);
		struct cache_pager_page ap = { .body_max = p->page_max,
					       .continued = p->unmetered };
		if (p->bufs.take)
			ap.body = p->bufs.take(p->bufs.ctx);
		if (p->last_page)
			buf_reserve(&ap.body, p->last_page + p->last_page / 8);
		/* a page whose token names itself again is abandoned by
		 * the loop: nothing to fetch for it */
		if (buf_ok(&url) && strcmp(url.p, f->url.p))
			ask(o, url.p, &ap, true);
		else
			give(p, &ap.body);
		buf_free(&url);
	}
	pthread_mutex_unlock(&p->lock);
	free(cont);
}

/* A page's bytes, bounded by its body_max. */
static size_t on_page(struct cache_xfer *x, char *data, size_t len)
{
	struct fetcher *f = x->ctx;
	if (__atomic_load_n(&x->cancel, __ATOMIC_ACQUIRE))
		return 0; /* a page fetched ahead that is not wanted */
	size_t max = f->pg.body_max;
	if (max && x->body.len + len > max) {
		/* keep what fits: its metadata may still tell the next page */
		buf_add(&x->body, data, max - x->body.len);
		f->pg.body_over = true;
		return 0; /* ends the transfer: bounded memory */
	}
	if (buf_add(&x->body, data, len))
		return 0;
	if (!f->head_done)
		on_head(f);
	return len;
}

static void *run(void *arg)
{
	struct fetcher *f = arg;
	struct cache_pager *p = f->p;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (f->state != F_ASKED && !p->quit)
			pthread_cond_wait(&p->cond, &p->lock);
		if (f->state != F_ASKED)
			break;
		f->state = F_BUSY;
		pthread_mutex_unlock(&p->lock);
		long code = __atomic_load_n(&f->x.cancel, __ATOMIC_ACQUIRE) ?
				    -1 :
				    cache_xfer_get(&f->x, f->conn, f->url.p);
		pthread_mutex_lock(&p->lock);
		f->code = code;
		f->state = F_DONE;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct cache_pager *cache_pager_new(struct cache_resource *r,
				    struct cache_xfer_conn *conn,
				    const struct cache_pager_bufs *bufs)
{
	struct cache_pager *p = xcalloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->r = r;
	if (bufs)
		p->bufs = *bufs;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	char err[256];
	p->f[0].conn = conn;
	if (!cache_xfer_conn_open(&p->own, r, err, sizeof(err)))
		p->f[1].conn = &p->own;
	for (int i = 0; i < 2 && p->f[i].conn; i++) {
		p->f[i].p = p;
		if (pthread_create(&p->f[i].thread, NULL, run, &p->f[i]))
			break;
		p->n++;
	}
	return p;
}

void cache_pager_set(struct cache_pager *p, int next_limit, size_t page_max,
		     size_t last_page, bool unmetered, bool ahead)
{
	if (!p->n)
		return;
	pthread_mutex_lock(&p->lock);
	p->limit = next_limit;
	p->page_max = page_max;
	p->last_page = last_page;
	p->unmetered = unmetered;
	p->ahead = ahead;
	pthread_mutex_unlock(&p->lock);
}

/* f's answer (done; locked) into pg. */
static long hand_over(struct fetcher *f, struct cache_pager_page *pg)
{
	pg->body = f->x.body;
	pg->body_over = f->pg.body_over;
	pg->retry_after = f->x.retry_after;
	pg->c = f->x.c;
	f->x.body = (struct buf)BUF_INIT;
	return f->code;
}

long cache_pager_get(struct cache_pager *p, const char *url,
		     struct cache_pager_page *pg)
{
	if (!p->n) { /* alone: in this thread */
		ask(&p->f[0], url, pg, false);
		p->f[0].code = cache_xfer_get(&p->f[0].x, p->f[0].conn, url);
		p->f[0].state = F_IDLE;
		return hand_over(&p->f[0], pg);
	}
	pthread_mutex_lock(&p->lock);
	struct fetcher *use = NULL;
	for (int i = 0; i < p->n && !use; i++) {
		struct fetcher *f = &p->f[i];
		if (f->ahead && f->state != F_IDLE &&
		    pg->body_max == p->page_max && !strcmp(f->url.p, url))
			use = f;
	}
	/* A page asked for ahead, on the word of the page before the one
	 * just handed over, may have gone out free of --upstream-qps while
	 * the loop, which has since seen that page small, says it pays: it
	 * pays on arrival, so the bucket holds whatever the timing. */
	bool owed = false;
	if (use) {
		/* the page comes in its own buffer; the other fetcher may
		 * already hold the next page, asked by this one's head */
		give(p, &pg->body);
		owed = use->x.continued && !pg->continued;
	} else {
		/* not the page fetched ahead: drop that, ask for this */
		for (int i = 0; i < p->n; i++)
			if (p->f[i].state != F_IDLE)
				drop(&p->f[i]);
		use = &p->f[0];
		ask(use, url, pg, false);
	}
	while (use->state != F_DONE)
		pthread_cond_wait(&p->cond, &p->lock);
	long code = hand_over(use, pg);
	use->state = F_IDLE;
	use->ahead = false;
	pthread_mutex_unlock(&p->lock);
	if (owed) /* a stop ends the wait; the loop sees it next */
		cache_ratelimit_take(p->r->up.limit, &p->r->stop);
	return code;
}

void cache_pager_free(struct cache_pager *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	for (int i = 0; i < p->n; i++)
		if (p->f[i].state != F_IDLE)
			drop(&p->f[i]);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->n; i++)
		pthread_join(p->f[i].thread, NULL);
	for (int i = 0; i < 2; i++)
		buf_free(&p->f[i].url);
	cache_xfer_conn_close(&p->own);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}
