/*
 * route: split a Kubernetes API path into its parts.
 *
 *   /api/v1[/watch][/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]
 *   /apis/GROUP/VERSION[/watch][/namespaces/NS]/RESOURCE[/NAME[/SUB]]
 *
 * "/api/v1/namespaces/NAME" is the namespace NAME, not a namespaced list:
 * namespaces/NS is read as a namespace only when another segment (the
 * resource) follows it, and that segment is not one of the namespace's
 * own subresources (status, finalize: reqinfo.h).
 *
 * Pure: any thread; struct proxy_route holds copies, nothing to free.
 */
#ifndef PROXY_ROUTE_H
#define PROXY_ROUTE_H

#include <stdbool.h>

#include "cache/kind.h"

struct proxy_route {
	char group[CACHE_KIND_GROUP_MAX]; /* "" for the core group */
	char version[CACHE_KIND_VERSION_MAX];
	char ns[254]; /* "" when not namespaced */
	char resource[64];
	char name[254];	   /* "" for a collection */
	char sub[64];	   /* subresource, "" when none */
	bool watch_prefix; /* the legacy /watch/ form */
};


/* Returns 0, or -ENOENT when path is not a resource path at all, or
 * -EINVAL when a part is too long or empty. */
int proxy_route_parse(const char *path, struct proxy_route *rt);

#endif
