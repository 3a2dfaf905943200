/*
 * ahead: List items indented ahead of their sender (see ahead.h).
 *
 * A body's ranges are numbered in order and cut as they are claimed,
 * each from the end of the one before: whole items (a ",{" piece and the
 * item's bytes) up to about RANGE_IN bytes of input. The sender's range
 * is the next it will reach; a helper claims the next unclaimed range
 * while fewer than AHEAD are claimed past it. A sender that reaches a
 * range still being made makes the next one meanwhile (one more than
 * AHEAD), instead of waiting: the indenting is shared whatever the
 * threads' speeds. A range lives in the slot of its number modulo RING:
 * those claimed past the sender, and the one being sent.
 */
#include "proxy/ahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/log.h"
#include "proxy/pretty.h"

/* Input bytes a range, at least (about 50 us of indenting). */
#define RANGE_IN (64 * 1024)
/* Ranges claimed past the sender's, at most, per body. */
#define AHEAD 2
#define RING (AHEAD + 1)
/* Helper threads, at most. */
#define HELPERS_MAX 3

enum state {
	R_SENDER, /* the sender's to indent (or no longer in use) */
	R_MAKING, /* a helper indents it */
	R_MADE,	  /* out[0, len) */
	R_FAILED, /* out of memory, or not ending at an item's end */
};

struct range {
	size_t from, to; /* pieces */
	enum state state;
	char *out;
	size_t len;
};

struct proxy_ahead {
	struct proxy_ahead_pool *pool;
	const struct MHD_IoVec *v;
	size_t n;
	uint32_t *const *kept;
	size_t kcap;
	/* the rest locked */
	struct range r[RING];
	size_t cut; /* where the next range to claim starts; SIZE_MAX: none */
	uint64_t claimed; /* ranges claimed so far */
	uint64_t sender;  /* the next range the sender reaches */
	int making;	  /* ranges its helpers are making */
	bool queued, closed;
	struct proxy_ahead *qnext;
};

struct proxy_ahead_pool {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a body with a range to make, or stop */
	pthread_cond_t made; /* a range made (or failed) */
	struct proxy_ahead *head, **tail; /* bodies with a range to make */
	bool stop;
	int nthreads;
	pthread_t threads[HELPERS_MAX];
};

/* Piece i opens a List item after the first: a ",{" piece, then the
 * item's bytes. */
static bool item_at(const struct proxy_ahead *a, size_t i)
{
	return i + 1 < a->n && i + 1 < a->kcap && a->kept[i + 1] &&
	       !(i < a->kcap && a->kept[i]);
}

/* Whether a helper may claim a range of a now (locked). */
static bool claimable(const struct proxy_ahead *a)
{
	return !a->closed && a->cut != SIZE_MAX &&
	       a->claimed - a->sender < AHEAD;
}

/* Claim the next range (locked; a->cut is where an item opens): its
 * pieces cut from a->cut on. */
static struct range *claim(struct proxy_ahead *a, enum state state)
{
	struct range *r = &a->r[a->claimed++ % RING];
	size_t i = a->cut, in = 0;
	while (in < RANGE_IN && item_at(a, i)) {
		in += a->v[i].iov_len + a->v[i + 1].iov_len;
		i += 2;
	}
	*r = (struct range){ .from = a->cut, .to = i, .state = state };
	a->cut = item_at(a, i) ? i : SIZE_MAX;
	return r;
}

static void enqueue(struct proxy_ahead *a)
{
	struct proxy_ahead_pool *p = a->pool;
	if (a->queued || !claimable(a))
		return;
	a->queued = true;
	a->qnext = NULL;
	*p->tail = a;
	p->tail = &a->qnext;
	pthread_cond_signal(&p->work);
}

static void dequeue(struct proxy_ahead *a)
{
	struct proxy_ahead_pool *p = a->pool;
	if (!a->queued)
		return;
	struct proxy_ahead **pp = &p->head;
	while (*pp != a)
		pp = &(*pp)->qnext;
	*pp = a->qnext;
	if (p->tail == &a->qnext)
		p->tail = pp;
	a->queued = false;
}

/* Indent pieces [from, to) of a from an item's end into r->out, keeping
 * each item's indented length as the sender would; false when out of
 * memory or past PROXY_AHEAD_OUT_MAX, or when the pieces did not end where an item
 * does. */
static bool make(const struct proxy_ahead *a, struct range *r)
{
	struct proxy_pretty_indenter st = { .depth = 2 };
	size_t in = 0;
	for (size_t i = r->from; i < r->to; i++)
		in += a->v[i].iov_len;
	size_t cap = 3 * in + 4096, max = PROXY_AHEAD_OUT_MAX(in), w = 0;
	char *out = xmalloc(cap);
	if (!out)
		return false;
	for (size_t i = r->from; i < r->to; i++) {
		const char *p = a->v[i].iov_base;
		size_t n = a->v[i].iov_len, piece = 0;
		uint32_t *slot = i < a->kcap ? a->kept[i] : NULL;
		bool item = slot && proxy_pretty_at_item(&st, true);
		for (;;) {
			size_t used;
			size_t k = proxy_pretty_indent_step(&st, p, n, &used,
							    out + w, cap - w);
			w += k;
			piece += k;
			p += used;
			n -= used;
			if (!n && w < cap)
				break; /* consumed, nothing pending */
			/* else out is full: twice the room, up to max */
			size_t more = cap * 2 < max ? cap * 2 : max;
			char *o = more > cap ? xrealloc(out, more) : NULL;
			if (!o) {
				free(out);
				return false;
			}
			out = o;
			cap = more;
		}
		if (item && proxy_pretty_at_item(&st, false) &&
		    piece < UINT32_MAX)
			__atomic_store_n(slot, (uint32_t)piece,
					 __ATOMIC_RELAXED);
	}
	r->out = out;
	r->len = w;
	return proxy_pretty_at_item(&st, false);
}

static void *run(void *arg)
{
	struct proxy_ahead_pool *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		struct proxy_ahead *a = p->head;
		if (!claimable(a)) {
			dequeue(a);
			continue;
		}
		struct range *r = claim(a, R_MAKING);
		a->making++;
		/* the next helper takes the next body: one at a time each */
		dequeue(a);
		enqueue(a);
		pthread_mutex_unlock(&p->lock);
		bool ok = make(a, r);
		pthread_mutex_lock(&p->lock);
		r->state = ok ? R_MADE : R_FAILED;
		a->making--;
		pthread_cond_broadcast(&p->made);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct proxy_ahead_pool *proxy_ahead_pool_new(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus < 2		  ? 0 :
		   cpus - 1 > HELPERS_MAX ? HELPERS_MAX :
					    (int)cpus - 1;
	if (!want)
		return NULL;
	struct proxy_ahead_pool *p = xcalloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->made, NULL);
	p->tail = &p->head;
	while (p->nthreads < want &&
	       !pthread_create(&p->threads[p->nthreads], NULL, run, p))
		p->nthreads++;
	if (!p->nthreads) {
		log_warn("indented lists: no helper thread; each is indented "
			 "by its sender alone");
		proxy_ahead_pool_free(p);
		return NULL;
	}
	return p;
}

void proxy_ahead_pool_stop(struct proxy_ahead_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	bool was = p->stop;
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	if (was)
		return;
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
}

void proxy_ahead_pool_free(struct proxy_ahead_pool *p)
{
	if (!p)
		return;
	proxy_ahead_pool_stop(p);
	pthread_cond_destroy(&p->made);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct proxy_ahead *proxy_ahead_new(struct proxy_ahead_pool *pool,
				    const struct MHD_IoVec *v, size_t n,
				    size_t total, uint32_t *const *kept,
				    size_t kcap)
{
	if (!pool || total < PROXY_AHEAD_MIN || !kept)
		return NULL;
	size_t first = 0; /* the first item's piece */
	while (first < n && first < kcap && !kept[first])
		first++;
	struct proxy_ahead tmp = { .v = v, .n = n, .kept = kept, .kcap = kcap };
	if (first >= kcap || !item_at(&tmp, first + 1))
		return NULL; /* fewer than two items */
	struct proxy_ahead *a = xcalloc(1, sizeof(*a));
	if (!a)
		return NULL;
	*a = tmp;
	a->pool = pool;
	a->cut = first + 1;
	pthread_mutex_lock(&pool->lock);
	if (pool->stop)
		a->closed = true; /* the sender indents it all */
	enqueue(a);
	pthread_mutex_unlock(&pool->lock);
	return a;
}

bool proxy_ahead_take(struct proxy_ahead *a, size_t at, bool ready,
		      const char **out, size_t *len, size_t *next)
{
	struct proxy_ahead_pool *p = a->pool;
	bool got = false;
	pthread_mutex_lock(&p->lock);
	struct range *r = NULL;
	if (a->sender < a->claimed)
		r = &a->r[a->sender % RING];
	else if (a->cut == at)
		r = claim(a, R_SENDER); /* nobody made it: the sender will */
	if (!r || r->from != at) {
		/* before the next range, or past every range there is */
		*next = r && r->from > at			? r->from :
			!r && a->cut != SIZE_MAX && a->cut > at ? a->cut :
								  SIZE_MAX;
		pthread_mutex_unlock(&p->lock);
		return false;
	}
	while (r->state == R_MAKING) {
		/* rather than wait, make the next range too, if there is
		 * one and a slot for it (the last sent is free) */
		if (a->cut != SIZE_MAX && a->claimed - a->sender < RING) {
			struct range *o = claim(a, R_MAKING);
			pthread_mutex_unlock(&p->lock);
			bool ok = make(a, o);
			pthread_mutex_lock(&p->lock);
			o->state = ok ? R_MADE : R_FAILED;
			continue;
		}
		pthread_cond_wait(&p->made, &p->lock);
	}
	a->sender++;
	*next = r->to;
	if (r->state == R_MADE && ready) {
		*out = r->out;
		*len = r->len;
		got = true;
	} else {
		free(r->out);
		r->out = NULL;
		r->state = R_SENDER;
	}
	enqueue(a); /* room for one more ahead */
	pthread_mutex_unlock(&p->lock);
	return got;
}

void proxy_ahead_sent(struct proxy_ahead *a)
{
	struct proxy_ahead_pool *p = a->pool;
	pthread_mutex_lock(&p->lock);
	struct range *r = &a->r[(a->sender - 1) % RING];
	free(r->out);
	r->out = NULL;
	r->state = R_SENDER;
	pthread_mutex_unlock(&p->lock);
}

void proxy_ahead_free(struct proxy_ahead *a)
{
	if (!a)
		return;
	struct proxy_ahead_pool *p = a->pool;
	pthread_mutex_lock(&p->lock);
	a->closed = true;
	dequeue(a);
	while (a->making)
		pthread_cond_wait(&p->made, &p->lock);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < RING; i++)
		free(a->r[i].out);
	free(a);
}
