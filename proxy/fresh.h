/*
 * fresh: reads that must see a state at least as new as the upstream's.
 *
 * A LIST or GET without resourceVersion is a consistent read: it must
 * include every write the upstream had acknowledged when the request
 * arrived. We ask the upstream for its current RV with a cheap `limit=1`
 * LIST (a quorum read there; one probe serves every request that arrived
 * before it started), then:
 *   - the cache is there already: answer from the cache;
 *   - the resource is busy (it changed in the last two seconds), so its
 *     watch will pass that RV within milliseconds: wait up to 15 ms, then
 *     answer from the cache;
 *   - otherwise the cache cannot prove it is new enough: in a real
 *     cluster the RV is etcd's revision, which Lease renewals move every
 *     few seconds while a quiet resource's watch stays put until its next
 *     BOOKMARK, a minute away. The read is sent to the upstream as it
 *     came (PROXY_FRESH_UPSTREAM) and the answer streamed back.
 * A quiet resource stays behind: the upstream's RV only grows, so while
 * the cache's RV has not moved since a probe found it behind, another
 * probe could only say the same. For 2 s after such a probe, an RV-less
 * read of a resource that is not busy and whose store is still at the
 * RV the probe saw skips it: a GET waits for a GET of its object (the
 * cache answers when its copy is the upstream's or newer, or both lack
 * it), a LIST of the whole collection, under 500 objects and cached
 * whole, for a LIST of it compared with the store (the same objects at
 * the same RVs); any other read, or one those fail to prove, goes
 * upstream (counted apart when without any probe). A read found behind
 * after an RV probe tries the same once. An event, BOOKMARK or relist
 * moves the store and brings the RV probe back. While such reads come,
 * one of them every 0.5 s asks for an RV probe in the background, which
 * renews the finding, or ends it when the probe fails or finds the cache
 * there.
 *
 * Coalescing: per resource, one probe of each kind (RV, object, list) is
 * in flight at a time, numbered. A read waits for the next one not yet
 * sent, so for at most the one in flight and the next, and every read
 * arriving before a probe is sent shares it: the upstream sees one probe
 * of each kind per resource per round trip, however many reads wait. A
 * probe sent after a read arrived answers for a moment after it, which
 * is what makes the read linearizable (docs/CONSISTENCY.md).
 * A resourceVersion=N read whose N the cache has not reached follows the
 * same rule: a short wait when busy, else the upstream answers it (with
 * its own 3 s wait and 504 for an N from the future).
 *
 * An RV-less WATCH is never sent upstream (that would cost the upstream a
 * watch per client): it waits up to 250 ms for the probed RV and then
 * starts from the cache, whose watch brings any write it missed as an
 * event. A watch-list from resourceVersion=N (its initial state must be
 * at N or later) follows the read's rule: N is often a revision a quiet
 * resource's cache will not reach for a minute, where the apiserver
 * answers at once, so the upstream serves it, streamed back as it is
 * (the apiserver's own 3 s wait and ERROR event for an N from the
 * future included).
 *
 * Waiting never holds a thread: the connection is suspended and resumed
 * when the reflector reports progress, a probe answers, or the deadline
 * passes (the prober thread keeps time). If the upstream cannot be asked,
 * reads are served from the cache as they are (PROXY_FRESH_STALE), counted,
 * and logged once per outage: a sidecar keeps answering while its
 * upstream is away.
 *
 * Threads: proxy_fresh_await()/_wait()/_cancel() on the libmicrohttpd
 * thread serving the request; _progress from the reflector thread; _tick
 * from the ticker; the prober is fresh's own thread. A suspended
 * connection is resumed by whichever of these settles its wait
 * (MHD_resume_connection() under fresh's lock), and by _stop().
 * struct proxy_wait is the request's (in struct proxy_fresh_req), taken
 * off the list by _cancel() when the request ends first.
 */
#ifndef PROXY_FRESH_H
#define PROXY_FRESH_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache/resource.h"
#include "proxy/rv.h"

struct proxy_fresh;

enum proxy_fresh_result {
	PROXY_FRESH_WAITING,
	PROXY_FRESH_OK,	      /* the cache is new enough */
	PROXY_FRESH_UPSTREAM, /* not proven in time: a read or watch-list
				 * goes upstream, an RV-less watch starts
				 * from the cache */
	PROXY_FRESH_STALE,    /* the upstream could not be asked */
	PROXY_FRESH_TIMEOUT,  /* shutdown */
};

struct proxy_wait {
	struct proxy_wait *next; /* in the fresh list; locked */
	struct MHD_Connection *conn;
	struct cache_resource *r;
	/* A GET's object (ns "": cluster-scoped; NULL name: not a GET),
	 * set by the caller and read by _wait(), which copies them into
	 * get_ns and get_name ("" name: not a GET). */
	const char *ns, *name;
	char get_ns[254], get_name[254];
	/* Set by the caller: a LIST of the whole collection the cache holds
	 * (no narrower namespace, no selector), which a list probe of it
	 * costs no more than. */
	bool whole;
	uint64_t need_gen;   /* the probe that must answer; 0 = none */
	uint64_t need_obj;   /* the object probe that must answer; 0 = none */
	uint64_t need_list;  /* the list probe that must answer; 0 = none */
	bool rejoined;	     /* found behind, then joined one of those */
	uint64_t need_rv;    /* the RV the cache must reach */
	int64_t deadline_ms; /* monotonic */
	bool consistent;     /* an RV-less request: probe first */
	bool watch;	     /* a watch: goes upstream only with an RV */
	bool unprobed;	     /* sent upstream without a probe (known behind) */
	enum proxy_fresh_result result; /* locked until no longer WAITING */
	bool queued;			/* locked */
};

struct proxy_fresh *proxy_fresh_new(const struct cache_upstream *up,
				    struct cache_resource **res, int nres);
/* Resume every waiter (they see PROXY_FRESH_TIMEOUT) and stop the prober. */
/* Probe for r too: a reflector a reload appended to the array given to
 * proxy_fresh_new(), at its next index. 0, or -ENOSPC. */
int proxy_fresh_add(struct proxy_fresh *f, struct cache_resource *r);
void proxy_fresh_stop(struct proxy_fresh *f);
void proxy_fresh_free(struct proxy_fresh *f);

/*
 * Decide whether w can be answered now, else start waiting (suspending
 * the connection). The caller fills conn, r, watch, and need_rv for a
 * known RV or probe = true for an RV-less request. Returns false when
 * the outcome is known at once (w->result says it), true when the
 * connection was suspended; it is resumed with w->result set.
 */
bool proxy_fresh_wait(struct proxy_fresh *f, struct proxy_wait *w, bool probe);
/* Take w off the list if it is still there (its request ended). */
void proxy_fresh_cancel(struct proxy_fresh *f, struct proxy_wait *w);
/* Called from the reflector thread after each published change. */
void proxy_fresh_progress(void *ctx, struct cache_resource *r);
/* Called by the ticker: deadlines pass even while the prober itself is
 * stuck in a probe to an upstream that does not answer. */
void proxy_fresh_tick(struct proxy_fresh *f);

/* The state of one request the cache answers, across the calls of the
 * access handler (a read that waits for freshness is called again when
 * it is resumed). */
struct proxy_fresh_req {
	bool waited;   /* wait holds the outcome */
	bool upstream; /* a read the upstream must answer */
	bool encoded;  /* its protobuf encodings were made off its thread
			* (encode.h): not handed over twice */
	struct proxy_wait wait;
};

/*
 * Make sure the cache is as new as the request needs: for an RV-less
 * request (q->rv unset and not "0"), at least the upstream's RV when the
 * request came (a consistent read); for resourceVersion=N, at least N.
 * Returns 0 to go on from the cache, or 1 with *res set: suspended (the
 * handler runs again when resumed; call again then), answered (504 at
 * shutdown), or, for a read or a watch-list from N, handed to the
 * upstream (req->upstream set: the cache cannot prove it fresh).
 */
int proxy_fresh_await(struct proxy_fresh *f, struct MHD_Connection *c,
		      struct cache_resource *r, const struct proxy_rv_req *q,
		      bool watch, struct proxy_fresh_req *req,
		      enum MHD_Result *res);

#endif
