/*
 * store_labels: the label index of a bulk load, built at once (see
 * store_labels.h).
 */
#include "cache/store_labels.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache/obj.h"
#include "cache/selector.h"
#include "config/alloc.h"

/* objects asked for ahead of a pass over a load's array: far enough for
 * their misses to overlap, near enough to stay in cache */
#define FETCH_AHEAD 8

struct group { /* the entries of one (key, value) */
	const char *k, *v;
	uint64_t hash;
	size_t count, at;
};

/* An entry of the index as the pass over the objects finds it: the
 * object's place in the load, the label's in the object, its group. */
struct found {
	uint32_t obj, label, group;
};

static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a,
			   *y = *(struct group *const *)b;
	int c = strcmp(x->k, y->k);
	return c ? c : strcmp(x->v, y->v);
}

/* p, or p moved to room for one more than n elements of size sz when
 * its cap are taken (doubled, or min at first); NULL when out of memory
 * (p is left as it was, for the caller to free). */
static void *room(void *p, size_t *cap, size_t n, size_t sz, size_t min)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? *cap * 2 : min;
	void *q = xrealloc(p, c * sz);
	if (q)
		*cap = c;
	return q;
}

/*
 * The label index's entries over a range of a load's objects, grouped by
 * (key, value) with a hash table (a group's index + 1 a slot, 0 free) as
 * they are found; each entry noted with its object and label, and the
 * object's references for the index's nodes taken while it is in cache.
 */
struct pass {
	const struct cache_labels_keys *keys;
	struct cache_obj *const *objs;
	size_t from, to;
	struct group *groups;
	size_t ng, gcap;
	uint32_t *slots;
	size_t cap;
	struct found *f;
	size_t nf, fcap;
	bool fail;
};

/* The group of (k, v) whose hash is hash in p, added when new: its
 * index, or -1 when out of memory. */
static long group_of(struct pass *p, const char *k, const char *v,
		     uint64_t hash)
{
	if (2 * (p->ng + 1) > p->cap) { /* at most half full */
		size_t c = p->cap ? p->cap * 2 : 1024;
		uint32_t *t = xcalloc(c, sizeof(*t));
		if (!t)
			return -1;
		for (size_t i = 0; i < p->ng; i++) {
			size_t h = p->groups[i].hash & (c - 1);
			while (t[h])
				h = (h + 1) & (c - 1);
			t[h] = (uint32_t)(i + 1);
		}
		free(p->slots);
		p->slots = t;
		p->cap = c;
	}
	size_t h = hash & (p->cap - 1);
	uint32_t g;
	while ((g = p->slots[h]) &&
	       (p->groups[g - 1].hash != hash ||
		strcmp(p->groups[g - 1].k, k) || strcmp(p->groups[g - 1].v, v)))
		h = (h + 1) & (p->cap - 1);
	if (g)
		return (long)g - 1;
	struct group *gs = room(p->groups, &p->gcap, p->ng, sizeof(*gs), 256);
	if (!gs)
		return -1;
	p->groups = gs;
	gs[p->ng] = (struct group){ k, v, hash, 0, 0 };
	p->slots[h] = (uint32_t)++p->ng;
	return (long)p->ng - 1;
}

/* Give back the references p took (its entries' objects). */
static void pass_give_back(struct pass *p)
{
	for (size_t x = 0; x < p->nf; x++)
		cache_obj_put(p->objs[p->f[x].obj]);
	p->nf = 0;
}

static void pass_free(struct pass *p)
{
	free(p->groups);
	free(p->slots);
	free(p->f);
}

static void *pass_run(void *arg)
{
	struct pass *p = arg;
	for (size_t i = p->from; i < p->to; i++) {
		if (i + FETCH_AHEAD < p->to)
			cache_obj_prefetch(p->objs[i + FETCH_AHEAD],
					   CACHE_OBJ_HEAD_LINES);
		struct cache_obj *o = p->objs[i];
		/* an index that cannot be a node's label: the load fails */
		if (o->nlabels >= CACHE_TREE_NO_LABEL)
			goto failed;
		size_t had = p->nf;
		for (uint32_t j = 0; j < o->nlabels; j++) {
			const struct cache_label *l = &o->labels[j];
			if (!cache_labels_keys_has(p->keys, l->key))
				continue;
			struct found *f =
				room(p->f, &p->fcap, p->nf, sizeof(*f),
				     4 * (p->to - p->from) + 16);
			long g = f ? group_of(p, l->key, l->val,
					      hash2(l->key, l->val)) :
				     -1;
			if (f)
				p->f = f;
			if (g < 0) {
				p->nf = had; /* o's references are not taken */
				goto failed;
			}
			p->groups[g].count++;
			p->f[p->nf++] =
				(struct found){ (uint32_t)i, j, (uint32_t)g };
		}
		/* the nodes' references, taken while o is in cache */
		if (p->nf > had)
			cache_obj_get_n(o, (uint32_t)(p->nf - had));
	}
	return NULL;
failed:
	p->fail = true;
	pass_give_back(p);
	return NULL;
}

/* Fold b's groups into a's, b's group ids mapped to a's in map (b->ng
 * of them): 0, or -ENOMEM. */
static int pass_merge(struct pass *a, const struct pass *b, uint32_t *map)
{
	for (size_t g = 0; g < b->ng; g++) {
		const struct group *bg = &b->groups[g];
		long at = group_of(a, bg->k, bg->v, bg->hash);
		if (at < 0)
			return -ENOMEM;
		a->groups[at].count += bg->count;
		map[g] = (uint32_t)at;
	}
	return 0;
}

/* Loads of this many objects and more group their labels on two
 * threads, each over half the objects. */
#define LABEL_SPLIT_MIN 16384

/*
 * The label index over objs (in key order) in O(entries) and one pass
 * over the objects, each a cache miss in a large load (two passes over
 * halves, side by side, in a large one): the entries are grouped by
 * (key, value), the few distinct groups are sorted, and each group keeps
 * the objects' order, which is the index's order within a group (the
 * first half's entries then the second's). The entries are placed from
 * what the passes noted, without reading the objects again, and the
 * nodes adopt the references the passes took.
 */
struct cache_tree_node *
cache_store_labels_build(const struct cache_labels_keys *keys,
			 struct cache_obj *const *objs, size_t n, bool *fail)
{
	if (n > UINT32_MAX) {
		*fail = true;
		return NULL;
	}
	size_t mid = n >= LABEL_SPLIT_MIN ? n / 2 : n;
	struct pass p[2] = {
		{ .keys = keys, .objs = objs, .from = 0, .to = mid },
		{ .keys = keys, .objs = objs, .from = mid, .to = n }
	};
	pthread_t th;
	bool two = mid < n && !pthread_create(&th, NULL, pass_run, &p[1]);
	pass_run(&p[0]);
	if (two)
		pthread_join(th, NULL);
	else
		pass_run(&p[1]);
	struct group **order = NULL;
	struct cache_tree_entry *e = NULL;
	struct cache_tree_node *root = NULL;
	uint32_t *map = xmalloc((p[1].ng ? p[1].ng : 1) * sizeof(*map));
	size_t nf = p[0].nf + p[1].nf;
	if (p[0].fail || p[1].fail || !map || pass_merge(&p[0], &p[1], map))
		goto failed;
	if (!nf)
		goto out;
	order = xmalloc(p[0].ng * sizeof(*order));
	e = xmalloc(nf * sizeof(*e));
	if (!order || !e)
		goto failed;
	struct group *groups = p[0].groups;
	for (size_t g = 0; g < p[0].ng; g++)
		order[g] = &groups[g];
	qsort(order, p[0].ng, sizeof(*order), group_cmp);
	for (size_t g = 0, at = 0; g < p[0].ng; g++) {
		order[g]->at = at;
		at += order[g]->count;
	}
	for (int h = 0; h < 2; h++)
		for (size_t x = 0; x < p[h].nf; x++) {
			const struct found *f = &p[h].f[x];
			struct group *g = &groups[h ? map[f->group] : f->group];
			e[g->at++] = (struct cache_tree_entry){ objs[f->obj],
								f->label };
		}
	root = cache_tree_build_owned(e, nf, fail); /* references and all */
	goto out;
failed:
	*fail = true;
	pass_give_back(&p[0]);
	pass_give_back(&p[1]);
out:
	pass_free(&p[0]);
	pass_free(&p[1]);
	free(map);
	free(order);
	free(e);
	return root;
}
