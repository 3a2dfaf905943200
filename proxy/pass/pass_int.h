/*
 * pass_int: what the two halves of passthrough share, for pass.c (the
 * request side, on libmicrohttpd's threads) and pass_pool.c (the
 * passthrough thread, the only one to call libcurl) alone.
 *
 * A struct proxy_pass is shared by the libmicrohttpd thread serving the
 * client and the curl thread; its lock guards the fields marked "locked".
 * It is reference counted: the request (until proxy_pass_done), the
 * response (until its free callback) and the curl transfer (until it is
 * removed from the multi handle) each hold one reference; the last
 * proxy_pass_put() frees it. A pass reaches the curl thread through
 * pool->incoming (under pool->lock), and from then on pool->active and
 * the curl handle's options are that thread's alone.
 */
#ifndef PROXY_PASS_INT_H
#define PROXY_PASS_INT_H

#include <curl/curl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/scope.h"
#include "cache/upstream.h"
#include "config/buf.h"
#include "config/limits.h"
#include "proxy/pass/credpool.h"
#include "proxy/pass/pass.h"

#define HIGH_WATER (1024 * 1024) /* pause the upstream above this */
#define LOW_WATER (256 * 1024)	 /* and resume it below this */
/* What one request body may hold here at a time: the client is read no
 * further (its connection suspended) while this much waits for libcurl. */
#define UPLOAD_BUF LIMIT_REQUEST_BODY_BUFFER
/* An answer that is not long running is sent to the client only once it
 * is whole or this much of it is in: a failure before then is answered
 * with a Status, never with a body cut short. */
#define HOLD_BYTES (64 * 1024)

enum pass_state {
	PASS_NEW,
	PASS_STARTED,
	PASS_HEADERS,
	PASS_DONE,
	PASS_FAILED
};

struct proxy_pass {
	struct proxy_pass_pool *pool;
	struct MHD_Connection *conn;
	CURL *easy;
	struct curl_slist *hdrs;
	char *method;
	int verb; /* CONFIG_VERB_*, for the upstream histogram */
	struct buf url;
	bool strip_identity; /* drop Impersonate-*, X-Remote-* ... */
	bool has_body;	     /* a Content-Length above 0, or chunked */
	int64_t body_length; /* the client's Content-Length; -1: chunked */
	int64_t body_seen;   /* bytes of it taken from libmicrohttpd */
	bool too_large;	     /* a chunked body past the limit */
	bool watch;	     /* a watch: ended at an event's end on drain */
	bool shape;	     /* a read given the cache's shape (strip) */
	struct cache_scope scope;      /* its strip paths, owned */
	bool strip_managed;	       /* and metadata.managedFields */
	bool hold;		       /* not long running: held (HOLD_BYTES) */
	bool idempotency_key;	       /* (X-)Idempotency-Key: may be retried */
	struct proxy_credpool_key key; /* whose connections it may use */
	CURLSH *share;		       /* curl thread; its pool's, or NULL */
	bool retried;		       /* curl thread; sent a second time */
	char errbuf[CURL_ERROR_SIZE];
	struct proxy_pass *next; /* pool->active, curl thread only */

	pthread_mutex_t lock;
	int refs;	       /* locked */
	enum pass_state state; /* locked */
	long status;	       /* locked */
	int64_t length;	       /* locked; upstream Content-Length, -1 */
	struct buf resp_hdrs;  /* locked; "name\0value\0" pairs */
	struct buf data;       /* locked; bytes not yet sent */
	size_t data_off;       /* locked */
	bool suspended;	       /* locked; the client connection */
	bool paused;	       /* locked; the curl transfer */
	bool want_unpause;     /* locked */
	bool gone;	       /* locked; the client went away */
	/* the request body on its way up, at most UPLOAD_BUF */
	struct buf up;	      /* locked; bytes libcurl has not read */
	size_t up_off;	      /* locked */
	bool up_done;	      /* locked; the client sent all of it */
	bool up_read;	      /* locked; libcurl has read some */
	bool up_paused;	      /* locked; the curl transfer's sending */
	bool want_up_unpause; /* locked */
	bool reserved;	      /* locked; UPLOAD_BUF of the pool's budget */
	bool over;	      /* locked; a shaped answer past its bound */
	/* where the bytes sent so far end, for ending a watch cleanly */
	bool proto;	     /* locked; protobuf frames, not JSON lines */
	bool encoded;	     /* locked; compressed: no event ends known */
	bool mid_event;	     /* locked; the last event is partly sent */
	unsigned frame_hdr;  /* locked; protobuf: length bytes seen */
	uint32_t frame_len;  /* locked; protobuf: the length so far */
	uint64_t frame_left; /* locked; protobuf: its bytes still due */
};


struct proxy_pass_pool {
	const struct cache_upstream *up;
	bool lend_identity; /* a client without credentials acts as
					 * the proxy (loopback-only mode) */
	int timeout_s;	    /* non-long-running requests; 0: none */
	int64_t max_body;   /* bytes of one request body */
	size_t held;	    /* atomic; UPLOAD_BUF for each body in flight */
	CURLM *multi;
	pthread_t thread;
	pthread_mutex_t lock; /* guards incoming and stop */
	struct proxy_pass *incoming;
	bool stop;
	bool stopped;		      /* main thread only */
	bool ending;		      /* atomic; the drain: watches end */
	struct proxy_pass *active;    /* curl thread only */
	struct proxy_credpool *creds; /* curl thread only: a pool of
				       * connections per credential */
};

/* The most of a shaped answer read whole (proxy_pass_shape). */
static inline size_t shape_max(const struct proxy_pass_pool *pool)
{
	return pool->up->page_max ? pool->up->page_max :
				    LIMIT_UPSTREAM_PAGE_BYTES;
}

/* Wake the curl thread: new work, a transfer to unpause, a client gone.
 * Any thread. */
static inline void wake_pool(struct proxy_pass_pool *pool)
{
	curl_multi_wakeup(pool->multi);
}

/* Drop one reference to pass; the last frees it (its curl handle, its
 * buffers, its share of the pool's body budget). Any thread, pass->lock
 * not held. */
void proxy_pass_put(struct proxy_pass *pass);

#endif
