/*
 * list: LIST and GET of a cached resource, answered from store snapshots.
 *
 * Threads: both handlers run on the libmicrohttpd pool thread serving
 * c, from dispatch.c's access handler. A read that must wait for freshness
 * (fresh.h) suspends c and returns; fresh.c resumes it (from the
 * reflector, prober or ticker thread) and the handler is called again
 * with the same req. Ownership: a JSON LIST takes one snapshot reference
 * and its response points into it; the response is queued and dropped
 * here, and the reference is dropped by the done callback when
 * libmicrohttpd frees the response. A GET holds one object reference the
 * same way. Nothing is left for the caller to free.
 */
#ifndef PROXY_LIST_H
#define PROXY_LIST_H

#include "proxy/fresh.h"
#include "proxy/request.h"

/* A LIST of r's collection (rt->ns: one namespace's). req carries the
 * freshness wait across the calls of the access handler; req->upstream
 * set on return means the upstream must answer instead. */
enum MHD_Result proxy_list_handle(struct proxy *p, struct MHD_Connection *c,
				  struct cache_resource *r,
				  const struct proxy_route *rt,
				  struct proxy_fresh_req *req);
/* A GET of the object rt->name, with the same contract. */
enum MHD_Result proxy_list_get(struct proxy *p, struct MHD_Connection *c,
			       struct cache_resource *r,
			       const struct proxy_route *rt,
			       struct proxy_fresh_req *req);

#endif
