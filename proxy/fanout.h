/*
 * fanout: worker threads that write idle watch streams, one per core.
 *
 * A watch with nothing to send leaves libmicrohttpd's loop: its
 * connection stays suspended there (so libmicrohttpd neither polls nor
 * times it out) while a fan-out worker owns the socket, writing whole
 * HTTP chunks on it with one send per connection per batch: send() on
 * the plain socket, gnutls_record_send() on the TLS session
 * libmicrohttpd made. The owner (proxy/watch.c) gives the socket back
 * with MHD_resume_connection() only to end the stream, after
 * proxy_fanout_remove(). docs/ARCHITECTURE.md says why.
 *
 * A connection with nothing to send parks on its worker under the
 * history it waits on (proxy_fanout_park()): the worker is that
 * history's waiter once for all its connections parked there, so an
 * append wakes each worker once, and the worker makes every one of them
 * ready in one step, not each connection through the locks.
 *
 * Threads: each connection belongs to one worker, chosen at
 * proxy_fanout_add(); its service callback, and every call below marked
 * "serving", run with that worker's serve lock held, one at a time: on
 * the worker, or on a thread that woke it between
 * proxy_fanout_wake_begin() and proxy_fanout_wake_end() (a reflector
 * serves the few streams it woke itself, see there).
 * proxy_fanout_wake() may be called from any thread, including with a
 * history's waiter lock held (it takes only the worker's own lock).
 * Ownership: struct proxy_fanout_conn is embedded in its owner, which
 * must not free it between proxy_fanout_add() and proxy_fanout_remove().
 */
#ifndef PROXY_FANOUT_H
#define PROXY_FANOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/history.h"
#include "config/buf.h"

struct proxy_fanout;
struct proxy_fanout_worker;

struct proxy_fanout_conn {
	/* Set by the owner before proxy_fanout_add(): called on the
	 * worker each time the connection is woken, its socket has room
	 * again or hung up, or the pool stops (then it must remove). */
	void (*service)(struct proxy_fanout_conn *fc);
	/* The rest is the pool's. gone: the client hung up or a send
	 * failed; ending: the pool is stopping. Read them in service. */
	bool gone, ending;
	struct proxy_fanout_worker *wk;
	struct proxy_fanout_conn *rprev, *rnext; /* ready list, wk->lock */
	bool queued;				 /* on it, wk->lock */
	struct proxy_fanout_conn *aprev, *anext; /* the worker's all */
	bool linked;				 /* on it */
	int fd;
	void *tls;	/* gnutls_session_t, or NULL: plain */
	uint32_t armed; /* the epoll events asked for */
	char *pend;	/* bytes of a chunk the socket did not take */
	size_t pend_len;
	size_t tls_again;   /* a TLS record send to repeat, its length */
	int64_t stalled_ms; /* since when pend has waited, 0: none */
	void *lot;	    /* parked there, or NULL; serving */
	struct proxy_fanout_conn *pprev, *pnext; /* among the parked */
};

/* Start n workers (at least 1); stall_s: a connection whose socket takes
 * nothing for this long is dropped (0: never), as libmicrohttpd's idle
 * timeout drops one it owns. NULL when out of memory or threads. */
struct proxy_fanout *proxy_fanout_new(unsigned n, unsigned stall_s);
/* At most n woken connections are served on the waking thread per
 * proxy_fanout_wake_end() (128 unless set; 0: none, every one goes to
 * its worker). Before the pool is used. */
void proxy_fanout_set_inline_max(struct proxy_fanout *fo, unsigned n);
/* Every connection's service is called with ending set (each must
 * proxy_fanout_remove() itself), then the workers are joined. Before
 * libmicrohttpd stops. NULL is a no-op. */
void proxy_fanout_stop(struct proxy_fanout *fo);
/* After proxy_fanout_stop(). */
void proxy_fanout_free(struct proxy_fanout *fo);

/* Hand fd (and its TLS session, or NULL) to the worker with the fewest
 * connections; fc is serviced at once. Any thread. Returns 0 or -errno
 * (fc is then not added; -ESHUTDOWN once the pool stops). */
int proxy_fanout_add(struct proxy_fanout *fo, struct proxy_fanout_conn *fc,
		     int fd, void *tls);
/* Service fc soon on its worker. Any thread. */
void proxy_fanout_wake(struct proxy_fanout_conn *fc);
/* fc has nothing to send until h has an event at seq: it is serviced
 * again after the next wake of h's waiters that comes once this call has
 * begun (or soon, when that event exists already), with the other
 * connections of its worker parked on h. Anything else that services it
 * meanwhile (proxy_fanout_wake(), a hang-up) takes it off. Serving.
 * Returns 0, or -ENOMEM (fc is then not parked). h must outlive the
 * pool's proxy_fanout_stop(). */
int proxy_fanout_park(struct proxy_fanout_conn *fc, struct cache_history *h,
		      uint64_t seq);
/* Hold this thread's proxy_fanout_wake()s, and the wakes of the
 * connections parked on a history, until proxy_fanout_wake_end(): no
 * worker is signalled meanwhile. Nests. Any thread
 * (cache_history_set_wake_hooks() calls the pair around a history's
 * wake of all its waiters). */
void proxy_fanout_wake_begin(void);
/* The outermost end: serve the held connections on this thread when
 * they are few (proxy_fanout_set_inline_max()) and their worker is not
 * serving now, and signal the workers for the rest. The services run
 * here, so the caller must hold no lock they take. */
void proxy_fanout_wake_end(void);
/* Take fc out of its worker: its socket is the owner's again. Serving.
 * Returns false when bytes of a chunk were left unsent (the
 * stream is broken and must end with an error). */
bool proxy_fanout_remove(struct proxy_fanout_conn *fc);

/* Write what an earlier send left. Returns true while bytes remain (the
 * worker services fc again once the socket has room); sets gone when
 * the socket failed. Serving. */
bool proxy_fanout_flush(struct proxy_fanout_conn *fc);
/* The worker's scratch buffer for the next chunk's data, empty, with
 * room kept in front for the chunk's size line. Serving. */
struct buf *proxy_fanout_chunk(struct proxy_fanout_conn *fc);
/* Frame what the scratch buffer holds as one HTTP chunk and send it; a
 * remainder the socket did not take is kept for proxy_fanout_flush().
 * Sets gone when the socket failed. Serving. */
void proxy_fanout_chunk_send(struct proxy_fanout_conn *fc);

/* Connections now in the pool's workers (for /metrics). Any thread. */
long proxy_fanout_count(const struct proxy_fanout *fo);

#endif
