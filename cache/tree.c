/*
 * tree: the store's persistent AVL tree of object and label entries
 * (see tree.h).
 *
 * Rotations build new nodes rather than change old ones: any input may be
 * shared with a published snapshot. An entry is carried around as the
 * pair (obj, label) of the node that holds it.
 */
#include "cache/tree.h"

#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"

static inline int height(const struct cache_tree_node *n)
{
	return n ? n->height : 0;
}

struct cache_tree_node *cache_tree_ref(struct cache_tree_node *n)
{
	if (n)
		__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
	return n;
}

/* A bulk build's nodes: live counts the ones not yet freed. */
struct slab {
	uint32_t live; /* atomic */
	uint32_t cap;
	struct cache_tree_node node[];
};

static size_t slabs_live; /* atomic: cache_tree_slabs() */

size_t cache_tree_slabs(void)
{
	return __atomic_load_n(&slabs_live, __ATOMIC_RELAXED);
}

static void node_free(struct cache_tree_node *n)
{
	if (!n->slab) {
		free(n);
		return;
	}
	struct slab *s = (struct slab *)((char *)(n - (n->slab - 1)) -
					 offsetof(struct slab, node));
	if (__atomic_sub_fetch(&s->live, 1, __ATOMIC_ACQ_REL) == 0) {
		free(s);
		__atomic_sub_fetch(&slabs_live, 1, __ATOMIC_RELAXED);
	}
}

void cache_tree_put(struct cache_tree_node *n)
{
	while (n && __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct cache_tree_node *r = n->r;
		cache_tree_put(n->l);
		cache_obj_put(n->obj);
		node_free(n);
		n = r; /* loop instead of recursing on the right */
	}
}

static void node_init(struct cache_tree_node *n, struct cache_obj *obj,
		      uint32_t label, struct cache_tree_node *l,
		      struct cache_tree_node *r);
static void node_adopt(struct cache_tree_node *n, struct cache_obj *obj,
		       uint32_t label, struct cache_tree_node *l,
		       struct cache_tree_node *r);

/* A node for entry (obj, label) over owned l and r, holding a new
 * reference on obj. On failure l and r are put and NULL is returned. */
static struct cache_tree_node *node_new(struct cache_obj *obj, uint32_t label,
					struct cache_tree_node *l,
					struct cache_tree_node *r)
{
	struct cache_tree_node *n = xmalloc(sizeof(*n));
	if (!n) {
		cache_tree_put(l);
		cache_tree_put(r);
		return NULL;
	}
	n->slab = 0;
	node_init(n, obj, label, l, r);
	return n;
}

static void node_init(struct cache_tree_node *n, struct cache_obj *obj,
		      uint32_t label, struct cache_tree_node *l,
		      struct cache_tree_node *r)
{
	node_adopt(n, cache_obj_get(obj), label, l, r);
}

/* node_init() with obj's reference already taken, now the node's. */
static void node_adopt(struct cache_tree_node *n, struct cache_obj *obj,
		       uint32_t label, struct cache_tree_node *l,
		       struct cache_tree_node *r)
{
	n->refs = 1;
	n->label = label;
	n->l = l;
	n->r = r;
	n->obj = obj;
	n->height =
		(int16_t)(1 + (height(l) > height(r) ? height(l) : height(r)));
	n->size = 1 + cache_tree_size(l) + cache_tree_size(r);
}

void cache_tree_key_of(const struct cache_obj *obj, uint32_t label,
		       struct cache_tree_key *k)
{
	k->lk = label == CACHE_TREE_NO_LABEL ? NULL : obj->labels[label].key;
	k->lv = label == CACHE_TREE_NO_LABEL ? NULL : obj->labels[label].val;
	k->ns = obj->ns;
	k->name = obj->name;
}

int cache_tree_cmp(const struct cache_tree_key *a,
		   const struct cache_tree_key *b)
{
	if (a->lk) {
		int c = strcmp(a->lk, b->lk);
		if (!c)
			c = strcmp(a->lv, b->lv);
		if (c)
			return c;
	}
	return cache_obj_keycmp(a->ns, a->name, b->ns, b->name);
}

static int cmp_node(const struct cache_tree_key *k,
		    const struct cache_tree_node *n)
{
	struct cache_tree_key nk;
	cache_tree_key_of(n->obj, n->label, &nk);
	return cache_tree_cmp(k, &nk);
}

/* A balanced node for (obj, label) over owned subtrees whose heights
 * differ by at most 2. */
static struct cache_tree_node *balance(struct cache_obj *obj, uint32_t label,
				       struct cache_tree_node *l,
				       struct cache_tree_node *r)
{
	int hl = height(l), hr = height(r);
	if (hl > hr + 1) {
		struct cache_tree_node *ll = cache_tree_ref(l->l),
				       *lr = cache_tree_ref(l->r);
		if (height(l->l) >= height(l->r)) {
			struct cache_tree_node *nr =
				node_new(obj, label, lr, r);
			struct cache_tree_node *res =
				nr ? node_new(l->obj, l->label, ll, nr) : NULL;
			if (!nr)
				cache_tree_put(ll);
			cache_tree_put(l);
			return res;
		}
		/* left-right */
		struct cache_tree_node *lrl = cache_tree_ref(lr->l),
				       *lrr = cache_tree_ref(lr->r);
		struct cache_tree_node *a = node_new(l->obj, l->label, ll, lrl);
		struct cache_tree_node *b = node_new(obj, label, lrr, r);
		struct cache_tree_node *res =
			a && b ? node_new(lr->obj, lr->label, a, b) : NULL;
		if (!a || !b) {
			cache_tree_put(a);
			cache_tree_put(b);
		}
		cache_tree_put(lr);
		cache_tree_put(l);
		return res;
	}
	if (hr > hl + 1) {
		struct cache_tree_node *rl = cache_tree_ref(r->l),
				       *rr = cache_tree_ref(r->r);
		if (height(r->r) >= height(r->l)) {
			struct cache_tree_node *nl =
				node_new(obj, label, l, rl);
			struct cache_tree_node *res =
				nl ? node_new(r->obj, r->label, nl, rr) : NULL;
			if (!nl)
				cache_tree_put(rr);
			cache_tree_put(r);
			return res;
		}
		/* right-left */
		struct cache_tree_node *rll = cache_tree_ref(rl->l),
				       *rlr = cache_tree_ref(rl->r);
		struct cache_tree_node *a = node_new(obj, label, l, rll);
		struct cache_tree_node *b = node_new(r->obj, r->label, rlr, rr);
		struct cache_tree_node *res =
			a && b ? node_new(rl->obj, rl->label, a, b) : NULL;
		if (!a || !b) {
			cache_tree_put(a);
			cache_tree_put(b);
		}
		cache_tree_put(rl);
		cache_tree_put(r);
		return res;
	}
	return node_new(obj, label, l, r);
}

static struct cache_tree_node *ins(struct cache_tree_node *t,
				   struct cache_obj *obj, uint32_t label,
				   const struct cache_tree_key *k,
				   struct cache_obj **old)
{
	if (!t)
		return node_new(obj, label, NULL, NULL);
	int c = cmp_node(k, t);
	if (c == 0) {
		*old = t->obj;
		return node_new(obj, label, cache_tree_ref(t->l),
				cache_tree_ref(t->r));
	}
	if (c < 0) {
		struct cache_tree_node *l = ins(t->l, obj, label, k, old);
		return l ? balance(t->obj, t->label, l, cache_tree_ref(t->r)) :
			   NULL;
	}
	struct cache_tree_node *r = ins(t->r, obj, label, k, old);
	return r ? balance(t->obj, t->label, cache_tree_ref(t->l), r) : NULL;
}

struct cache_tree_node *cache_tree_ins(struct cache_tree_node *t,
				       struct cache_obj *obj, uint32_t label,
				       struct cache_obj **old)
{
	struct cache_tree_key k;
	cache_tree_key_of(obj, label, &k);
	*old = NULL;
	return ins(t, obj, label, &k, old);
}

/* t borrowed, non-empty: an owned copy without its smallest entry, which
 * goes to *min (borrowed). */
static struct cache_tree_node *del_min(struct cache_tree_node *t,
				       const struct cache_tree_node **min,
				       bool *fail)
{
	if (!t->l) {
		*min = t;
		return cache_tree_ref(t->r);
	}
	struct cache_tree_node *l = del_min(t->l, min, fail);
	if (*fail)
		return NULL;
	struct cache_tree_node *res =
		balance(t->obj, t->label, l, cache_tree_ref(t->r));
	if (!res)
		*fail = true;
	return res;
}

struct cache_tree_node *cache_tree_del(struct cache_tree_node *t,
				       const struct cache_tree_key *k,
				       struct cache_obj **old, bool *fail)
{
	int c = cmp_node(k, t);
	struct cache_tree_node *res;
	if (c < 0) {
		struct cache_tree_node *l = cache_tree_del(t->l, k, old, fail);
		if (*fail)
			return NULL;
		res = balance(t->obj, t->label, l, cache_tree_ref(t->r));
	} else if (c > 0) {
		struct cache_tree_node *r = cache_tree_del(t->r, k, old, fail);
		if (*fail)
			return NULL;
		res = balance(t->obj, t->label, cache_tree_ref(t->l), r);
	} else {
		*old = t->obj;
		if (!t->l)
			return cache_tree_ref(t->r);
		if (!t->r)
			return cache_tree_ref(t->l);
		const struct cache_tree_node *min;
		struct cache_tree_node *r = del_min(t->r, &min, fail);
		if (*fail)
			return NULL;
		res = balance(min->obj, min->label, cache_tree_ref(t->l), r);
	}
	if (!res)
		*fail = true;
	return res;
}

struct cache_tree_node *cache_tree_find(struct cache_tree_node *t,
					const struct cache_tree_key *k)
{
	while (t) {
		int c = cmp_node(k, t);
		if (c == 0)
			return t;
		t = c < 0 ? t->l : t->r;
	}
	return NULL;
}

/* A bulk build: its nodes are taken in turn from slabs sized to what
 * is left to build, so every slot of every slab gets a node. */
struct bulk {
	struct slab *cur;
	size_t left; /* nodes still to build, the current slab's included */
	bool fail;
	bool owned; /* the entries bring their references */
};

static struct cache_tree_node *bulk_node(struct bulk *b)
{
	if (!b->cur || b->cur->live == b->cur->cap) {
		/* the slab before is full: its live count is its own now */
		size_t cap = b->left < CACHE_TREE_SLAB_NODES ?
				     b->left :
				     CACHE_TREE_SLAB_NODES;
		struct slab *s = xmalloc(sizeof(*s) +
					 cap * sizeof(struct cache_tree_node));
		if (!s) {
			b->fail = true;
			return NULL;
		}
		s->live = 0;
		s->cap = (uint32_t)cap;
		b->cur = s;
		__atomic_add_fetch(&slabs_live, 1, __ATOMIC_RELAXED);
	}
	struct cache_tree_node *n = &b->cur->node[b->cur->live++];
	n->slab = (uint16_t)b->cur->live;
	b->left--;
	return n;
}

/*
 * The tree over e[0..n), children before parents. A slab's live count
 * is its nodes built so far; the build only ever fails on a new slab,
 * when the one before is full, so a failed build leaves no slab with a
 * slot that no node will free.
 */
/* ranges this small have their objects asked for at once (prefetched:
 * each reference taken is a miss otherwise, one after another) */
#define BUILD_FETCH_RUN 16

/* Give back the references of entries that got no node (owned). */
static void give_back(const struct bulk *b, const struct cache_tree_entry *e,
		      size_t n)
{
	for (size_t i = 0; b->owned && i < n; i++)
		cache_obj_put(e[i].obj);
}

static struct cache_tree_node *
build(struct bulk *b, const struct cache_tree_entry *e, size_t n, bool fetched)
{
	if (n == 0 || b->fail) {
		give_back(b, e, n);
		return NULL;
	}
	size_t mid = n / 2;
	if (b->owned) {
		fetched = true; /* nothing to fetch: no object is read */
	} else if (!fetched && n <= BUILD_FETCH_RUN) {
		for (size_t i = 0; i < n; i++)
			cache_obj_prefetch(e[i].obj, 1);
		fetched = true;
	} else if (!fetched) { /* used once both halves are built */
		cache_obj_prefetch(e[mid].obj, 1);
	}
	struct cache_tree_node *l = build(b, e, mid, fetched);
	struct cache_tree_node *r = build(b, e + mid + 1, n - mid - 1, fetched);
	struct cache_tree_node *res = b->fail ? NULL : bulk_node(b);
	if (!res) {
		cache_tree_put(l);
		cache_tree_put(r);
		give_back(b, e + mid, 1);
		return NULL;
	}
	struct cache_obj *o = e[mid].obj;
	node_adopt(res, b->owned ? o : cache_obj_get(o), e[mid].label, l, r);
	return res;
}

static struct cache_tree_node *build_all(const struct cache_tree_entry *e,
					 size_t n, bool owned, bool *fail)
{
	struct bulk b = { NULL, n, *fail || n > UINT32_MAX, owned };
	struct cache_tree_node *t = build(&b, e, n, false);
	if (b.fail)
		*fail = true;
	return t;
}

struct cache_tree_node *cache_tree_build(const struct cache_tree_entry *e,
					 size_t n, bool *fail)
{
	return build_all(e, n, false, fail);
}

struct cache_tree_node *cache_tree_build_owned(const struct cache_tree_entry *e,
					       size_t n, bool *fail)
{
	return build_all(e, n, true, fail);
}

size_t cache_tree_rank(const struct cache_tree_node *t,
		       const struct cache_tree_key *k)
{
	size_t rank = 0;
	while (t) {
		if (cmp_node(k, t) <= 0) {
			t = t->l;
		} else {
			rank += cache_tree_size(t->l) + 1;
			t = t->r;
		}
	}
	return rank;
}
