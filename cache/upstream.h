/*
 * upstream: how every libcurl handle of the process reaches the apiserver.
 *
 * One place sets the base URL, TLS verification and credentials on a
 * handle, so the reflectors, discovery and passthrough cannot drift
 * apart. The struct is filled once at startup and read-only after.
 */
#ifndef CACHE_UPSTREAM_H
#define CACHE_UPSTREAM_H

#include <curl/curl.h>
#include <stdbool.h>

#include "cache/ratelimit.h"
#include "config/buf.h"

struct config_upstream;

struct cache_upstream {
	const char *server;	       /* base URL, no trailing slash */
	struct config_upstream *creds; /* TLS and auth; NULL: none */
	struct cache_ratelimit
		*limit;	    /* the proxy's own requests; may be NULL */
	int page_size;	    /* LIST limit */
	int watch_timeout;  /* seconds; 0 = randomized 300-600 */
	int backoff_max_ms; /* cap of the retry backoff */
	int stall_seconds;  /* no byte this long: the stream is dead
					 * (only where BOOKMARKs are sent) */
	int settle_seconds; /* an RV seen this long ago has reached
					 * an open watch (rvclock.h) */
	bool strip_managed_fields;
	int progress_interval; /* seconds between the info lines of a full
				* LIST's progress; 0: 5, < 0: after every page */
	/* Bounds on what the upstream may cost (config/limits.h); 0: the
	 * default there. */
	size_t page_max;   /* bytes of one LIST page */
	size_t line_max;   /* bytes of one watch event or list item */
	size_t list_max;   /* bytes of all the pages of one LIST */
	size_t answer_max; /* bytes of one answer read whole by
			    * cache_upstream_ask() */
};

/* Count one upstream request (verb: CONFIG_VERB_*, code: the HTTP
 * status or <= 0 for a transport error) that took seconds, in the
 * histogram informer_proxy_upstream_request_duration_seconds. Watches,
 * which last for minutes by design, are not counted. Any thread. */
void cache_upstream_observe(int verb, long code, double seconds);
/* Its family, for /metrics. */
void cache_upstream_metrics(struct buf *out);

/* A new easy handle with the process-wide options (timeouts, keepalive,
 * user agent, verification on). NULL on failure, with err set. */
CURL *cache_upstream_easy(const struct cache_upstream *up, char *err,
			  size_t errlen);
/*
 * Set TLS material on c and append the request headers to *hdrs: the
 * proxy's own Authorization unless with_auth is false (a passthrough
 * request that carries the client's). Call it for every request, so a
 * rotated token file is read again. The caller passes *hdrs with
 * CURLOPT_HTTPHEADER, frees it after the transfer and never logs it.
 * Returns 0 or -errno with err set (e.g. an unreadable token file).
 */
int cache_upstream_prepare(const struct cache_upstream *up, CURL *c,
			   bool with_auth, struct curl_slist **hdrs, char *err,
			   size_t errlen);

/*
 * One small upstream request whose answer the proxy reads whole for
 * itself: an RV probe, a discovery document, a delegated-auth review.
 * The answer is bounded by up->answer_max (LIMIT_UPSTREAM_ANSWER_BYTES
 * when 0) and the whole request by LIMIT_UPSTREAM_ANSWER_TIMEOUT_S; past
 * the size the transfer is cut, logged (at most every 10 s per what) and
 * counted in informer_proxy_upstream_answer_too_large_total{what}.
 */
struct cache_upstream_ask {
	const char *what;   /* CACHE_UPSTREAM_PROBE, ... (names the metric's
			     * label and the log line) */
	const char *method; /* NULL: GET */
	const char *path;   /* with its query */
	const char *body;   /* a JSON request body, or NULL */
	size_t body_len;
	const char *accept; /* NULL: application/json */
	const bool *stop;   /* atomic; gives up once true; may be NULL */
	/* NULL: a connection of its own, closed after. Else a handle kept
	 * by the caller across requests (made here on first use; the caller
	 * frees it with curl_easy_cleanup()), whose connection is reused:
	 * no new TCP and TLS handshake for every request. One thread at a
	 * time per handle. */
	CURL **keep;
	int *curl_code; /* out, may be NULL: the transfer's CURLcode, so a
			 * caller can tell TLS failures from the rest */
};

#define CACHE_UPSTREAM_PROBE "probe"
#define CACHE_UPSTREAM_DISCOVERY "discovery"
#define CACHE_UPSTREAM_TOKENREVIEW "tokenreview"
#define CACHE_UPSTREAM_ACCESSREVIEW "subjectaccessreview"

/* Make the request q; the answer's body into body, its Content-Type into
 * content_type (may be NULL). Returns the HTTP status, or -1 with err set
 * (a transport error, a stop, or an answer past the bound). Any thread;
 * blocks. */
long cache_upstream_ask(const struct cache_upstream *up,
			const struct cache_upstream_ask *q, struct buf *body,
			struct buf *content_type, char *err, size_t errlen);

/* A GET by cache_upstream_ask(), for what (CACHE_UPSTREAM_*). */
long cache_upstream_get(const struct cache_upstream *up, const char *what,
			const char *path, const char *accept, const bool *stop,
			struct buf *body, struct buf *content_type, char *err,
			size_t errlen);

/* Whether CURLcode rc is a failure of the upstream's TLS handshake or
 * certificate, which retrying will not fix. */
bool cache_upstream_tls_failure(int rc);

/*
 * Why the upstream's certificate was not accepted (rc: the CURLcode of
 * the failed transfer), in one line into msg saying what to fix: a host
 * name mismatch (naming the names the certificate holds, its
 * subjectAltNames or else its subject, and the name asked for: the
 * server URL's host or the kubeconfig's tls-server-name) when the
 * certificate verifies against the CA but not for that name; else a
 * certificate the CA does not verify, with libcurl's words (rc's when
 * the second look could not reach the upstream). One short TLS
 * connection of its own. Any thread; blocks up to 10 s.
 */
void cache_upstream_tls_explain(const struct cache_upstream *up, int rc,
				char *msg, size_t len);

/* Answers past the bound so far, for what (tests). */
unsigned long cache_upstream_too_large(const char *what);

#endif
