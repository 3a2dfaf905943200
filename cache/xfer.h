/*
 * xfer: one upstream GET of a reflector (a LIST page or a WATCH), its
 * body handed to a callback that the caller sets.
 *
 * The request carries the upstream's credentials (built for each
 * request, so a rotated token is used), takes an --upstream-qps token
 * unless told not to, and records what /readyz and the log explain a
 * resource with: its last status, its last transport error, whether the
 * upstream answers. A 200's body goes to on_data as it arrives; any
 * other answer's body (a Status) is kept in body for the log.
 *
 * A transfer ends early when its resource is asked to stop, or when its
 * caller cancels it (set cancel, then cache_xfer_conn_wake): at once, as
 * neither waits for libcurl's once-a-second tick. A WATCH from an
 * upstream that sends BOOKMARKs also ends after silence past the stall
 * timeout, noticed within a second.
 *
 * Threads: a transfer runs in the thread that calls cache_xfer_get, on a
 * connection that thread owns for the call; only cancel may be touched
 * from another thread meanwhile.
 */
#ifndef CACHE_XFER_H
#define CACHE_XFER_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/resource_int.h"
#include "config/buf.h"

/* An upstream connection: kept across transfers, so that LIST pages and
 * WATCHes reuse it. Its transfers run on its own multi handle, which
 * polls the resource's stop pipe and which cache_xfer_conn_wake wakes. */
struct cache_xfer_conn {
	CURL *easy;
	CURLM *multi;
};

/* Open conn to r's upstream, with the stall rules of a LIST. Returns 0,
 * or -ENOMEM with err set. */
int cache_xfer_conn_open(struct cache_xfer_conn *conn, struct cache_resource *r,
			 char *err, size_t errlen);
/* NULL members are fine; conn is left closed. */
void cache_xfer_conn_close(struct cache_xfer_conn *conn);
/* Make conn's transfer look at its cancel flag now, from any thread
 * (curl_multi_wakeup). NULL is fine. */
void cache_xfer_conn_wake(struct cache_xfer_conn *conn);

/* The stall rules of a LIST on conn: no deadline, a stall timeout. */
void cache_xfer_conn_list_rules(struct cache_xfer_conn *conn,
				struct cache_resource *r);

struct cache_xfer {
	struct cache_resource *r;
	/* Told each piece of a 200's body, in the transferring thread;
	 * returns len to go on, anything else to end the transfer (a
	 * callback that ends it with a reason of its own sets ended, so
	 * that the transport error is not logged too). */
	size_t (*on_data)(struct cache_xfer *x, char *data, size_t len);
	void *ctx;	/* the caller's, for on_data */
	bool watch;	/* a WATCH: its 200 headers mark the upstream healthy,
		     * silence past the stall timeout ends it once the
		     * upstream sends BOOKMARKs, and it is not observed as a
		     * LIST */
	bool continued; /* takes no --upstream-qps token (lister.h) */
	bool cancel;	/* atomic; set from any thread: end quietly */
	bool ended;	/* on_data ended the transfer and said why */
	/* out */
	CURL *c;	      /* the connection it came on (for getinfo) */
	struct buf body;      /* not a 200: its Status body; else the
			       * caller's (on_data may fill it) */
	int retry_after;      /* seconds, from a 429/503's Retry-After */
	int64_t opened_ms;    /* monotonic; when the answer began */
	int64_t last_byte_ms; /* monotonic; when body bytes last came */
	bool stalled;	      /* ended for silence past the stall timeout */
};

/* GET url on conn. Returns the HTTP status, or -1 on a transport error,
 * a stop, a cancel (then nothing is logged or recorded), or a stall. */
long cache_xfer_get(struct cache_xfer *x, struct cache_xfer_conn *conn,
		    const char *url);

#endif
