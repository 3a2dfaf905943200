/*
 * store: persistent AVL tree snapshots under RCU (see store.h).
 *
 * Node ownership: a node's refs counts the parents and snapshots that
 * point at it. Functions that build trees take "owned" subtrees (they
 * consume one reference) and return an owned tree; "borrowed" arguments
 * are left as they were. Objects are owned by exactly one reference per
 * node that points at them.
 */
#include "cache/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rcu.h"
#include "config/alloc.h"

struct cache_node {
	uint32_t refs;		/* atomic */
	uint32_t size;		/* nodes in this subtree */
	int height;
	struct cache_node *l, *r;
	struct cache_obj *obj;	/* owned */
};

#define PIN_MAX 32

struct pin {
	struct cache_snap *snap;
	time_t until;
};

/* A snapshot as the store publishes it: the rcu_head lets the store drop
 * its reference after a grace period. */
struct snap_box {
	struct cache_snap snap;
	struct rcu_head rcu;
};

struct cache_store {
	struct snap_box *cur;		/* RCU-published */
	pthread_mutex_t pin_lock;	/* guards pins */
	struct pin pins[PIN_MAX];
};

/* ---- nodes ---- */

static inline int height(const struct cache_node *n)
{
	return n ? n->height : 0;
}

static inline uint32_t size(const struct cache_node *n)
{
	return n ? n->size : 0;
}

static struct cache_node *node_ref(struct cache_node *n)
{
	if (n)
		__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
	return n;
}

#if defined(__SANITIZE_THREAD__)
char cache_rcu_tsan_token;
#endif

static void node_put(struct cache_node *n)
{
	while (n && __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct cache_node *r = n->r;
		node_put(n->l);
		cache_obj_put(n->obj);
		free(n);
		n = r;	/* loop instead of recursing on the right */
	}
}

/* A node over owned l and r holding a new reference on obj. On failure l
 * and r are put and NULL is returned. */
static struct cache_node *node_new(struct cache_obj *obj, struct cache_node *l,
				   struct cache_node *r)
{
	struct cache_node *n = xmalloc(sizeof(*n));
	if (!n) {
		node_put(l);
		node_put(r);
		return NULL;
	}
	n->refs = 1;
	n->l = l;
	n->r = r;
	n->obj = cache_obj_get(obj);
	n->height = 1 + (height(l) > height(r) ? height(l) : height(r));
	n->size = 1 + size(l) + size(r);
	return n;
}

static int cmp_obj(const char *ns, const char *name, const struct cache_obj *o)
{
	return cache_obj_keycmp(ns, name, o->ns, o->name);
}

/*
 * A balanced node from obj and owned subtrees whose heights differ by at
 * most 2. Rotations build new nodes: the inputs may be shared.
 */
static struct cache_node *balance(struct cache_obj *obj, struct cache_node *l,
				  struct cache_node *r)
{
	int hl = height(l), hr = height(r);
	if (hl > hr + 1) {
		struct cache_node *ll = node_ref(l->l), *lr = node_ref(l->r);
		struct cache_obj *lo = l->obj;
		if (height(l->l) >= height(l->r)) {
			struct cache_node *nr = node_new(obj, lr, r);
			struct cache_node *res = nr ? node_new(lo, ll, nr) : NULL;
			if (!nr)
				node_put(ll);
			node_put(l);
			return res;
		}
		/* left-right */
		struct cache_node *lrl = node_ref(lr->l), *lrr = node_ref(lr->r);
		struct cache_obj *lro = lr->obj;
		struct cache_node *a = node_new(lo, ll, lrl);
		struct cache_node *b = node_new(obj, lrr, r);
		struct cache_node *res = a && b ? node_new(lro, a, b) : NULL;
		if (!a || !b) {
			node_put(a);
			node_put(b);
		}
		node_put(lr);
		node_put(l);
		return res;
	}
	if (hr > hl + 1) {
		struct cache_node *rl = node_ref(r->l), *rr = node_ref(r->r);
		struct cache_obj *ro = r->obj;
		if (height(r->r) >= height(r->l)) {
			struct cache_node *nl = node_new(obj, l, rl);
			struct cache_node *res = nl ? node_new(ro, nl, rr) : NULL;
			if (!nl)
				node_put(rr);
			node_put(r);
			return res;
		}
		/* right-left */
		struct cache_node *rll = node_ref(rl->l), *rlr = node_ref(rl->r);
		struct cache_obj *rlo = rl->obj;
		struct cache_node *a = node_new(obj, l, rll);
		struct cache_node *b = node_new(ro, rlr, rr);
		struct cache_node *res = a && b ? node_new(rlo, a, b) : NULL;
		if (!a || !b) {
			node_put(a);
			node_put(b);
		}
		node_put(rl);
		node_put(r);
		return res;
	}
	return node_new(obj, l, r);
}

/* t borrowed; returns an owned tree with obj in it, or NULL on ENOMEM.
 * *old gets the replaced object (borrowed from t). */
static struct cache_node *ins(struct cache_node *t, struct cache_obj *obj,
			      struct cache_obj **old)
{
	if (!t)
		return node_new(obj, NULL, NULL);
	int c = cmp_obj(obj->ns, obj->name, t->obj);
	if (c == 0) {
		*old = t->obj;
		return node_new(obj, node_ref(t->l), node_ref(t->r));
	}
	if (c < 0) {
		struct cache_node *l = ins(t->l, obj, old);
		if (!l)
			return NULL;
		return balance(t->obj, l, node_ref(t->r));
	}
	struct cache_node *r = ins(t->r, obj, old);
	if (!r)
		return NULL;
	return balance(t->obj, node_ref(t->l), r);
}

/* t borrowed, non-empty: an owned copy without its smallest node, whose
 * object goes to *min (borrowed). */
static struct cache_node *del_min(struct cache_node *t, struct cache_obj **min,
				  bool *fail)
{
	if (!t->l) {
		*min = t->obj;
		return node_ref(t->r);
	}
	struct cache_node *l = del_min(t->l, min, fail);
	if (*fail)
		return NULL;
	struct cache_node *res = balance(t->obj, l, node_ref(t->r));
	if (!res)
		*fail = true;
	return res;
}

/* t borrowed and known to hold ns/name: an owned tree without it. */
static struct cache_node *del(struct cache_node *t, const char *ns,
			      const char *name, struct cache_obj **old,
			      bool *fail)
{
	int c = cmp_obj(ns, name, t->obj);
	struct cache_node *res;
	if (c < 0) {
		struct cache_node *l = del(t->l, ns, name, old, fail);
		if (*fail)
			return NULL;
		res = balance(t->obj, l, node_ref(t->r));
	} else if (c > 0) {
		struct cache_node *r = del(t->r, ns, name, old, fail);
		if (*fail)
			return NULL;
		res = balance(t->obj, node_ref(t->l), r);
	} else {
		*old = t->obj;
		if (!t->l)
			return node_ref(t->r);
		if (!t->r)
			return node_ref(t->l);
		struct cache_obj *min;
		struct cache_node *r = del_min(t->r, &min, fail);
		if (*fail)
			return NULL;
		res = balance(min, node_ref(t->l), r);
	}
	if (!res)
		*fail = true;
	return res;
}

static struct cache_node *find(struct cache_node *t, const char *ns,
			       const char *name)
{
	while (t) {
		int c = cmp_obj(ns, name, t->obj);
		if (c == 0)
			return t;
		t = c < 0 ? t->l : t->r;
	}
	return NULL;
}

/* A perfectly balanced tree over objs[0..n). */
static struct cache_node *build(struct cache_obj *const *objs, size_t n,
				bool *fail)
{
	if (n == 0 || *fail)
		return NULL;
	size_t mid = n / 2;
	struct cache_node *l = build(objs, mid, fail);
	struct cache_node *r = build(objs + mid + 1, n - mid - 1, fail);
	if (*fail) {
		node_put(l);
		node_put(r);
		return NULL;
	}
	struct cache_node *res = node_new(objs[mid], l, r);
	if (!res)
		*fail = true;
	return res;
}

/* ---- snapshots ---- */

static struct snap_box *box_new(struct cache_node *root, uint64_t rv)
{
	struct snap_box *b = xmalloc(sizeof(*b));
	if (!b)
		return NULL;
	b->snap.refs = 1;
	b->snap.rv = rv;
	b->snap.root = root;
	b->snap.count = size(root);
	return b;
}

void cache_snap_put(struct cache_snap *snap)
{
	if (snap && __atomic_sub_fetch(&snap->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		node_put(snap->root);
		free((struct snap_box *)snap);
	}
}

static void snap_put_rcu(struct rcu_head *head)
{
	cache_rcu_callback();
	struct snap_box *b = caa_container_of(head, struct snap_box, rcu);
	cache_snap_put(&b->snap);
}

/* Replace the current snapshot; the old one is put after a grace period. */
static void publish(struct cache_store *s, struct snap_box *b)
{
	struct snap_box *old = cache_rcu_xchg(&s->cur, b);
	if (old)
		call_rcu(&old->rcu, snap_put_rcu);
}

struct cache_store *cache_store_new(void)
{
	struct cache_store *s = xcalloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cur = box_new(NULL, 0);
	if (!s->cur) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->pin_lock, NULL);
	return s;
}

void cache_store_free(struct cache_store *s)
{
	if (!s)
		return;
	for (int i = 0; i < PIN_MAX; i++)
		cache_snap_put(s->pins[i].snap);
	cache_snap_put(&s->cur->snap);
	pthread_mutex_destroy(&s->pin_lock);
	free(s);
}

struct cache_snap *cache_store_snap(struct cache_store *s)
{
	cache_rcu_lock();
	struct snap_box *b = cache_rcu_load(&s->cur);
	cache_snap_get(&b->snap);
	cache_rcu_unlock();
	return &b->snap;
}

uint64_t cache_store_rv(struct cache_store *s)
{
	cache_rcu_lock();
	uint64_t rv = cache_rcu_load(&s->cur)->snap.rv;
	cache_rcu_unlock();
	return rv;
}

struct cache_obj *cache_store_get(struct cache_store *s, const char *ns,
				  const char *name, uint64_t *rv)
{
	cache_rcu_lock();
	struct snap_box *b = cache_rcu_load(&s->cur);
	struct cache_node *n = find(b->snap.root, ns, name);
	struct cache_obj *o = n ? cache_obj_get(n->obj) : NULL;
	if (rv)
		*rv = b->snap.rv;
	cache_rcu_unlock();
	return o;
}

struct cache_obj *cache_snap_find(const struct cache_snap *snap,
				  const char *ns, const char *name)
{
	struct cache_node *n = find(snap->root, ns, name);
	return n ? n->obj : NULL;
}

size_t cache_snap_rank(const struct cache_snap *snap, const char *ns,
		       const char *name)
{
	size_t rank = 0;
	for (const struct cache_node *t = snap->root; t;) {
		if (cmp_obj(ns, name, t->obj) <= 0) {
			t = t->l;
		} else {
			rank += size(t->l) + 1;
			t = t->r;
		}
	}
	return rank;
}

/* Whether every key of namespace ns sorts before o's key. */
static bool ns_before(const char *ns, const struct cache_obj *o)
{
	return cache_obj_keycmp(ns, "\xff", o->ns, o->name) < 0 &&
	       strcmp(ns, o->ns) != 0;
}

size_t cache_snap_rank_ns_end(const struct cache_snap *snap, const char *ns)
{
	size_t rank = 0;
	for (const struct cache_node *t = snap->root; t;) {
		if (ns_before(ns, t->obj)) {
			t = t->l;
		} else {
			rank += size(t->l) + 1;
			t = t->r;
		}
	}
	return rank;
}

void cache_iter_seek(struct cache_iter *it, const struct cache_snap *snap,
		     const char *ns, const char *name)
{
	it->depth = 0;
	for (const struct cache_node *t = snap->root; t;) {
		if (cmp_obj(ns, name, t->obj) <= 0) {
			it->stack[it->depth++] = t;
			t = t->l;
		} else {
			t = t->r;
		}
	}
}

struct cache_obj *cache_iter_next(struct cache_iter *it)
{
	if (it->depth == 0)
		return NULL;
	const struct cache_node *n = it->stack[--it->depth];
	for (const struct cache_node *t = n->r; t; t = t->l)
		it->stack[it->depth++] = t;
	return n->obj;
}

/* ---- writer ---- */

void cache_txn_begin(struct cache_store *s, struct cache_txn *t)
{
	/* Only the writer publishes, so its own read needs no grace period,
	 * but the reference keeps the tree ours even after a publish. */
	struct cache_snap *cur = cache_store_snap(s);
	t->s = s;
	t->root = node_ref(cur->root);
	t->count = cur->count;
	t->failed = false;
	cache_snap_put(cur);
}

void cache_txn_begin_empty(struct cache_store *s, struct cache_txn *t)
{
	t->s = s;
	t->root = NULL;
	t->count = 0;
	t->failed = false;
}

int cache_txn_put(struct cache_txn *t, struct cache_obj *obj,
		  struct cache_obj **old)
{
	struct cache_obj *prev = NULL;
	if (old)
		*old = NULL;
	if (t->failed)
		return -ENOMEM;
	struct cache_node *root = ins(t->root, obj, &prev);
	if (!root) {
		t->failed = true;
		return -ENOMEM;
	}
	if (prev && old)
		*old = cache_obj_get(prev);
	if (!prev)
		t->count++;
	node_put(t->root);
	t->root = root;
	return 0;
}

int cache_txn_del(struct cache_txn *t, const char *ns, const char *name,
		  struct cache_obj **old)
{
	if (old)
		*old = NULL;
	if (t->failed)
		return -ENOMEM;
	if (!find(t->root, ns, name))
		return -ENOENT;
	struct cache_obj *prev = NULL;
	bool fail = false;
	struct cache_node *root = del(t->root, ns, name, &prev, &fail);
	if (fail) {
		t->failed = true;
		return -ENOMEM;
	}
	if (old)
		*old = cache_obj_get(prev);
	node_put(t->root);
	t->root = root;
	t->count--;
	return 0;
}

int cache_txn_load(struct cache_txn *t, struct cache_obj *const *objs,
		   size_t n)
{
	bool fail = false;
	struct cache_node *root = build(objs, n, &fail);
	if (fail) {
		t->failed = true;
		return -ENOMEM;
	}
	node_put(t->root);
	t->root = root;
	t->count = n;
	return 0;
}

struct cache_obj *cache_txn_find(const struct cache_txn *t, const char *ns,
				 const char *name)
{
	struct cache_node *n = find(t->root, ns, name);
	return n ? n->obj : NULL;
}

int cache_txn_commit(struct cache_txn *t, uint64_t rv)
{
	struct snap_box *b = t->failed ? NULL : box_new(t->root, rv);
	if (!b) {
		cache_txn_abort(t);
		return -ENOMEM;
	}
	t->root = NULL;	/* the snapshot owns it now */
	publish(t->s, b);
	return 0;
}

void cache_txn_abort(struct cache_txn *t)
{
	node_put(t->root);
	t->root = NULL;
	t->failed = false;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct cache_obj *x = *(struct cache_obj *const *)a;
	const struct cache_obj *y = *(struct cache_obj *const *)b;
	int c = cache_obj_keycmp(x->ns, x->name, y->ns, y->name);
	/* equal keys: the newer one sorts last and wins below */
	return c ? c : (x->rv > y->rv) - (x->rv < y->rv);
}

size_t cache_store_sort(struct cache_obj **objs, size_t n)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = cache_obj_keycmp(objs[i - 1]->ns, objs[i - 1]->name,
					  objs[i]->ns, objs[i]->name) < 0;
	if (sorted)
		return n;
	qsort(objs, n, sizeof(*objs), obj_cmp);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && !cache_obj_keycmp(objs[w - 1]->ns, objs[w - 1]->name,
					   objs[i]->ns, objs[i]->name)) {
			cache_obj_put(objs[w - 1]);
			objs[w - 1] = objs[i];
			continue;
		}
		objs[w++] = objs[i];
	}
	return w;
}

/* ---- pins ---- */

void cache_store_pin(struct cache_store *s, struct cache_snap *snap,
		     unsigned ttl)
{
	time_t now = time(NULL);
	pthread_mutex_lock(&s->pin_lock);
	int slot = -1;
	for (int i = 0; i < PIN_MAX; i++) {
		struct pin *p = &s->pins[i];
		if (p->snap && p->snap->rv == snap->rv) {
			if (p->until < now + (time_t)ttl)
				p->until = now + (time_t)ttl;
			pthread_mutex_unlock(&s->pin_lock);
			return;
		}
		/* free slot, or else the one that expires first */
		if (slot < 0 || !p->snap ||
		    (s->pins[slot].snap && p->until < s->pins[slot].until))
			slot = i;
	}
	struct cache_snap *old = s->pins[slot].snap;
	s->pins[slot].snap = cache_snap_get(snap);
	s->pins[slot].until = now + (time_t)ttl;
	pthread_mutex_unlock(&s->pin_lock);
	cache_snap_put(old);
}

struct cache_snap *cache_store_pinned(struct cache_store *s, uint64_t rv)
{
	struct cache_snap *cur = cache_store_snap(s);
	if (cur->rv == rv)
		return cur;
	cache_snap_put(cur);
	struct cache_snap *found = NULL, *expired[PIN_MAX];
	int nexp = 0;
	time_t now = time(NULL);
	pthread_mutex_lock(&s->pin_lock);
	for (int i = 0; i < PIN_MAX; i++) {
		struct pin *p = &s->pins[i];
		if (!p->snap)
			continue;
		if (p->until < now) {
			expired[nexp++] = p->snap;
			p->snap = NULL;
			continue;
		}
		if (p->snap->rv == rv)
			found = cache_snap_get(p->snap);
	}
	pthread_mutex_unlock(&s->pin_lock);
	while (nexp)
		cache_snap_put(expired[--nexp]);
	return found;
}
