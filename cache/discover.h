/*
 * discover: resolve a resource named on the command line against the
 * upstream's discovery documents, for kinds the built-in table lacks
 * (custom resources, newer APIs).
 */
#ifndef CACHE_DISCOVER_H
#define CACHE_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/kind.h"
#include "cache/upstream.h"

/*
 * Find spec ("widgets.v1.example.com", "widgets.example.com", "pods") in
 * discovery: /apis/GROUP for the preferred version when none is given,
 * then the APIResourceList of GROUP/VERSION. Returns a kind that lives
 * until exit (free with cache_kind_free), or NULL with err set: -ENOENT in
 * *why when the upstream does not serve it, -EAGAIN when the upstream
 * could not be asked (retry).
 */
struct cache_kind *cache_kind_discover(const struct cache_upstream *up,
				       const char *spec, const bool *stop,
				       int *why, char *err, size_t errlen);
void cache_kind_free(struct cache_kind *k);

#endif
