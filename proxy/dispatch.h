/*
 * dispatch: the single dispatch of the local HTTP side. Each request is
 * gated (target checks, origin, delegated authentication and
 * authorization, connection limits) and then routed to the health,
 * metrics, discovery, list, get or watch handler, or passed through to
 * the upstream; when it ends it is observed (metrics, the access log)
 * and what it held is released. Handlers know nothing of this module;
 * struct proxy and their shared helpers are in request.h.
 *
 * These are libmicrohttpd's callbacks for the API daemons that
 * server.c starts, with the struct proxy as their closure (NULL for
 * proxy_dispatch_uri() and _unescape()). libmicrohttpd calls them on
 * the pool thread serving the connection. Per request, *state is the
 * request's own record: made by proxy_dispatch_uri(), freed by
 * proxy_dispatch_completed().
 */
#ifndef PROXY_DISPATCH_H
#define PROXY_DISPATCH_H

#include <microhttpd.h>
#include <stddef.h>

/* MHD_OPTION_URI_LOG_CALLBACK: the request target as it came on the
 * request line, kept for the target checks and for forwarding it
 * unchanged. */
void *proxy_dispatch_uri(void *cls, const char *uri, struct MHD_Connection *c);
/* The access handler. */
enum MHD_Result proxy_dispatch_request(void *cls, struct MHD_Connection *c,
				       const char *url, const char *method,
				       const char *version, const char *upload,
				       size_t *upload_size, void **state);
/* MHD_OPTION_NOTIFY_COMPLETED. */
void proxy_dispatch_completed(void *cls, struct MHD_Connection *c, void **state,
			      enum MHD_RequestTerminationCode toe);
/* MHD_OPTION_UNESCAPE_CALLBACK: %XX and '+' (a space, as Go's
 * url.ParseQuery reads it) in query strings. */
size_t proxy_dispatch_unescape(void *cls, struct MHD_Connection *c, char *s);

#endif
