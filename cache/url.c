/*
 * url: apiserver request URLs (see url.h).
 */
#include "cache/url.h"

#include <stdio.h>
#include <string.h>

void cache_url_group_version(const char *group, const char *version, char *out,
			     size_t outlen)
{
	if (group[0])
		snprintf(out, outlen, "/apis/%s/%s", group, version);
	else
		snprintf(out, outlen, "/api/%s", version);
}

void cache_url_collection(const struct cache_kind *kind, const char *ns,
			  char *out, size_t outlen)
{
	cache_url_group_version(kind->group, kind->version, out, outlen);
	size_t n = strlen(out);
	if (n + 1 >= outlen)
		return;
	if (ns && *ns)
		n += (size_t)snprintf(out + n, outlen - n, "/namespaces/%s",
				      ns);
	if (n >= outlen)
		return;
	snprintf(out + n, outlen - n, "/%s", kind->resource);
}

void cache_url_escape(struct buf *url, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			buf_add(url, (const char *)p, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			buf_add(url, e, 3);
		}
	}
}

void cache_url_list(struct buf *url, const char *server,
		    const struct cache_kind *kind, const char *ns, int limit,
		    const char *cont)
{
	char path[512];
	cache_url_collection(kind, ns, path, sizeof(path));
	buf_printf(url, "%s%s?limit=%d", server, path, limit);
	if (cont) {
		buf_printf(url, "&continue=");
		cache_url_escape(url, cont);
	}
}

void cache_url_watch(struct buf *url, const char *server,
		     const struct cache_kind *kind, const char *ns, uint64_t rv,
		     int timeout)
{
	char path[512];
	cache_url_collection(kind, ns, path, sizeof(path));
	buf_printf(
		url,
		"%s%s?watch=true&resourceVersion=%llu&allowWatchBookmarks=true"
		"&timeoutSeconds=%d",
		server, path, (unsigned long long)rv, timeout);
}
