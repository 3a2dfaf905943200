/*
 * tree: the store's persistent (path-copying) AVL tree of object entries.
 *
 * An entry is an object, or one label of an object. Object entries sort
 * by the object's key (etcd's "namespace/name" order); label entries by
 * (label key, label value, object key), so that all objects carrying
 * key=value sit together, in the order a LIST returns them. The store
 * keeps one tree of each kind per snapshot.
 *
 * Nodes are immutable once shared and reference counted: refs counts the
 * parents and snapshots that point at a node. Functions that build trees
 * take "owned" subtrees (they consume a reference) and return an owned
 * tree; "borrowed" arguments are left as they were. Each node holds one
 * reference on its object. Nodes carry subtree sizes, so ranks are O(log n).
 */
#ifndef CACHE_TREE_H
#define CACHE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/obj.h"

#define CACHE_TREE_NO_LABEL UINT32_MAX

struct cache_tree_node {
	uint32_t refs; /* atomic */
	uint32_t size; /* nodes in this subtree */
	int16_t height;
	uint16_t slab;	/* 1 + its index in a bulk build's slab; 0: alone */
	uint32_t label; /* index into obj->labels, or CACHE_TREE_NO_LABEL */
	struct cache_tree_node *l, *r;
	struct cache_obj *obj; /* owned */
};

/* What an entry sorts by: lk/lv NULL for object entries. */
struct cache_tree_key {
	const char *lk, *lv;
	const char *ns, *name;
};

/* An entry to build from. */
struct cache_tree_entry {
	struct cache_obj *obj;
	uint32_t label;
};

static inline uint32_t cache_tree_size(const struct cache_tree_node *n)
{
	return n ? n->size : 0;
}

struct cache_tree_node *cache_tree_ref(struct cache_tree_node *n);
void cache_tree_put(struct cache_tree_node *n);

/* t borrowed: an owned tree with the entry (obj, label) in it, replacing
 * an entry of the same key; *old gets the replaced object (borrowed from
 * t) or NULL. NULL on ENOMEM. */
struct cache_tree_node *cache_tree_ins(struct cache_tree_node *t,
				       struct cache_obj *obj, uint32_t label,
				       struct cache_obj **old);
/* t borrowed, known to hold k: an owned tree without it; *old gets its
 * object (borrowed). *fail on ENOMEM. */
struct cache_tree_node *cache_tree_del(struct cache_tree_node *t,
				       const struct cache_tree_key *k,
				       struct cache_obj **old, bool *fail);
struct cache_tree_node *cache_tree_find(struct cache_tree_node *t,
					const struct cache_tree_key *k);
/*
 * A balanced tree over n entries already in order, in O(n). Its nodes
 * come in slabs of up to CACHE_TREE_SLAB_NODES, one allocation each
 * (larger than malloc's mmap threshold: a freed slab goes back to the
 * system), instead of one allocation a node. A slab is freed when the
 * last of its nodes is: later inserts and deletes copy the nodes they
 * change into nodes of their own, so the slabs of a build empty as its
 * entries are replaced, and its memory stays at most what it was.
 */
#define CACHE_TREE_SLAB_NODES 4096
struct cache_tree_node *cache_tree_build(const struct cache_tree_entry *e,
					 size_t n, bool *fail);
/* The same over entries that each bring a reference on their object,
 * which its node takes over: the build reads no object. On failure every
 * entry's reference is given back. */
struct cache_tree_node *cache_tree_build_owned(const struct cache_tree_entry *e,
					       size_t n, bool *fail);
/* Slabs allocated and not yet freed, all trees together (for tests). */
size_t cache_tree_slabs(void);
/* How many entries sort before k. */
size_t cache_tree_rank(const struct cache_tree_node *t,
		       const struct cache_tree_key *k);
/* The key of entry (obj, label). */
void cache_tree_key_of(const struct cache_obj *obj, uint32_t label,
		       struct cache_tree_key *k);
int cache_tree_cmp(const struct cache_tree_key *a,
		   const struct cache_tree_key *b);

#endif
