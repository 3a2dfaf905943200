/*
 * reflector_int: what the reflector's two files share, reflector.c (the
 * thread, watches, applying changes) and lister.c (full paged LISTs). Not
 * for other modules.
 */
#ifndef CACHE_REFLECTOR_INT_H
#define CACHE_REFLECTOR_INT_H

#include <curl/curl.h>

#include "cache/json.h"
#include "cache/reflector.h"
#include "config/buf.h"

/* How a LIST or WATCH ended. REFL_RETRY: the connection failed or went
 * silent, resume the watch; REFL_REFUSED: the upstream answered 429/5xx,
 * resume after backing off; REFL_ERROR: the bytes were wrong, relist;
 * REFL_EXPIRED: 410, relist; REFL_BACKWARDS: the upstream's RV is below
 * ours (a wiped cluster), relist. */
enum {
	REFL_OK,
	REFL_RETRY,
	REFL_REFUSED,
	REFL_EXPIRED,
	REFL_ERROR,
	REFL_STOP,
	REFL_BACKWARDS
};

/* One upstream request in flight. */
struct xfer {
	struct cache_resource *r;
	CURL *c;
	struct buf body; /* LIST: the whole page; else an error body */
	size_t body_max; /* LIST: bytes the page may have, 0: any */
	bool body_over;	 /* LIST: the page went past body_max */
	bool continued;	 /* LIST: a continue page that takes no
			  * --upstream-qps token (REFL_FREE_PAGE_MIN) */
	int retry_after; /* seconds, from a 429/503's Retry-After */
	/* LIST pages through a pager (pager.h): on_head is told as bytes
	 * arrive until it sets head_done; cancel (atomic) aborts the
	 * transfer, which then ends quietly */
	void (*on_head)(struct xfer *x);
	void *pager;
	bool head_done;
	bool cancel;
	/* WATCH only */
	bool watch;
	struct buf line;    /* an incomplete line carried over; it
					 * holds no newline between callbacks */
	uint64_t stream_rv; /* highest RV this stream has carried
					 * (event or BOOKMARK), 0: none yet */
	struct json_doc doc;
	int result; /* REFL_* once the stream must end */
	uint64_t events;
	int64_t opened_ms;    /* monotonic; when the answer began */
	int64_t last_byte_ms; /* monotonic; watch bytes last came */
	bool stalled;	      /* ended for silence past the stall timeout */
};

/* A continue page takes no --upstream-qps token when the page two before
 * it brought this much (the one before is still arriving when the next
 * is asked for), or when it is the LIST's second page: such requests are
 * bounded by the LIST's byte budget. After smaller pages (an upstream
 * answering with near-empty pages and new tokens) each pays, as any
 * request. */
#define REFL_FREE_PAGE_MIN ((size_t)64 * 1024)

/* The objects of a LIST, in the upstream's order. */
struct listing {
	struct cache_obj **objs;
	size_t n, cap;
	uint64_t rv;
	uint64_t remaining; /* a page's remainingItemCount, 0: none */
};

/* The limits in force (cache_upstream's, or config/limits.h's). */
size_t cache_refl_page_max(const struct cache_resource *r);
size_t cache_refl_line_max(const struct cache_resource *r);
size_t cache_refl_list_max(const struct cache_resource *r);

/* Count and log one upstream object skipped for why (enum
 * cache_reject): by its key, read as well as the bytes allow. what says
 * where ("list", "watch"). Logs when *logged (atomic; may be NULL) was
 * below a few, so that a LIST of many bad items stays readable. */
void cache_refl_reject(struct cache_resource *r, const char *what,
		       const struct json_doc *d, int root, int why,
		       const char *err, unsigned *logged);

/* One watch event line, decoded but not applied. */
enum {
	REFL_EV_ADDED,
	REFL_EV_MODIFIED,
	REFL_EV_DELETED,
	REFL_EV_BOOKMARK,
	REFL_EV_ERROR
};
struct cache_refl_event {
	int type;      /* REFL_EV_* */
	int obj;       /* the "object" member's token in the doc */
	uint64_t rv;   /* its resourceVersion; 0 for ERROR */
	int64_t code;  /* ERROR: the Status code, 0 if none */
	char msg[256]; /* ERROR: the Status message, "" if none */
};

/*
 * Tokenize one event line into d and read what applying it needs. Accepts
 * a JSON object with a "type" and an object-valued "object"; an ERROR
 * needs nothing more, every other type a numeric
 * object.metadata.resourceVersion and one of ADDED, MODIFIED, DELETED,
 * BOOKMARK. Refuses anything else with -EINVAL and err set ("malformed
 * event: ...", "event without type or object", ...). Touches nothing but
 * d, ev and err, so a fuzzer can drive it alone.
 */
int cache_refl_event_decode(struct json_doc *d, const char *line, size_t len,
			    const struct json_shape *shape,
			    struct cache_refl_event *ev, char *err,
			    size_t errlen);

bool cache_refl_stopping(struct cache_resource *r);
void cache_refl_stat_inc(uint64_t *s);
/* Note the upstream failing (for /readyz's grace period). */
void cache_refl_mark_failing(struct cache_resource *r);
/* The stall rules of a LIST on c (no deadline, a stall timeout). */
void cache_refl_list_rules(struct cache_resource *r, CURL *c);
/* GET url on c; returns the HTTP status, or -1 on a transport error. */
long cache_refl_http_get(struct cache_resource *r, CURL *c, const char *url,
			 struct xfer *x);
/* Log the message of an upstream Status body, if there is one. */
void cache_refl_log_status(struct cache_resource *r, const char *what,
			   long code, const struct buf *body);
void cache_refl_listing_free(struct listing *l);
/* A full paged LIST into l. Returns REFL_OK, REFL_ERROR or REFL_STOP. */
int cache_refl_list_all(struct cache_resource *r, CURL *c, struct listing *l);

#endif
