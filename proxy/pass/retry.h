/*
 * retry: whether a forwarded request that failed on its upstream
 * connection is sent again, once, on a fresh connection.
 *
 * The upstream may end a kept-alive connection under a request: an
 * HTTP/1.1 server closing an idle connection as the request goes out, an
 * HTTP/2 GOAWAY (the apiserver sends one after any unauthenticated
 * request on the connection). The rules are those of Go's HTTP transport
 * for a request on a reused connection:
 *
 * - only a failure of the connection itself (sending, receiving,
 *   nothing received, an HTTP/2 stream or framing error): never a
 *   timeout, a refused connect, TLS, or the proxy's own abort;
 * - only before any of the answer came (its status line);
 * - only on a connection an earlier request had used: a fresh one that
 *   fails is the upstream's answer, and retrying would double the load
 *   on an upstream in trouble;
 * - only a request that can be sent again whole: no body, or none of it
 *   read yet (a body streams through and is not kept);
 * - an idempotent one (GET, HEAD, OPTIONS, TRACE, or one with an
 *   Idempotency-Key or X-Idempotency-Key header), or any request none of
 *   which was written;
 * - once.
 *
 * Pure: any thread.
 */
#ifndef PROXY_RETRY_H
#define PROXY_RETRY_H

#include <stdbool.h>

struct proxy_retry_case {
	const char *method;
	bool idempotency_key; /* the request has (X-)Idempotency-Key */
	bool body_read;	      /* libcurl has read some of its body */
	bool answered;	      /* some of the answer came */
	bool reused;	      /* on a connection used before */
	bool sent;	      /* some of the request was written */
	bool retried;	      /* this is already the retry */
	int curl_code;	      /* the failed transfer's CURLcode */
};

/* Whether the request of r is sent again on a fresh connection. */
bool proxy_retry_ok(const struct proxy_retry_case *r);

/* Whether method is idempotent by HTTP's definition (RFC 9110 9.2.2)
 * and safe to replay without a key: GET, HEAD, OPTIONS, TRACE. */
bool proxy_retry_idempotent(const char *method);

#endif
