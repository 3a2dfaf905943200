/*
 * pass: passthrough, forwarding what the cache does not serve to the
 * upstream.
 *
 * Writes, subresources, uncached resources, /openapi and anything else go
 * to the apiserver through libcurl, driven by one thread (the passthrough
 * thread) running a curl multi handle. The response streams back as it
 * arrives (a watch of an uncached resource included): status, headers
 * and body are passed on as they are. Who the upstream sees is
 * forward.h's decision: a client's own Authorization is forwarded alone
 * (no proxy token, no proxy client certificate); see
 * proxy_pass_pool_new() for a client that sent none. A request body
 * streams to the upstream as it comes (with the client's Content-Length,
 * or chunked as the client sent it); one larger than the limit
 * (proxy_pass_pool_set_max_body()) is refused with 413 before anything
 * is forwarded.
 *
 * Upstream connections are never shared between credentials: each has
 * a pool of its own (credpool.h), so one client's bad token, after which
 * the apiserver ends the connection, cannot cut another's requests. A
 * request whose reused connection failed under it before any answer is
 * sent again once on a fresh one when it can be replayed (retry.h); one
 * that failed for good gets 503. An answer that is not long running is
 * held until whole or 64 KiB in: an upstream failing before then gets a
 * 503 Status, never a body cut short; after, the client's connection is
 * closed before the body's end, which a client sees as an error.
 *
 * Flow control, both ways, so that memory per request stays bounded
 * whatever the sizes (LIMIT_REQUEST_BODY_BUFFER of request body, about
 * 1 MiB of response): a connection with nothing to send is suspended
 * until upstream bytes arrive; an upstream that outruns its client is
 * paused until the client drains; a client whose body outruns the
 * upstream is suspended (its bytes left unread) until libcurl has taken
 * some; libcurl's sending is paused while no body bytes are in. All
 * bodies on their way up share LIMIT_REQUEST_BODIES_BYTES: one more is
 * answered 429 with Retry-After.
 *
 * Threads: the pool is made, stopped and freed by main (proxy_server_start(),
 * proxy_server_stop()). A request is driven by its libmicrohttpd request
 * thread, and the transfer by the passthrough thread, which is the only
 * one to call libcurl. The request thread suspends its connection while
 * it waits (for the upstream's status and headers, then whenever the
 * response has no bytes to send); the passthrough thread resumes it when
 * headers, bytes or the end arrive, and once a second anyway, so that a
 * client that left is noticed.
 *
 * Ownership: struct proxy owns the pool. A struct proxy_pass is
 * reference counted: the request holds one until proxy_pass_done(), its
 * response one until libmicrohttpd frees the response, the transfer one
 * until the passthrough thread has removed it; the last one frees it.
 */
#ifndef PROXY_PASS_H
#define PROXY_PASS_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache/upstream.h"

struct proxy_pass_pool;
struct proxy_pass;
struct cache_scope;

/* Start the passthrough thread. lend_identity: a client that sent no
 * credentials is forwarded with the proxy's (the loopback-only
 * --client-auth=none mode); otherwise it goes anonymous. A client's own
 * credentials always go alone. timeout_s bounds every request but the
 * long-running ones (watches, followed logs, exec, attach, port-forward,
 * proxy); 0: no bound. up is borrowed and must outlive the pool. Main
 * thread. NULL when out of memory or the thread cannot start; else free
 * with proxy_pass_pool_free(). */
struct proxy_pass_pool *proxy_pass_pool_new(const struct cache_upstream *up,
					    bool lend_identity, int timeout_s);
/* The largest request body forwarded, in bytes (LIMIT_REQUEST_BODY_BYTES
 * unless set). Main thread, before the first request. */
void proxy_pass_pool_set_max_body(struct proxy_pass_pool *pool,
				  int64_t max_body);
/* The drain has begun: every forwarded watch ends as a complete stream
 * (its terminating chunk) at the end of the event under way, at once if
 * none is, as the cache's own watches do; the client watches again
 * elsewhere. One that has not had the upstream's headers yet ends once
 * they come. Other requests go on. Any thread; NULL is fine. */
void proxy_pass_pool_end_watches(struct proxy_pass_pool *pool);
/* End every transfer (their clients are resumed and see the stream end),
 * refuse new ones (503) and join the passthrough thread. Main thread,
 * before the HTTP daemon stops (it needs no connection left suspended).
 * Calling it again does nothing. */
void proxy_pass_pool_stop(struct proxy_pass_pool *pool);
/* Main thread, after the HTTP daemon has stopped; stops the pool first
 * if proxy_pass_pool_stop() was not called. NULL is fine. */
void proxy_pass_pool_free(struct proxy_pass_pool *pool);

/*
 * Drive one forwarded request from the access handler, on its request
 * thread: call this on every invocation of the access handler for the
 * request. target is the request target as received, checked by
 * proxy_target_check() (front/target.h); it is appended to the
 * upstream's base URL unchanged. The first call makes *state (NULL
 * before it; a 503 is queued instead when it cannot be made, a 413 for
 * a Content-Length past the limit, a 429 past the bodies' budget) and,
 * for a request with a body, hands it to the passthrough thread at once;
 * the next ones take the body a buffer at a time (they may suspend c
 * and leave bytes in *upload_size: the passthrough thread resumes it
 * once libcurl has read), a chunked body past the limit gets 413 then;
 * the one after the body hands a request without one to the passthrough
 * thread, and suspends c; the passthrough thread resumes it. Once the
 * upstream's headers are in, the response is queued; its reader
 * suspends c whenever it has nothing to send, and the passthrough thread
 * resumes it. *state belongs to this module: the caller only passes it
 * to proxy_pass_done() from the request-completed callback, which drops
 * the request's reference (NULL is fine).
 */
enum MHD_Result proxy_pass_handle(struct proxy_pass_pool *pool,
				  struct MHD_Connection *c, const char *target,
				  const char *method, const char *upload,
				  size_t *upload_size,
				  struct proxy_pass **state);
void proxy_pass_done(struct proxy_pass *pass);

/*
 * Give a forwarded read of a cached resource the shape the cache gives
 * (a read the cache could have served, sent upstream because it could not
 * prove itself fresh): the answer is asked for uncompressed, read whole
 * (at most the upstream's page_max bytes, LIMIT_UPSTREAM_PAGE_BYTES by
 * default; past it a 500 Status), and a JSON 200 is sent with the strip
 * paths of s, and metadata.managedFields when managed, taken out of each
 * object. A failed transfer gets a Status, never half an answer. Call it
 * after the first proxy_pass_handle() made *state, before the one that
 * starts the transfer; a GET only (anything else, or nothing to strip,
 * is left as it is). s is copied. Returns 0 or -ENOMEM (nothing
 * changed). The request thread.
 */
int proxy_pass_shape(struct proxy_pass *pass, const struct cache_scope *s,
		     bool managed);

/* The apiserver's verb of a request (CONFIG_VERB_*): from the method,
 * whether the target names an object, and whether it asks for a watch
 * (?watch= read from c's query, or the /watch/ prefix; c may be NULL).
 * c's request thread, or any thread when c is NULL. */
int proxy_pass_verb(const char *target, const char *method,
		    struct MHD_Connection *c);
/* The same from the target's route, parsed already (NULL: the target is
 * not a resource path). */
struct proxy_route;
int proxy_pass_verb_of(const struct proxy_route *rt, const char *method,
		       struct MHD_Connection *c);

#endif
