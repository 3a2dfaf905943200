/*
 * proxy: the state questions every part of the program asks (see
 * proxy.h).
 */
#include "proxy/proxy.h"

#include <string.h>

bool proxy_stopping(const struct proxy *p)
{
	return __atomic_load_n(&p->stopping, __ATOMIC_ACQUIRE);
}

bool proxy_draining(const struct proxy *p)
{
	return __atomic_load_n(&p->draining, __ATOMIC_ACQUIRE) ||
	       proxy_stopping(p);
}

static bool same_kind(const struct cache_kind *k, const struct proxy_route *rt)
{
	return !strcmp(k->group, rt->group) &&
	       !strcmp(k->version, rt->version) &&
	       !strcmp(k->resource, rt->resource);
}

struct cache_resource *proxy_find(struct proxy *p, const struct proxy_route *rt)
{
	for (int i = 0, n = proxy_nres(p); i < n; i++) {
		const char *ns = p->res[i]->scope.ns;
		if (cache_resource_retired(p->res[i]))
			continue;
		if (same_kind(p->res[i]->kind, rt) &&
		    (!ns || !strcmp(ns, rt->ns)))
			return p->res[i];
	}
	return NULL;
}

struct cache_resource *proxy_find_kind(struct proxy *p,
				       const struct proxy_route *rt)
{
	for (int i = 0, n = proxy_nres(p); i < n; i++)
		if (!cache_resource_retired(p->res[i]) &&
		    same_kind(p->res[i]->kind, rt))
			return p->res[i];
	return NULL;
}
