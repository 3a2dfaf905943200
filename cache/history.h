/*
 * history: a bounded ring of one resource's watch events, each encoded
 * once, read by any number of watchers.
 *
 * An event keeps the new object, the previous one (so a watcher whose
 * filter stops matching can be sent DELETED) and its wire line
 * {"type":"...","object":{...}}\n, built once at append and shared by
 * every watcher that sends it unchanged.
 *
 * A watcher is a cursor: the sequence number of the next event it wants.
 * Sequence numbers grow by one per event; the ring keeps the last cap of
 * them. A cursor that falls more than cap behind has lost events and must
 * go the 410 way.
 *
 * Threads: one writer (the resource's reflector) appends. Readers call
 * cache_history_get() from any thread without a lock (RCU). Waiters sleep
 * on a per-history list under a mutex; the writer wakes them all after
 * each append, or once after a batch of them (cache_history_add).
 */
#ifndef CACHE_HISTORY_H
#define CACHE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/obj.h"

enum cache_ev_type {
	CACHE_ADDED,
	CACHE_MODIFIED,
	CACHE_DELETED
};

struct cache_event {
	uint32_t refs; /* atomic */
	uint8_t type;  /* enum cache_ev_type */
	uint64_t seq;
	uint64_t rv;
	int64_t arrived_ns; /* monotonic: when its bytes came from upstream */
	struct cache_obj *obj;	/* owned; for DELETED the last state */
	struct cache_obj *prev; /* owned; NULL for ADDED */
	/* The line in another encoding (the proxy's protobuf watch frame),
	 * made on first demand and published with cache_blob_publish();
	 * NULL until then. Atomic; freed with the event. */
	struct cache_blob *twin;
	/* The line with the object's metadata alone (a metadata-only
	 * watch's, meta.k8s.io/v1), and its protobuf frame, made and
	 * published the same way. */
	struct cache_blob *meta, *meta_pb;
	/* prev at this event's RV: what a watch this event takes out of its
	 * filter is sent as DELETED (cache_history_ev_left()), made on first
	 * demand and published by compare and swap. NULL until then.
	 * Atomic; freed with the event. */
	struct cache_obj *left;
	size_t len;
	char line[]; /* the wire line, ending in \n */
};

/* "ADDED", "MODIFIED", "DELETED" */
const char *cache_history_ev_type_name(int type);

struct json_shape;
/*
 * The state before ev at ev's RV (cache_obj_with_rv() of ev->prev, with
 * the kind's object shape), made once for all the watches ev takes out of
 * their filter and kept on ev. Borrowed: valid while the caller holds ev.
 * NULL for an event without prev, or when out of memory. Any thread.
 */
struct cache_obj *cache_history_ev_left(struct cache_event *ev,
					const struct json_shape *shape);

struct cache_waiter {
	struct cache_waiter *prev, *next; /* guarded by the history */
	/* Called with the history's waiter lock held: must not call back
	 * into the history. */
	void (*wake)(struct cache_waiter *w);
	bool queued;
};

struct cache_history;

/* floor: the RV the history starts at; a watch may start from any RV at
 * or above it. It keeps cap events (at least one), no more. */
struct cache_history *cache_history_new(size_t cap, uint64_t floor);
/* After every reader is gone and rcu_barrier(). */
void cache_history_free(struct cache_history *h);

/*
 * Append an event (the history takes references on obj and prev), then
 * wake every waiter. Writer thread only. Returns 0 or -ENOMEM.
 */
int cache_history_append(struct cache_history *h, int type, uint64_t rv,
			 struct cache_obj *obj, struct cache_obj *prev);
/*
 * The same without the wake: for a writer that appends a batch (what
 * one read from upstream brought) and then calls
 * cache_history_wake_all() once, so each waiter is woken once per batch,
 * not once per event. A waiter never sleeps past an added event (the
 * wait checks the head under the waiter lock), but one already asleep
 * stays asleep until that wake. Writer thread only.
 */
int cache_history_add(struct cache_history *h, int type, uint64_t rv,
		      struct cache_obj *obj, struct cache_obj *prev);
/* Events appended from now on arrived at ns (monotonic, as
 * cache_history_now_ns()); 0: at their append. Writer thread only. */
void cache_history_stamp(struct cache_history *h, int64_t ns);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t cache_history_now_ns(void);

/* Forget every event and start again at floor: for when the upstream's
 * RVs stop being comparable (a wiped cluster). Writer thread only. */
void cache_history_reset(struct cache_history *h, uint64_t floor);

/* The sequence number the next append will get. */
uint64_t cache_history_head(struct cache_history *h);
/* The smallest RV a watch may start from. */
uint64_t cache_history_floor(struct cache_history *h);

/*
 * Where a watch from rv starts: the sequence number of the first event
 * with an RV above rv. Returns 0, or -ERANGE when rv is below the floor
 * (*floor then says the floor, for the 410 message).
 */
int cache_history_start(struct cache_history *h, uint64_t rv, uint64_t *seq,
			uint64_t *floor);

/*
 * The event at seq, with a reference (cache_history_event_put). Returns 0,
 * -EAGAIN if it has not happened yet, or -ERANGE if it has been
 * overwritten (the reader fell too far behind). Any thread.
 */
int cache_history_get(struct cache_history *h, uint64_t seq,
		      struct cache_event **ev);
void cache_history_event_put(struct cache_event *ev);

/*
 * Queue w to be woken by the next append, unless an event at or after seq
 * exists already. Returns true if queued. suspend, when not NULL, runs
 * under the waiter lock right before w is queued, so a wake can never
 * arrive between the check and the sleep; if it returns false, w is not
 * queued (e.g. the server is shutting down).
 */
bool cache_history_wait(struct cache_history *h, struct cache_waiter *w,
			uint64_t seq, bool (*suspend)(struct cache_waiter *w));
/* The RV up to which every event has been appended: a watcher whose
 * cursor is at the head has seen everything up to it. */
uint64_t cache_history_progress(struct cache_history *h);
/* Record that upstream has moved on to rv without events for us (an
 * upstream bookmark). Writer thread only. */
void cache_history_set_progress(struct cache_history *h, uint64_t rv);
/* Take w off the queue if it is there (e.g. the client went away). */
void cache_history_unwait(struct cache_history *h, struct cache_waiter *w);
/* Wake every waiter now (timeouts, bookmarks, shutdown). */
void cache_history_wake_all(struct cache_history *h);
/* How many waiters are queued now. Any thread. */
size_t cache_history_waiters(struct cache_history *h);
/*
 * Calls around every cache_history_wake_all(), on the waking thread:
 * begin before the waiter lock is taken, end once it is released, so a
 * waiter's wake (which runs under that lock and must not call back into
 * the history) can leave work for end, which may. The proxy's fan-out
 * uses them to write the woken streams on the waking thread instead of
 * waking another (proxy/fanout.h). Set once, before any history is
 * woken; NULL: none. Process-wide.
 */
void cache_history_set_wake_hooks(void (*begin)(void), void (*end)(void));

#endif
