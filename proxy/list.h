/*
 * list: LIST and GET of a cached resource, answered from store snapshots.
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
