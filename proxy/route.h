/*
 * route: split a Kubernetes API path into its parts.
 *
 *   /api/v1[/watch][/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]
 *   /apis/GROUP/VERSION[/watch][/namespaces/NS]/RESOURCE[/NAME[/SUB]]
 *
 * "/api/v1/namespaces/NAME" is the namespace NAME, not a namespaced list:
 * a segment after namespaces/NS is read as a resource only when a second
 * one follows or the caller's is_resource() says so.
 */
#ifndef PROXY_ROUTE_H
#define PROXY_ROUTE_H

#include <stdbool.h>

struct proxy_route {
	char group[128];	/* "" for the core group */
	char version[32];
	char ns[254];		/* "" when not namespaced */
	char resource[64];
	char name[254];		/* "" for a collection */
	char sub[64];		/* subresource, "" when none */
	bool watch_prefix;	/* the legacy /watch/ form */
};

/* watch=V asks for a watch for any V but "0" and "false" (any case), an
 * empty value included, as the apiserver reads it (fixtures 08-d..m). */
bool proxy_watch_value(const char *v);

/* Returns 0, or -ENOENT when path is not a resource path at all, or
 * -EINVAL when a part is too long or empty. */
int proxy_route_parse(const char *path, struct proxy_route *rt);

#endif
