/*
 * watch: WATCH streams of a cached resource, from its event history.
 */
#ifndef PROXY_WATCH_H
#define PROXY_WATCH_H

#include "proxy/request.h"

/* Start a watch of r (rt->ns, rt->name narrow it) and queue its stream,
 * or refuse it (429 past --max-watchers, 400/406/422 for a bad query). */
enum MHD_Result proxy_watch_handle(struct proxy *p, struct MHD_Connection *c,
				   struct cache_resource *r,
				   const struct proxy_route *rt);

#endif
