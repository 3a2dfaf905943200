/*
 * request: what every handler needs from the request it answers and
 * from the proxy it runs in.
 *
 * struct proxy (proxy.h) is the program's shared state. The helpers here
 * read the query, notice a client that has gone, and queue a built
 * response. Handlers include this header, never server.h: server.c
 * dispatches to them, not the other way round.
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
bool proxy_client_gone(struct MHD_Connection *c);
/* A query argument: true if present (value may be "" for "?k" or "?k="). */
bool proxy_arg(struct MHD_Connection *c, const char *name, const char **val);
/* True for ?name=true or ?name=1 (any case for "true"). */
bool proxy_arg_true(struct MHD_Connection *c, const char *name);

/* Queue resp with status code and drop our reference to it. resp may be
 * NULL (building it failed): then MHD_NO, which closes the connection. */
enum MHD_Result proxy_request_queue(struct MHD_Connection *c, unsigned code,
				    struct MHD_Response *resp);
/* A response that owns the len bytes at p (malloc'd), or NULL with p
 * freed. */
struct MHD_Response *proxy_request_owned(char *p, size_t len);
/* The same for what b holds; b is left empty. NULL, with b freed, when
 * b failed to grow or the response could not be made. */
struct MHD_Response *proxy_request_from_buf(struct buf *b);
/* Queue a copy of the text body with this Content-Type. */
enum MHD_Result proxy_request_text(struct MHD_Connection *c, unsigned code,
				   const char *type, const char *body);

#endif
