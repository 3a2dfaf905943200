/*
 * credpool: passthrough's upstream connections, one pool per credential.
 *
 * libcurl reuses a connection for any transfer to the same host, and
 * multiplexes transfers on one HTTP/2 connection, whatever Authorization
 * each carries. The apiserver ends a connection after an unauthenticated
 * request (Connection: close on HTTP/1.1, GOAWAY on HTTP/2), so a client
 * sending bad tokens would cut the requests of every other client that
 * shares it. Here each credential (a client's Authorization, the proxy's
 * own identity, or none) gets a pool of its own: a libcurl share handle
 * holding a connection cache, which a transfer uses through CURLOPT_SHARE.
 * Two credentials never meet on a connection; one credential's requests
 * reuse its pool's connections.
 *
 * Bounds: at most max pools; a new credential takes a free slot, else
 * the least recently used pool that no transfer is using (its
 * connections closed); when every pool is in use, none is given and the
 * transfer goes on a connection of its own, closed after it. A pool no
 * transfer has used for idle_ms is closed by proxy_credpool_sweep(). The
 * idle connections one pool keeps are bounded by the multi handle's
 * CURLMOPT_MAXCONNECTS (pass.c).
 *
 * Threads: one, the passthrough thread (libcurl's rule for a share used
 * without lock callbacks); proxy_credpool_key() alone may be called from
 * any thread. Ownership: the pool owns its share handles; a transfer
 * borrows one from proxy_credpool_take() to proxy_credpool_put(), and
 * must have been removed from its multi handle and had CURLOPT_SHARE set
 * back to NULL before the put.
 */
#ifndef PROXY_CREDPOOL_H
#define PROXY_CREDPOOL_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#define PROXY_CREDPOOL_KEY_LEN 32

/* A credential, by its SHA-256: the token itself is never kept. */
struct proxy_credpool_key {
	unsigned char d[PROXY_CREDPOOL_KEY_LEN];
};

/* Who the upstream sees for a request. */
enum proxy_credpool_who {
	PROXY_CREDPOOL_CLIENT, /* the client's own Authorization */
	PROXY_CREDPOOL_PROXY,  /* the proxy's credentials */
	PROXY_CREDPOOL_ANON,   /* none */
};

struct proxy_credpool;

/* The key of a credential: who, and for PROXY_CREDPOOL_CLIENT the
 * Authorization value sent (NULL otherwise). Returns 0, or -ENOMEM. Any
 * thread. */
int proxy_credpool_key(struct proxy_credpool_key *k,
		       enum proxy_credpool_who who, const char *authz);

/* At most max pools (at least 1), each closed after idle_ms unused.
 * NULL when out of memory. */
struct proxy_credpool *proxy_credpool_new(size_t max, int64_t idle_ms);
/* Closes every pool; none may be in use. NULL is fine. */
void proxy_credpool_free(struct proxy_credpool *cp);

/* The share handle of k's pool, made (or an idle pool evicted for it)
 * if it has none; NULL when every pool is in use or out of memory: the
 * transfer then needs a connection of its own (CURLOPT_FRESH_CONNECT and
 * CURLOPT_FORBID_REUSE). now_ms: a monotonic clock. */
CURLSH *proxy_credpool_take(struct proxy_credpool *cp,
			    const struct proxy_credpool_key *k, int64_t now_ms);
/* The transfer that took sh is done with it. */
void proxy_credpool_put(struct proxy_credpool *cp, CURLSH *sh, int64_t now_ms);
/* Close the pools no transfer has used for idle_ms; returns how many. */
size_t proxy_credpool_sweep(struct proxy_credpool *cp, int64_t now_ms);

/* Pools open now, and pools closed so far to make room (tests,
 * metrics). */
size_t proxy_credpool_open(const struct proxy_credpool *cp);
uint64_t proxy_credpool_evicted(const struct proxy_credpool *cp);

#endif
