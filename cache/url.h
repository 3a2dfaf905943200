/*
 * url: the apiserver URLs the cache requests, built in one place.
 *
 * A resource's collection path, and the LIST, WATCH and probe requests on
 * it. Pure string building: no I/O, no libcurl, so the reflector, the
 * lister and the freshness probe cannot disagree on a URL.
 */
#ifndef CACHE_URL_H
#define CACHE_URL_H

#include <stddef.h>
#include <stdint.h>

#include "cache/kind.h"
#include "config/buf.h"

/* The path of the resource's collection, e.g. "/apis/apps/v1/deployments"
 * or "/api/v1/namespaces/NS/pods" when ns is given (NULL or "": all).
 * Truncated to outlen - 1 bytes when longer. */
void cache_url_collection(const struct cache_kind *kind, const char *ns,
			  char *out, size_t outlen);

/* The path of an API group version: "/apis/GROUP/VERSION", or
 * "/api/VERSION" for the core group (group ""). Truncated to outlen - 1
 * bytes when longer. */
void cache_url_group_version(const char *group, const char *version, char *out,
			     size_t outlen);

/* server + the collection (of namespace ns; NULL: cluster-wide) +
 * "?limit=N", then
 * "&continue=TOKEN" (percent-encoded) when cont is not NULL. Appended to
 * url; check buf_ok(url) for allocation failure. */
void cache_url_list(struct buf *url, const char *server,
		    const struct cache_kind *kind, const char *ns, int limit,
		    const char *cont);

/* server + the collection (ns as above) + a bookmarked watch from rv that
 * the upstream ends after timeout seconds. Appended to url. */
void cache_url_watch(struct buf *url, const char *server,
		     const struct cache_kind *kind, const char *ns, uint64_t rv,
		     int timeout);

/* Percent-encode s into url: every byte but ALPHA, DIGIT and "-._~", as
 * RFC 3986 asks of a query value (and as curl_easy_escape does). */
void cache_url_escape(struct buf *url, const char *s);

#endif
