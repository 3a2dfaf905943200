/*
 * status: Kubernetes Status error bodies, from one table of reasons.
 *
 * Every error the proxy answers is a Status object with the reason and
 * code the apiserver would use, in the compact form client-go receives.
 * This module only encodes; reply.h queues the answer and sets its
 * headers. Pure functions: any thread, no connection, nothing to free.
 */
#ifndef PROXY_STATUS_H
#define PROXY_STATUS_H

#include <stdbool.h>

#include "config/buf.h"

/* X(code, reason): the reasons the proxy answers with. */
#define PROXY_REASONS(X)              \
	X(400, BadRequest)            \
	X(401, Unauthorized)          \
	X(403, Forbidden)             \
	X(404, NotFound)              \
	X(405, MethodNotAllowed)      \
	X(406, NotAcceptable)         \
	X(410, Expired)               \
	X(413, RequestEntityTooLarge) \
	X(422, Invalid)               \
	X(429, TooManyRequests)       \
	X(500, InternalError)         \
	X(503, ServiceUnavailable)    \
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
	bool indent;	      /* always indented, with no final newline:
				 * the apiserver's raw JSON for an error no
				 * entry of Accept can carry */
};

/* Append the Status body (compact, ending in a newline) to b (the
 * caller's, freed by the caller); b is marked failed when it cannot
 * grow. */
void proxy_status_body(struct buf *b, const struct proxy_status *st);
/* Where a 406 comes from, which words it has. */
enum proxy_na_route {
	PROXY_NA_OBJECT,     /* a GET of one object */
	PROXY_NA_COLLECTION, /* a LIST */
	PROXY_NA_WATCH,	     /* a WATCH (the LIST route, and a stream) */
};

/* Whether the apiserver's router takes this Accept header (NULL: none)
 * for a GET of a resource: an entry, parameters aside, is * / * or names
 * a type it produces, exactly (no wildcard subtype, case as written). */
bool proxy_status_accept_routed(const char *accept);

/* Fill st with the 406 the apiserver answers for this Accept header (NULL
 * when none) on that route: its router's words with empty details when
 * no entry names a type the route produces, else the negotiator's list
 * (for a watch that negotiates YAML, which has no stream form, the
 * stream types);
 * indented when no entry of Accept could carry the Status itself.
 * st->message points to static text. */
void proxy_status_not_acceptable(struct proxy_status *st, const char *accept,
				 enum proxy_na_route route);
/* The HTTP code of a reason (404 for PROXY_NotFound). */
int proxy_status_code(enum proxy_reason reason);

#endif
