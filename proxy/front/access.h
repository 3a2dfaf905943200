/*
 * access: the access log, one line per request at -v 2, passed through
 * or answered from the cache alike:
 *
 *   access: GET /api/v1/pods?limit=500 200 bytes=5123 ms=1.42 client=127.0.0.1:40112
 *
 * The path keeps the values of the query parameters the Kubernetes API
 * defines (labelSelector, watch, resourceVersion, ...); any other
 * parameter, name and value, a bare key ("?s3cr3t") included, is
 * written as REDACTED, so a token or password put in a query never
 * reaches the log, wherever in it. Headers are never logged.
 *
 * bytes are what the kernel sent on the connection for the response,
 * headers and TLS records included (TCP_INFO), "-" where that cannot be
 * read (a unix socket).
 *
 * Threads: proxy_access_sent() and proxy_access_log() read c's socket
 * and are called on its libmicrohttpd thread (the URI callback, the
 * request-completed callback); proxy_access_redact() reads only its
 * arguments, from any thread (the passthrough thread redacts the URLs it
 * logs). Nothing here allocates, keeps state or suspends a connection.
 */
#ifndef PROXY_ACCESS_H
#define PROXY_ACCESS_H

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

/* What the connection has sent so far, to subtract at the end; 0 when
 * unknown. Call when the request begins. */
uint64_t proxy_access_sent(struct MHD_Connection *c);

/* target with the values of unknown query parameters replaced, and
 * bytes outside printable ASCII written as %XX, into out, the caller's
 * buffer (always NUL-terminated, cut short to fit len). */
void proxy_access_redact(const char *target, char *out, size_t len);

/* Log the line for a finished request (when -v 2 is on): status 0 is
 * written as "-" (no response was queued). */
void proxy_access_log(struct MHD_Connection *c, const char *method,
		      const char *target, unsigned status, int64_t ns,
		      uint64_t sent_before);

#endif
