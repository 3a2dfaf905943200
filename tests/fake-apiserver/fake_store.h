/*
 * fake_store: the fake apiserver's state, like etcd behind an apiserver.
 *
 * One global resourceVersion counter, bumped by every write (etcd's
 * revision). Each resource keeps its current objects in an array sorted
 * by etcd key ("ns/name", or "name" when cluster-scoped). A bounded
 * history ring keeps the last --history events of all resources, each
 * with the object before and after; it serves watches that resume from
 * an RV, and it lets a LIST rebuild the state at an older RV (continue
 * pages, resourceVersionMatch=Exact) by undoing newer events.
 *
 * Two horizons, as in a real cluster. The ring's floor is the watch
 * cache's: a watch of a cached resource resumes from any RV at or after
 * it. The compaction point is etcd's (fake_store_compact_tick(), run by
 * the compactor in fake_cluster.c every --compact-interval s, like
 * kube-apiserver's): older states are gone from "etcd", so a LIST at an
 * older RV (continue tokens, resourceVersionMatch=Exact) gets 410, and
 * so does a watch of an uncached resource that needs older events, while
 * cached resources keep serving from the ring (the apiserver's watch
 * cache keeps its own history, whatever etcd compacted).
 *
 * Locking: one rwlock. Readers (LIST, GET, watch cursors) hold it shared
 * and only copy references out; writers hold it exclusive for the whole
 * read-modify-write, then fake_store_wrunlock() wakes every waiter.
 * Objects are immutable and reference counted, so a reader may keep one
 * after unlocking as long as it holds a reference.
 */
#ifndef FAKE_STORE_H
#define FAKE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/selector.h"

enum fake_ev_type {
	FAKE_ADDED,
	FAKE_MODIFIED,
	FAKE_DELETED
};

struct fake_obj {
	unsigned refs; /* atomic */
	int res;       /* index in fake_res_table */
	uint64_t rv;   /* metadata.resourceVersion */
	char *ns;      /* "" when cluster-scoped */
	char *name;
	char *uid; /* "" when absent */
	size_t nlabels;
	struct cache_label *labels; /* sorted by key */
	char **fields;		    /* values of the res's selectable fields */
	char *json; /* {"kind":K,"apiVersion":"v1",...}, no \n */
	size_t len;
	/* json + body_off is the first member after apiVersion: a LIST item
	 * is "{" followed by those bytes (list items carry no kind). */
	size_t body_off;
};

struct fake_event {
	uint64_t rv;
	int res;
	enum fake_ev_type type;
	struct fake_obj *obj;  /* new state; for DELETED the last state
				 * carrying the deletion RV */
	struct fake_obj *prev; /* state before, NULL for ADDED */
};

/*
 * Build an object from its bytes, taking ownership of json (malloc'd).
 * The bytes must start with {"kind":"<Kind>","apiVersion":"v1", and hold
 * metadata.name and a numeric metadata.resourceVersion. Returns one
 * reference, or NULL (json freed) when they do not.
 */
struct fake_obj *fake_obj_new(int res, char *json, size_t len);
struct fake_obj *fake_obj_get(struct fake_obj *o);
void fake_obj_put(struct fake_obj *o);
/* The etcd key order: "ns/name" compared bytewise ("name" if ns is ""). */
int fake_keycmp(const char *ns1, const char *name1, const char *ns2,
		const char *name2);

/* Set up an empty store keeping up to history events. 0 or -ENOMEM. */
int fake_store_init(size_t history);
/* Drop everything; no request may be running. */
void fake_store_free(void);

void fake_store_rdlock(void);
void fake_store_wrlock(void);
void fake_store_rdunlock(void);
/* Release the write lock and wake every waiter (watches, RV waits). */
void fake_store_wrunlock(void);

/* The current RV; any thread, no lock needed. */
uint64_t fake_store_rv(void);
/* The oldest RV a watch may resume from or a LIST may be rebuilt at:
 * every event after it is in the history. Call with the lock held. */
uint64_t fake_store_floor(void);
/* etcd's compaction point: no state older than it can be read, and a
 * watch served from etcd needs its start revision (RV + 1) at or after
 * it. 0 before the first compaction. Any thread. */
uint64_t fake_store_compacted(void);
/* One compactor tick, as kube-apiserver's compactor does: compact to the
 * RV that was current at the previous tick (so one to two intervals of
 * history survive), then remember the current RV. Write lock held;
 * returns the compaction point. */
uint64_t fake_store_compact_tick(void);
/* Bumped by dropWatches and wipe: a watch started under another value
 * must end. */
unsigned fake_store_gen(void);

/* The current object, or NULL. Lock held; the pointer is valid while
 * it is (take a reference to keep it). */
struct fake_obj *fake_store_lookup(int res, const char *ns, const char *name);

/*
 * Apply one write. Write lock held; obj->rv must be fake_store_rv() + 1.
 * Consumes the caller's reference to obj. ADDED inserts (the key must be
 * absent), MODIFIED replaces, DELETED removes the key (obj is then the
 * last state stamped with the deletion RV).
 */
void fake_store_commit(enum fake_ev_type type, struct fake_obj *obj);

/* Seeding, before serving: add without history (consumes the ref),
 * then seal once to sort and start the history at the current RV. */
int fake_store_seed_add(struct fake_obj *obj);
void fake_store_seed_done(void);

/* Forget the history (the "compact" fault): every resume from an older
 * RV, cached or not, gets 410. Write lock held. */
void fake_store_compact(void);
/* Delete every object and restart the RV at 1, with no events: a new
 * cluster at the same address (the "wipe" fault). Write lock held. */
void fake_store_wipe(void);
/* Bump the watch generation and wake everyone (dropWatches). */
void fake_store_drop_watches(void);
/* Wake and stop every waiter for good (shutdown). */
void fake_store_stop(void);
bool fake_store_stopping(void);

/*
 * Sleep until the RV passes rv, the generation differs from gen, the
 * store stops, or the monotonic clock reaches until_ms. No lock held.
 */
void fake_store_wait(uint64_t rv, unsigned gen, int64_t until_ms);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t fake_now_ms(void);

/*
 * Visit the state at RV at of one resource in key order, restricted to
 * namespace ns (NULL: all), starting strictly after (after_ns,
 * after_name) when after_name is not NULL. fn returns false to stop.
 * Read lock held. Returns 0, or -ESTALE when the state at at cannot be
 * rebuilt (older than the floor or the compaction point, or newer than
 * now).
 */
int fake_store_scan(int res, uint64_t at, const char *ns, const char *after_ns,
		    const char *after_name,
		    bool (*fn)(void *ctx, struct fake_obj *o), void *ctx);

/* How many keys fake_store_scan() would visit after (after_ns,
 * after_name): a LIST page's remainingItemCount. O(log n) for the
 * current state of all namespaces, a scan otherwise. Read lock held. */
unsigned long long fake_store_count_after(int res, uint64_t at, const char *ns,
					  const char *after_ns,
					  const char *after_name);

/*
 * Events after rv, oldest first, for a watch cursor. Read lock held.
 * Returns the event with RV rv + 1, or NULL when there is none yet;
 * *expired is set when rv is older than the floor (the history no longer
 * holds rv + 1).
 */
const struct fake_event *fake_store_event_after(uint64_t rv, bool *expired);

#endif
