/*
 * history: the event ring with RCU-protected slots (see history.h).
 *
 * The writer stores a new event into slot seq & mask with
 * rcu_xchg_pointer() semantics, takes out the event cap places behind it,
 * and then advances head with release order; the event taken out is put
 * after a grace period. The ring has a power of two of slots, at least
 * cap, but never holds more than cap events: what --history says is what
 * memory holds. A reader loads the slot under rcu_read_lock() and
 * accepts it only if its seq is the one asked for, so a slot emptied or
 * reused under its feet is seen as "overwritten".
 */
#include "cache/history.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rcu.h"
#include "config/alloc.h"

struct ev_box {
	struct rcu_head rcu;
	struct cache_event ev; /* flexible array last */
};

struct cache_history {
	size_t mask;
	uint64_t cap;		     /* events kept; cap <= mask + 1 */
	struct ev_box **slots;	     /* RCU-published */
	uint64_t head;		     /* atomic; written by the writer */
	uint64_t floor;		     /* atomic; written by the writer */
	uint64_t progress;	     /* atomic; written by the writer */
	int64_t stamp_ns;	     /* writer only: cache_history_stamp() */
	pthread_mutex_t wait_lock;   /* guards waiters */
	struct cache_waiter waiters; /* list head */
};

static const char *const type_names[] = { "ADDED", "MODIFIED", "DELETED" };

const char *cache_history_ev_type_name(int type)
{
	return type >= 0 && type <= CACHE_DELETED ? type_names[type] : "ERROR";
}

struct cache_history *cache_history_new(size_t cap, uint64_t floor)
{
	size_t n = 16;
	if (cap == 0)
		cap = 1;
	while (n < cap)
		n *= 2;
	struct cache_history *h = xcalloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->slots = xcalloc(n, sizeof(*h->slots));
	if (!h->slots) {
		free(h);
		return NULL;
	}
	h->mask = n - 1;
	h->cap = cap;
	h->floor = floor;
	h->waiters.next = h->waiters.prev = &h->waiters;
	pthread_mutex_init(&h->wait_lock, NULL);
	return h;
}

static void box_free(struct ev_box *b)
{
	cache_obj_put(b->ev.obj);
	cache_obj_put(b->ev.prev);
	free(b->ev.twin);
	free(b->ev.meta);
	free(b->ev.meta_pb);
	cache_obj_put(b->ev.left);
	free(b);
}

struct cache_obj *cache_history_ev_left(struct cache_event *ev,
					const struct json_shape *shape)
{
	struct cache_obj *o = __atomic_load_n(&ev->left, __ATOMIC_ACQUIRE);
	if (o || !ev->prev)
		return o;
	if (!(o = cache_obj_with_rv(ev->prev, ev->rv, shape)))
		return NULL;
	struct cache_obj *none = NULL;
	if (__atomic_compare_exchange_n(&ev->left, &none, o, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return o;
	cache_obj_put(o); /* another watch's copy won: the same bytes */
	return none;
}

void cache_history_event_put(struct cache_event *ev)
{
	if (ev && __atomic_sub_fetch(&ev->refs, 1, __ATOMIC_ACQ_REL) == 0)
		box_free(caa_container_of(ev, struct ev_box, ev));
}

static void ev_put_rcu(struct rcu_head *head)
{
	cache_rcu_callback();
	cache_history_event_put(
		&caa_container_of(head, struct ev_box, rcu)->ev);
}

void cache_history_free(struct cache_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i <= h->mask; i++)
		if (h->slots[i])
			cache_history_event_put(&h->slots[i]->ev);
	free(h->slots);
	pthread_mutex_destroy(&h->wait_lock);
	free(h);
}

static struct ev_box *encode(int type, uint64_t rv, struct cache_obj *obj,
			     struct cache_obj *prev)
{
	static const char pre1[] = "{\"type\":\"";
	static const char pre2[] = "\",\"object\":";
	const char *name = cache_history_ev_type_name(type);
	size_t nl = strlen(name);
	size_t len = sizeof(pre1) - 1 + nl + sizeof(pre2) - 1 + obj->len + 2;
	struct ev_box *b = xmalloc(sizeof(*b) + len + 1);
	if (!b)
		return NULL;
	struct cache_event *ev = &b->ev;
	ev->refs = 1;
	ev->type = (uint8_t)type;
	ev->rv = rv;
	ev->obj = cache_obj_get(obj);
	ev->prev = prev ? cache_obj_get(prev) : NULL;
	ev->twin = ev->meta = ev->meta_pb = NULL;
	ev->left = NULL;
	ev->len = len;
	char *p = ev->line;
	memcpy(p, pre1, sizeof(pre1) - 1);
	p += sizeof(pre1) - 1;
	memcpy(p, name, nl);
	p += nl;
	memcpy(p, pre2, sizeof(pre2) - 1);
	p += sizeof(pre2) - 1;
	memcpy(p, obj->json, obj->len);
	p += obj->len;
	memcpy(p, "}\n", 3);
	return b;
}

int cache_history_add(struct cache_history *h, int type, uint64_t rv,
		      struct cache_obj *obj, struct cache_obj *prev)
{
	struct ev_box *b = encode(type, rv, obj, prev);
	if (!b)
		return -ENOMEM;
	uint64_t seq = h->head;
	b->ev.seq = seq;
	b->ev.arrived_ns = h->stamp_ns ? h->stamp_ns : cache_history_now_ns();
	struct ev_box *old = cache_rcu_xchg(&h->slots[seq & h->mask], b);
	/* With fewer events kept than slots, the one cap places behind
	 * leaves now (with as many, it was in this slot: old). */
	if (!old && h->cap <= h->mask && seq >= h->cap)
		old = cache_rcu_xchg(&h->slots[(seq - h->cap) & h->mask], NULL);
	if (old) {
		/* The ring is full: the oldest event leaves, and a watch must
		 * now start at or above its RV. */
		__atomic_store_n(&h->floor, old->ev.rv, __ATOMIC_RELEASE);
		cache_rcu_defer(&old->rcu, ev_put_rcu);
	}
	__atomic_store_n(&h->head, seq + 1, __ATOMIC_RELEASE);
	if (rv > h->progress)
		__atomic_store_n(&h->progress, rv, __ATOMIC_RELEASE);
	return 0;
}

int cache_history_append(struct cache_history *h, int type, uint64_t rv,
			 struct cache_obj *obj, struct cache_obj *prev)
{
	int rc = cache_history_add(h, type, rv, obj, prev);
	if (!rc)
		cache_history_wake_all(h);
	return rc;
}

void cache_history_stamp(struct cache_history *h, int64_t ns)
{
	h->stamp_ns = ns;
}

int64_t cache_history_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t cache_history_progress(struct cache_history *h)
{
	return __atomic_load_n(&h->progress, __ATOMIC_ACQUIRE);
}

void cache_history_set_progress(struct cache_history *h, uint64_t rv)
{
	if (rv > h->progress)
		__atomic_store_n(&h->progress, rv, __ATOMIC_RELEASE);
}

void cache_history_reset(struct cache_history *h, uint64_t floor)
{
	/* Skip a whole ring of sequence numbers: every cursor now points at
	 * an overwritten or future slot, and the old events are gone. */
	uint64_t head = h->head + h->mask + 1;
	for (size_t i = 0; i <= h->mask; i++) {
		struct ev_box *old = cache_rcu_xchg(&h->slots[i], NULL);
		if (old)
			cache_rcu_defer(&old->rcu, ev_put_rcu);
	}
	__atomic_store_n(&h->floor, floor, __ATOMIC_RELEASE);
	__atomic_store_n(&h->progress, floor, __ATOMIC_RELEASE);
	__atomic_store_n(&h->head, head, __ATOMIC_RELEASE);
	cache_history_wake_all(h);
}

uint64_t cache_history_head(struct cache_history *h)
{
	return __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
}

uint64_t cache_history_floor(struct cache_history *h)
{
	return __atomic_load_n(&h->floor, __ATOMIC_ACQUIRE);
}

int cache_history_get(struct cache_history *h, uint64_t seq,
		      struct cache_event **evp)
{
	*evp = NULL;
	uint64_t head = cache_history_head(h);
	if (seq >= head)
		return -EAGAIN;
	if (head - seq > h->cap)
		return -ERANGE;
	cache_rcu_lock();
	struct ev_box *b = cache_rcu_load(&h->slots[seq & h->mask]);
	if (b && b->ev.seq == seq)
		*evp = &b->ev;
	if (*evp)
		__atomic_add_fetch(&(*evp)->refs, 1, __ATOMIC_RELAXED);
	cache_rcu_unlock();
	return *evp ? 0 : -ERANGE;
}

int cache_history_start(struct cache_history *h, uint64_t rv, uint64_t *seq,
			uint64_t *floorp)
{
	uint64_t floor = cache_history_floor(h);
	uint64_t head = cache_history_head(h);
	*floorp = floor;
	if (rv < floor)
		return -ERANGE;
	/* Binary search for the first event above rv among those kept.
	 * Events are in RV order. A slot overwritten meanwhile reads as
	 * "older than everything", which only moves the answer later, and
	 * the caller then finds its cursor overwritten and goes to 410. */
	uint64_t lo = head > h->cap ? head - h->cap : 0, hi = head;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		struct cache_event *ev;
		if (cache_history_get(h, mid, &ev)) {
			lo = mid + 1;
			continue;
		}
		bool above = ev->rv > rv;
		cache_history_event_put(ev);
		if (above)
			hi = mid;
		else
			lo = mid + 1;
	}
	*seq = lo;
	return 0;
}

bool cache_history_wait(struct cache_history *h, struct cache_waiter *w,
			uint64_t seq, bool (*suspend)(struct cache_waiter *w))
{
	pthread_mutex_lock(&h->wait_lock);
	if (cache_history_head(h) > seq || w->queued ||
	    (suspend && !suspend(w))) {
		bool q = w->queued;
		pthread_mutex_unlock(&h->wait_lock);
		return q;
	}
	w->next = &h->waiters;
	w->prev = h->waiters.prev;
	w->prev->next = w;
	h->waiters.prev = w;
	w->queued = true;
	pthread_mutex_unlock(&h->wait_lock);
	return true;
}

static void unlink_waiter(struct cache_waiter *w)
{
	w->prev->next = w->next;
	w->next->prev = w->prev;
	w->next = w->prev = NULL;
	w->queued = false;
}

void cache_history_unwait(struct cache_history *h, struct cache_waiter *w)
{
	pthread_mutex_lock(&h->wait_lock);
	if (w->queued)
		unlink_waiter(w);
	pthread_mutex_unlock(&h->wait_lock);
}

static void (*wake_begin)(void), (*wake_end)(void);

void cache_history_set_wake_hooks(void (*begin)(void), void (*end)(void))
{
	__atomic_store_n(&wake_begin, begin, __ATOMIC_RELEASE);
	__atomic_store_n(&wake_end, end, __ATOMIC_RELEASE);
}

void cache_history_wake_all(struct cache_history *h)
{
	void (*begin)(void) = __atomic_load_n(&wake_begin, __ATOMIC_ACQUIRE);
	void (*end)(void) = __atomic_load_n(&wake_end, __ATOMIC_ACQUIRE);
	if (begin)
		begin();
	pthread_mutex_lock(&h->wait_lock);
	while (h->waiters.next != &h->waiters) {
		struct cache_waiter *w = h->waiters.next;
		unlink_waiter(w);
		w->wake(w);
	}
	pthread_mutex_unlock(&h->wait_lock);
	if (end)
		end();
}

size_t cache_history_waiters(struct cache_history *h)
{
	size_t n = 0;
	pthread_mutex_lock(&h->wait_lock);
	for (struct cache_waiter *w = h->waiters.next; w != &h->waiters;
	     w = w->next)
		n++;
	pthread_mutex_unlock(&h->wait_lock);
	return n;
}
