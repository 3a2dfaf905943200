/*
 * discovery: the apiserver's discovery documents, served from memory.
 *
 * A thread fetches /version, /api, /apis, /api/v1, every /apis/G/V and
 * the aggregated forms of /api and /apis (apidiscovery.k8s.io v2 and
 * v2beta1) at start and then every refresh interval, and publishes them
 * as one immutable set. Requests pick a variant by their Accept header the
 * way the apiserver does; the aggregated form carries exactly its own
 * Content-Type, an ETag and Vary: Accept, and If-None-Match gets 304.
 * A path or variant not in the set is passed through, and so is an
 * Accept that ranks protobuf first (the apiserver answers it in
 * protobuf; the set keeps JSON only).
 *
 * Threads: proxy_discovery_new() and _free() on main's thread (from
 * proxy_server_start()/proxy_server_release()); the refresh runs on discovery's own
 * thread; _path, _has and _serve on the libmicrohttpd pool thread
 * serving c, never suspending it. Ownership: an answer points into the
 * published set and holds a reference on it, dropped when libmicrohttpd
 * frees the response; the set is freed when its last reference goes.
 */
#ifndef PROXY_DISCOVERY_H
#define PROXY_DISCOVERY_H

#include <microhttpd.h>
#include <stdbool.h>

#include "cache/upstream.h"

struct proxy_discovery;

struct proxy_discovery *proxy_discovery_new(const struct cache_upstream *up,
					    int refresh_seconds);
void proxy_discovery_free(struct proxy_discovery *d);

/* True for the paths discovery answers (for routing). */
bool proxy_discovery_path(const char *url);
/* True when the set holds the document this request asks for. */
bool proxy_discovery_has(struct proxy_discovery *d, struct MHD_Connection *c,
			 const char *url);
/* Answer from memory: MHD_YES/NO, or -1 when the set has no such
 * document (pass it through). */
int proxy_discovery_serve(struct proxy_discovery *d, struct MHD_Connection *c,
			  const char *url);

#endif
