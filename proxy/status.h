/*
 * status: Kubernetes Status error bodies, from one table of reasons.
 *
 * Every error the proxy answers is a Status object with the reason and
 * code the apiserver would use, in the compact form client-go receives.
 */
#ifndef PROXY_STATUS_H
#define PROXY_STATUS_H

#include <microhttpd.h>
#include <stdbool.h>

#include "config/buf.h"

/* X(code, reason): the reasons the proxy answers with. */
#define PROXY_REASONS(X)           \
	X(400, BadRequest)         \
	X(401, Unauthorized)       \
	X(403, Forbidden)          \
	X(404, NotFound)           \
	X(405, MethodNotAllowed)   \
	X(406, NotAcceptable)      \
	X(410, Expired)            \
	X(422, Invalid)            \
	X(429, TooManyRequests)    \
	X(500, InternalError)      \
	X(503, ServiceUnavailable) \
	X(504, Timeout)

enum proxy_reason {
#define X(code, reason) PROXY_##reason,
	PROXY_REASONS(X)
#undef X
};

struct proxy_status {
	enum proxy_reason reason;
	const char *message;
	const char *details;  /* a JSON object's text, or NULL */
	const char *metadata; /* a JSON object's text, or NULL ({}) */
	int retry_after;      /* seconds; 0: no Retry-After header */
	bool no_reason;	      /* leave "reason" out, as the apiserver does
				 * for errors it did not expect, such as
				 * an unparsable resourceVersion */
	bool close;	      /* Connection: close, for a client refused
				 * for want of connections */
};

/* Append the Status body (compact, ending in a newline) to b. */
void proxy_status_body(struct buf *b, const struct proxy_status *st);
/* Queue the Status on conn. */
enum MHD_Result proxy_status_send(struct MHD_Connection *conn,
				  const struct proxy_status *st);
/* Shorthand: reason plus a printf-style message. */
enum MHD_Result proxy_error(struct MHD_Connection *conn,
			    enum proxy_reason reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 429 TooManyRequests with a printf-style message, Retry-After: 1 and
 * details {"retryAfterSeconds":1}: a request the proxy cannot take now
 * but may in a second. */
enum MHD_Result proxy_too_many(struct MHD_Connection *conn, const char *fmt,
			       ...) __attribute__((format(printf, 2, 3)));
/* 404 for an object: `pods "x" not found` with details {name, kind}. */
enum MHD_Result proxy_not_found(struct MHD_Connection *conn,
				const char *resource, const char *name);

/* The headers every JSON answer carries. */
void proxy_json_headers(struct MHD_Response *resp);

#endif
