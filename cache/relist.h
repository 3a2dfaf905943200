/*
 * relist: turn the difference between the cached state and a fresh LIST
 * into a true event history, so local watchers need not be closed.
 *
 * A watcher has seen everything up to RV from; the new LIST stands at RV
 * to. Every object added or changed since carries its own RV in (from,
 * to]; each object that disappeared was deleted at some RV in (from, to]
 * that no surviving object holds. The deletions are given distinct such
 * RVs (their object's resourceVersion rewritten, as the apiserver writes
 * a deletion's), and all events are ordered by RV: a stream that is
 * strictly increasing, and that ends in exactly the LIST's state.
 */
#ifndef CACHE_RELIST_H
#define CACHE_RELIST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/store.h"

struct json_shape;

struct cache_relist_ev {
	int type; /* enum cache_ev_type */
	uint64_t rv;
	struct cache_obj *obj;	/* owned */
	struct cache_obj *prev; /* owned; NULL for ADDED */
};

struct cache_relist {
	struct cache_relist_ev *ev;
	size_t n;
};

/*
 * old: the cached state at from; objs: the new LIST (sorted, unique) at
 * to; shape: what the kind's objects tokenize, for the deletions' copies
 * (cache_obj_with_rv(); NULL: parsed whole). Returns 0, -ERANGE when no true history leads from one to the other
 * (RVs went backwards: a wiped or restored upstream), or -ENOMEM.
 */
int cache_relist_diff(const struct cache_snap *old, uint64_t from,
		      struct cache_obj *const *objs, size_t n, uint64_t to,
		      const struct json_shape *shape, struct cache_relist *out);
void cache_relist_free(struct cache_relist *r);

#endif
