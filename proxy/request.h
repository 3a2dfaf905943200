/*
 * request: what every handler reads from the request it answers, and
 * the proxy it runs in.
 *
 * struct proxy (proxy.h) is the program's shared state. The helpers here
 * read the query and notice a client that has gone; answers are built
 * and queued by reply.h. Handlers include this header, never server.h:
 * dispatch.c dispatches to them, not the other way round.
 *
 * Threads: the libmicrohttpd thread handling c (a pool worker in the
 * access handler, or the one resuming a suspended watch); c must be
 * live, and need not be resumed. Nothing returned here is to be freed.
 */
#ifndef PROXY_REQUEST_H
#define PROXY_REQUEST_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>

#include "cache/resource.h"
#include "config/buf.h"
#include "config/flags.h"
#include "proxy/proxy.h"
#include "proxy/route.h"

/* True when the client has closed its side: a suspended connection does
 * not notice that by itself, so readers check before they sleep again. */
bool proxy_request_client_gone(struct MHD_Connection *c);
/* A query argument: true if present (value may be "" for "?k" or "?k=").
 * *val points into libmicrohttpd's copy of the request, valid until the
 * request completes. */
bool proxy_request_arg(struct MHD_Connection *c, const char *name,
		       const char **val);
/* True for ?name=true or ?name=1 (any case for "true"). */
bool proxy_request_arg_true(struct MHD_Connection *c, const char *name);
/* The integer query arguments of a LIST or watch (ListOptions'
 * timeoutSeconds, then limit) as the apiserver converts them: Go's
 * strconv.ParseInt(v, 10, 64) on the first value, "" and "?k" included.
 * 0 when each is absent or parses (any sign: a negative limit is no
 * limit, as there); else -EINVAL with the apiserver's message for its
 * 400 BadRequest in msg, e.g. strconv.ParseInt: parsing "abc": invalid
 * syntax. */
int proxy_request_check_ints(struct MHD_Connection *c, char *msg,
			     size_t msglen);

#endif
