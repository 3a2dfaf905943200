/*
 * upgrade: forward a `Connection: Upgrade` request (kubectl exec, attach,
 * port-forward and cp: WebSocket with the channel.k8s.io subprotocols,
 * or SPDY/3.1) to the upstream, relay its answer, and after a 101 splice
 * the two sockets until both sides are done.
 *
 * libcurl cannot hand over its socket after a 101, so the upstream side
 * is a connection of dial.h's: TCP, with OpenSSL over it for an
 * https upstream, trusting exactly what passthrough trusts. The client
 * side is the socket libmicrohttpd hands over after it sent our 101
 * (MHD_create_response_for_upgrade).
 *
 * Identity is passthrough's, by the same rules (forward.h): a
 * client's own Authorization goes alone (no proxy token, no client
 * certificate); a client that sent none has its Impersonate-*,
 * X-Remote-*, Proxy-Authorization and Cookie headers removed and goes as
 * the proxy where the proxy lends its identity (--client-auth=none),
 * anonymous elsewhere.
 *
 * Threads: one upgrade thread per request, started when it comes. It
 * connects, sends the request and reads the answer within the handshake
 * bound (--passthrough-timeout, 60 s when that is 0), while the client
 * connection is suspended; a non-101 answer (401, 403, 400, 404 ...) is
 * then sent to the client as a normal response. After a 101 the same
 * thread splices the two sockets with poll(): a 32 KiB buffer each way
 * and no read while it holds bytes, so memory per stream is bounded and
 * a slow side slows the other. A read that ends (EOF) is passed on as a
 * half-close (shutdown(SHUT_WR), or TLS close_notify to the upstream) and
 * the other way goes on until it ends too; an error either way (a reset)
 * ends both. libmicrohttpd cannot pass a half-close through an HTTPS
 * listener, so there the upstream's end, once libmicrohttpd has read its
 * last bytes, ends the stream (the apiserver never half-closes these
 * protocols anyway); libmicrohttpd 0.9.75 then closes the TLS connection
 * only when the client closes its side, as kubectl does after the
 * protocol's own end (a WebSocket close, the error stream). A blocking
 * thread per stream keeps OpenSSL's want-read/want-write handling local
 * to one loop, and these streams are few (interactive sessions), so at
 * most PROXY_UPGRADE_MAX_STREAMS run at once; one more is answered 429.
 * An upgraded stream stays one open connection for --max-connections
 * until it is closed, and is exempt from --passthrough-timeout and
 * --idle-timeout (it lives as long as both sides keep it).
 *
 * Threads, in short: the pool is made, stopped and freed by main
 * (proxy_server_start(), proxy_server_stop()); a request is driven by its
 * libmicrohttpd request thread, which suspends the connection when it
 * starts the upgrade thread; the upgrade thread resumes it once the
 * upstream has answered or failed, and after a 101 closes the upgraded
 * socket (MHD_upgrade_action), which completes the request.
 *
 * Ownership: the pool belongs to struct proxy. A struct proxy_upgrade is
 * reference counted by its request (until proxy_upgrade_done()) and its
 * thread (until it ends); the last one frees it.
 */
#ifndef PROXY_UPGRADE_H
#define PROXY_UPGRADE_H

#include <microhttpd.h>
#include <stdbool.h>

#include "cache/upstream.h"

/* Upgraded streams (and their threads) open at once. */
#define PROXY_UPGRADE_MAX_STREAMS 1024

struct proxy_upgrade_pool;
struct proxy_upgrade;

/* lend_identity as for proxy_pass_pool_new() (pass.h); handshake_s
 * bounds the upstream connect, TLS handshake and the wait for its answer
 * (<= 0: 60 s); at most max_streams at once (<= 0:
 * PROXY_UPGRADE_MAX_STREAMS). up is borrowed and must outlive the pool.
 * Main thread; starts no thread (each request starts its own). NULL when
 * out of memory or when up->server is not a URL this module can reach,
 * with err set; else free with proxy_upgrade_pool_free(). */
struct proxy_upgrade_pool *
proxy_upgrade_pool_new(const struct cache_upstream *up, bool lend_identity,
		       int handshake_s, int max_streams, char *err,
		       size_t errlen);
/* End every stream and every handshake under way (their clients get a
 * 503, or see their upgraded socket close), refuse new ones (503), and
 * wait up to 10 s for their threads. Main thread, before the HTTP daemon
 * stops. Calling it again does nothing. */
void proxy_upgrade_pool_stop(struct proxy_upgrade_pool *pool);
/* Main thread, after the HTTP daemon has stopped; stops the pool first
 * if need be. A thread that outlived proxy_upgrade_pool_stop()'s wait
 * still uses the pool, which is then left allocated rather than freed
 * under it. NULL is fine. */
void proxy_upgrade_pool_free(struct proxy_upgrade_pool *pool);
/* Streams open now (handshakes included), for /metrics and tests. Any
 * thread. */
int proxy_upgrade_pool_active(struct proxy_upgrade_pool *pool);

/* Whether the request on c asks for an upgrade the apiserver serves: a
 * Connection header with the token "upgrade" and an Upgrade header
 * naming websocket or SPDY/x (not h2c, which the apiserver ignores).
 * c's request thread.
 * Always false when this libmicrohttpd was built without upgrade
 * support (then such requests are passed through as before, and the
 * upstream answers them 400). */
bool proxy_upgrade_wanted(struct MHD_Connection *c);
/* Whether libmicrohttpd can hand over upgraded sockets (the daemon then
 * needs MHD_ALLOW_UPGRADE). Any thread. */
bool proxy_upgrade_supported(void);

/*
 * Drive one upgrade request from the access handler, on its request
 * thread, on every call for it, as proxy_pass_handle(); target is the
 * request target as received, checked by proxy_target_check()
 * (front/target.h). A request body is refused (400). The first call
 * makes *state (a 503 is queued instead when it cannot be made); the
 * next starts the request's upgrade thread and suspends c (429 past the
 * stream limit, 503 when stopping, and c is then not suspended); the
 * upgrade thread resumes c when the upstream has answered, and the call
 * after that queues the answer: the 101, after which libmicrohttpd hands
 * the socket to the upgrade thread, or the upstream's other answer, or a
 * 503/504 Status. *state belongs to this module: the caller only passes
 * it to proxy_upgrade_done() from the request-completed callback, which
 * drops the request's reference (NULL is fine).
 */
enum MHD_Result proxy_upgrade_handle(struct proxy_upgrade_pool *pool,
				     struct MHD_Connection *c,
				     const char *target, const char *method,
				     size_t *upload_size,
				     struct proxy_upgrade **state);
void proxy_upgrade_done(struct proxy_upgrade *u);

#endif
