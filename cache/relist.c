/*
 * relist: a true history from a relist (see relist.h).
 */
#include "cache/relist.h"

#include <errno.h>
#include <stdlib.h>

#include "cache/history.h"
#include "config/alloc.h"

static int push(struct cache_relist *r, size_t *cap, int type, uint64_t rv,
		struct cache_obj *obj, struct cache_obj *prev)
{
	if (r->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct cache_relist_ev *e = xrealloc(r->ev, nc * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->ev = e;
		*cap = nc;
	}
	r->ev[r->n++] =
		(struct cache_relist_ev){ type, rv, obj,
					  prev ? cache_obj_get(prev) : NULL };
	return 0;
}

static int by_rv(const void *a, const void *b)
{
	const struct cache_relist_ev *x = a, *y = b;
	return (x->rv > y->rv) - (x->rv < y->rv);
}

static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void cache_relist_free(struct cache_relist *r)
{
	for (size_t i = 0; i < r->n; i++) {
		cache_obj_put(r->ev[i].obj);
		cache_obj_put(r->ev[i].prev);
	}
	free(r->ev);
	r->ev = NULL;
	r->n = 0;
}

int cache_relist_diff(const struct cache_snap *old, uint64_t from,
		      struct cache_obj *const *objs, size_t n, uint64_t to,
		      const struct json_shape *shape, struct cache_relist *out)
{
	out->ev = NULL;
	out->n = 0;
	if (to < from)
		return -ERANGE;
	size_t cap = 0;
	int rc = 0;
	/* RVs of the new LIST's objects above from: not free for deletions */
	uint64_t *used = xmalloc((n + 1) * sizeof(*used));
	size_t nused = 0;
	if (!used)
		return -ENOMEM;

	/* merge walk of old and new, both in key order */
	struct cache_iter it;
	cache_store_iter_seek(&it, old, "", "");
	struct cache_obj *o = cache_store_iter_next(&it);
	size_t i = 0;
	while (!rc && (o || i < n)) {
		struct cache_obj *nw = i < n ? objs[i] : NULL;
		int c = !o ? 1 :
			!nw ?
			     -1 :
			     cache_obj_keycmp(o->ns, o->name, nw->ns, nw->name);
		if (nw && c >= 0 && nw->rv > from)
			used[nused++] = nw->rv;
		if (c < 0) {
			/* the RV is assigned below; obj is filled in then */
			rc = push(out, &cap, CACHE_DELETED, 0, NULL, o);
			o = cache_store_iter_next(&it);
		} else if (c > 0 || o->rv != nw->rv) {
			/* a change we did not see must be newer than from */
			if (nw->rv <= from || nw->rv > to)
				rc = -ERANGE;
			else
				rc = push(out, &cap,
					  c > 0 ? CACHE_ADDED : CACHE_MODIFIED,
					  nw->rv, cache_obj_get(nw),
					  c > 0 ? NULL : o);
			if (c == 0)
				o = cache_store_iter_next(&it);
			i++;
		} else {
			o = cache_store_iter_next(&it);
			i++;
		}
	}

	/* deletions take the lowest RVs above from that no object holds */
	qsort(used, nused, sizeof(*used), u64cmp);
	uint64_t next = from + 1;
	size_t u = 0;
	for (size_t k = 0; !rc && k < out->n; k++) {
		struct cache_relist_ev *e = &out->ev[k];
		if (e->type != CACHE_DELETED)
			continue;
		while (u < nused && used[u] < next)
			u++;
		while (u < nused && used[u] == next) {
			next++;
			u++;
		}
		if (next > to) {
			rc = -ERANGE;
			break;
		}
		e->rv = next++;
		e->obj = cache_obj_with_rv(e->prev, e->rv, shape);
		if (!e->obj)
			rc = -ENOMEM;
	}
	free(used);
	if (rc) {
		cache_relist_free(out);
		return rc;
	}
	if (out->n > 1)
		qsort(out->ev, out->n, sizeof(*out->ev), by_rv);
	return 0;
}
