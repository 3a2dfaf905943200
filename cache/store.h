/*
 * store: the Indexer. Immutable snapshots of one resource's objects,
 * sorted by namespace/name, published with RCU.
 *
 * Each snapshot is the root of a persistent (path-copying) AVL tree plus
 * the resourceVersion it stands for. An update copies the O(log n) nodes
 * on its path and shares the rest, so a LIST is a consistent view at one
 * RV for free, and an old snapshot stays valid for as long as a reader
 * holds it. Trees carry subtree sizes, so remainingItemCount is a rank.
 *
 * Threads: one writer at a time (the resource's reflector) uses the
 * cache_txn calls. Readers call from any thread and never take a lock.
 *
 * Memory: nodes and snapshots are reference counted. The store holds one
 * reference on the current snapshot and drops it an RCU grace period
 * after replacing it, which is what makes cache_store_snap() and
 * cache_store_get() safe without locks.
 */
#ifndef CACHE_STORE_H
#define CACHE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/obj.h"

struct cache_tree_node;
struct cache_store;

struct cache_snap {
	uint32_t refs;		       /* atomic */
	uint64_t rv;		       /* the state this snapshot stands for */
	struct cache_tree_node *root;  /* objects by key; shared, immutable */
	struct cache_tree_node *lroot; /* the label index; shared, immutable */
	size_t count;
};

struct cache_store *cache_store_new(void);
/* Call after every reader is gone and rcu_barrier(). */
void cache_store_free(struct cache_store *s);

/*
 * The current snapshot, with a reference the caller drops with
 * cache_store_snap_put(). Any thread, no lock. Never NULL: a new store has an
 * empty snapshot at RV 0.
 */
struct cache_snap *cache_store_snap(struct cache_store *s);
void cache_store_snap_put(struct cache_snap *snap);
static inline struct cache_snap *cache_store_snap_get(struct cache_snap *snap)
{
	__atomic_add_fetch(&snap->refs, 1, __ATOMIC_RELAXED);
	return snap;
}
/*
 * Hold only these label keys in the label index (--config indexes:),
 * instead of every key: fewer index entries, and label selectors on
 * other keys scan. Before the first transaction. Returns 0 or -ENOMEM.
 */
int cache_store_index_only(struct cache_store *s, char *const *keys, int n);
/* Whether the label index holds key. Any thread. */
bool cache_store_indexes(const struct cache_store *s, const char *key);

/* The current snapshot's RV (a relaxed read; for metrics and waiting). */
uint64_t cache_store_rv(struct cache_store *s);

/*
 * The object at ns/name in the current snapshot, with a reference the
 * caller drops with cache_obj_put(); NULL if absent. If rv is not NULL it
 * gets the snapshot's RV. Any thread, no lock.
 */
struct cache_obj *cache_store_get(struct cache_store *s, const char *ns,
				  const char *name, uint64_t *rv);

/* The object at ns/name in snap, borrowed for as long as snap is held. */
struct cache_obj *cache_store_snap_find(const struct cache_snap *snap,
					const char *ns, const char *name);
/* How many keys sort before ns/name. */
size_t cache_store_snap_rank(const struct cache_snap *snap, const char *ns,
			     const char *name);
/* How many keys have a namespace that sorts before or equal to ns. */
size_t cache_store_snap_rank_ns_end(const struct cache_snap *snap,
				    const char *ns);

/* In-order iteration from the first key >= ns/name ("" "" = the start). */
struct cache_iter {
	const struct cache_tree_node *stack[64];
	int depth;
	const char *lk, *lv; /* a label range: stop where it ends */
};
void cache_store_iter_seek(struct cache_iter *it, const struct cache_snap *snap,
			   const char *ns, const char *name);
/* The same over the objects labelled key=value only, still in key order,
 * from the first at or after ns/name: the label index, so the walk costs
 * what it returns. */
void cache_store_iter_seek_label(struct cache_iter *it,
				 const struct cache_snap *snap, const char *key,
				 const char *val, const char *ns,
				 const char *name);
/* How many objects carry key=value. */
size_t cache_store_snap_label_count(const struct cache_snap *snap,
				    const char *key, const char *val);
/* The next object (borrowed, valid while snap is held), or NULL. */
struct cache_obj *cache_store_iter_next(struct cache_iter *it);

/*
 * Writer side. A transaction starts from the current snapshot, applies
 * puts and deletes to a private tree, and publishes it in one step with
 * commit, so readers see all of it or none of it.
 */
struct cache_txn {
	struct cache_store *s;
	struct cache_tree_node *root;  /* owned */
	struct cache_tree_node *lroot; /* owned: the label index */
	size_t count;
	bool failed;	/* an allocation failed; commit refuses */
	bool full;	/* begun empty: a full replace */
	uint64_t first; /* the lowest RV among its changes; 0: unknown */
	size_t bytes;	/* what the previous version keeps alive (estimate) */
};

void cache_store_txn_begin(struct cache_store *s, struct cache_txn *t);
/* Start from nothing instead (a full replace, e.g. after a relist). */
void cache_store_txn_begin_empty(struct cache_store *s, struct cache_txn *t);
/*
 * Insert or replace obj (the txn takes its own reference). If old is not
 * NULL it gets the replaced object, with a reference, or NULL.
 * Returns 0 or -ENOMEM (the txn is then failed).
 */
int cache_store_txn_put(struct cache_txn *t, struct cache_obj *obj,
			struct cache_obj **old);
/* Remove ns/name; old as above. Returns 0, -ENOENT or -ENOMEM. */
int cache_store_txn_del(struct cache_txn *t, const char *ns, const char *name,
			struct cache_obj **old);
/*
 * Build the tree from n objects at once, in O(n). objs must be sorted by
 * key with no duplicates (cache_store_sort() does that). Replaces what the
 * txn holds; takes a reference on each object.
 */
int cache_store_txn_load(struct cache_txn *t, struct cache_obj *const *objs,
			 size_t n);
/* The object at ns/name in the txn's private tree (borrowed). */
struct cache_obj *cache_store_txn_find(const struct cache_txn *t,
				       const char *ns, const char *name);
/* The txn's changes happened at RVs from rv up to its commit's RV (a
 * watch chunk's first event). Without it, any RV after the previous
 * commit may have changed something, so no state between the two is
 * known; a txn with no change may say its commit's RV. */
void cache_store_txn_since(struct cache_txn *t, uint64_t rv);
/* Publish at rv. Returns 0, or -ENOMEM (nothing published, txn ended).
 * The version is kept in the store's window of recent versions (see
 * cache_store_at()); a full replace, or an RV below the current one,
 * starts the window again. */
int cache_store_txn_commit(struct cache_txn *t, uint64_t rv);
void cache_store_txn_abort(struct cache_txn *t);

/* Sort objs by key; of equal keys keep the highest RV (putting the
 * others' references). Returns the new count. */
size_t cache_store_sort(struct cache_obj **objs, size_t n);

/*
 * Keep snap reachable by its RV for a while, so that the next pages of a
 * paged LIST come from the same state. cache_store_pinned() returns a
 * referenced snapshot at exactly rv (the current one included), or NULL
 * once it has expired. Pins expire ttl seconds after the last
 * cache_store_pin() of their snapshot. When every slot holds a live pin,
 * the one touched longest ago goes; cache_store_pin() then returns true.
 */
bool cache_store_pin(struct cache_store *s, struct cache_snap *snap,
		     unsigned ttl);
struct cache_snap *cache_store_pinned(struct cache_store *s, uint64_t rv);

/*
 * The state at exactly rv, referenced, or NULL when the store cannot tell
 * it: rv above the current RV, older than the window of recent versions
 * (LIMIT_STORE_WINDOW_BYTES), or inside a transaction that applied
 * several changes at once. The snapshot's rv is rv itself, sharing the
 * trees of the version that stood at rv. Pinned snapshots count too.
 * Any thread; takes the window's lock briefly.
 */
struct cache_snap *cache_store_at(struct cache_store *s, uint64_t rv);
/* The window: how many versions it keeps, and the bytes they keep alive
 * beyond the current tree (an estimate: replaced objects and copied
 * paths). Any thread. */
void cache_store_window(struct cache_store *s, size_t *versions, size_t *bytes);
/* Drop the pins past their time. A pinned snapshot keeps every object
 * version it holds, up to a second copy of the cache, so expired pins
 * must go even when no paged LIST comes to look for them: call this now
 * and then (the proxy's ticker does, every 10 s). Returns how many went. */
int cache_store_expire_pins(struct cache_store *s);

#endif
