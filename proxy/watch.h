/*
 * watch: WATCH streams of a cached resource, from its event history.
 *
 * Threads: proxy_watch_handle() runs on the libmicrohttpd pool thread
 * serving c, from dispatch.c's access handler; the stream's reader then
 * runs on whichever libmicrohttpd thread serves c. With nothing to send
 * the reader suspends c and, for an HTTP/1.1 stream, hands it to a
 * fan-out worker (proxy/fanout.h), which from then on writes its events
 * whenever the reflector thread appends to the resource's history or the
 * ticker wakes it (deadlines, bookmarks, draining), and resumes c only to
 * end the stream. Without a worker (HTTP/1.0) the appender resumes c. Ownership: the watch belongs to its response:
 * queued and dropped here, it is freed (with its --max-watchers slot,
 * snapshot and event references) when libmicrohttpd frees the response.
 */
#ifndef PROXY_WATCH_H
#define PROXY_WATCH_H

#include "proxy/request.h"

/* Start a watch of r (rt->ns, rt->name narrow it) and queue its stream,
 * or refuse it (429 past --max-watchers, 400/406/422 for a bad query). */
enum MHD_Result proxy_watch_handle(struct proxy *p, struct MHD_Connection *c,
				   struct cache_resource *r,
				   const struct proxy_route *rt);

/* Whether the request this thread is answering is HTTP/1.1 (its body
 * chunked): dispatch.c says so before it routes the request. */
void proxy_watch_set_http11(bool http11);

#endif
