/*
 * store_labels: the label index of a bulk load (cache_store_txn_load()),
 * built at once from the objects in key order rather than by one insert
 * an entry: O(entries) and one pass over the objects, on two threads for
 * a large load.
 *
 * Threads: the loading transaction's (store.c runs it on a thread of its
 * own beside the key tree's build), and one more for a large load.
 */
#ifndef CACHE_STORE_LABELS_H
#define CACHE_STORE_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cache/tree.h"

/* The label keys a store indexes (store.h, cache_store_index_only()):
 * all when keys is NULL. */
struct cache_labels_keys {
	char *const *keys;
	int n;
};

static inline bool cache_labels_keys_has(const struct cache_labels_keys *k,
					 const char *key)
{
	if (!k->keys)
		return true;
	for (int i = 0; i < k->n; i++)
		if (!strcmp(k->keys[i], key))
			return true;
	return false;
}

/* The label index of objs[0..n) (in key order): a tree of one entry per
 * label whose key is in keys, in (label key, label value, object key)
 * order, or NULL with *fail set when out of memory or when an object has
 * more labels than a node can name (the load fails). */
struct cache_tree_node *
cache_store_labels_build(const struct cache_labels_keys *keys,
			 struct cache_obj *const *objs, size_t n, bool *fail);

#endif
