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

/* For a WATCH: make the request wait, suspended, until the cache has
 * reached rv, or for rv 0 until it is as new as the upstream was when
 * the request came, for a short while (see fresh.h). Returns 0 to go on,
 * or 1 with *res set: suspended (the handler runs again when it is
 * resumed) or answered (504 when rv was not reached in time). */
int proxy_await_rv(struct proxy *p, struct MHD_Connection *c,
		   struct cache_resource *r, uint64_t rv,
		   struct proxy_fresh_req *req, enum MHD_Result *res);

#endif
