/*
 * access: the access log, one line per request at -v 2, passed through
 * or answered from the cache alike; as text:
 *
 *   access: GET /api/v1/pods?limit=500 200 bytes=5123 ms=1.42 \
 *       client=127.0.0.1:40112 served_by=cache user=alice
 *
 * and with --log-format json, the message "access: GET <path> 200" and
 * the fields method, path, status, bytes, duration_ms, client,
 * served_by (cache: the proxy answered, from its cache or its own
 * endpoints; upstream: passed through, or a read the cache could not
 * prove fresh; proxy: refused before either, a bad target or a denied
 * client), and user (delegated auth: the reviewed user; absent
 * otherwise). An unknown status or byte count is left out in JSON, "-"
 * in text.
 *
 * The path (config/log.h: log_redact_url) keeps the values of the query
 * parameters the Kubernetes API defines (labelSelector, watch,
 * resourceVersion, ...); any other parameter, name and value, a bare key
 * ("?s3cr3t") included, is written as REDACTED, so a token or password put in a query never
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
 * unknown (no response was queued); served_by as above; user NULL when
 * none. */
void proxy_access_log(struct MHD_Connection *c, const char *method,
		      const char *target, unsigned status, int64_t ns,
		      uint64_t sent_before, const char *served_by,
		      const char *user);

#endif
