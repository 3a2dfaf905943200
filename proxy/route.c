/*
 * route: API path parsing (see route.h).
 */
#include "proxy/route.h"

#include <errno.h>
#include <string.h>

#include "proxy/front/reqinfo.h"

#define MAX_SEGS 10

static int copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n == 0 || n >= cap)
		return -EINVAL;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

int proxy_route_parse(const char *path, struct proxy_route *rt)
{
	const char *seg[MAX_SEGS];
	size_t len[MAX_SEGS];
	int n = 0;
	memset(rt, 0, sizeof(*rt));
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		if (n == MAX_SEGS)
			return -ENOENT;
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		seg[n] = p;
		len[n++] = l;
		p += l;
	}
	int i;
	if (n >= 2 && len[0] == 3 && !memcmp(seg[0], "api", 3)) {
		if (copy(rt->version, sizeof(rt->version), seg[1], len[1]))
			return -EINVAL;
		i = 2;
	} else if (n >= 3 && len[0] == 4 && !memcmp(seg[0], "apis", 4)) {
		if (copy(rt->group, sizeof(rt->group), seg[1], len[1]) ||
		    copy(rt->version, sizeof(rt->version), seg[2], len[2]))
			return -EINVAL;
		i = 3;
	} else {
		return -ENOENT;
	}
	if (i < n && len[i] == 5 && !memcmp(seg[i], "watch", 5)) {
		rt->watch_prefix = true;
		i++;
	}
	if (i >= n)
		return -ENOENT; /* discovery, not a resource */
	/* namespaces/NS/RESOURCE..., but namespaces/NS/status is the
	 * namespace's own subresource, as the apiserver reads it */
	if (len[i] == 10 && !memcmp(seg[i], "namespaces", 10) && i + 2 < n &&
	    !proxy_reqinfo_namespace_sub(seg[i + 2], len[i + 2])) {
		if (copy(rt->ns, sizeof(rt->ns), seg[i + 1], len[i + 1]))
			return -EINVAL;
		i += 2;
	}
	if (copy(rt->resource, sizeof(rt->resource), seg[i], len[i]))
		return -EINVAL;
	i++;
	if (i < n) {
		if (copy(rt->name, sizeof(rt->name), seg[i], len[i]))
			return -EINVAL;
		i++;
	}
	if (i < n) {
		if (copy(rt->sub, sizeof(rt->sub), seg[i], len[i]))
			return -EINVAL;
		i++;
	}
	if (i < n)
		return -ENOENT;
	return 0;
}
