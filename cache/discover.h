/*
 * discover: resolve a resource named on the command line against the
 * upstream's discovery documents, for kinds the built-in table lacks
 * (custom resources, newer APIs).
 */
#ifndef CACHE_DISCOVER_H
#define CACHE_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/upstream.h"

/*
 * Find spec ("widgets.v1.example.com", "widgets.example.com", "pods") in
 * discovery: /apis/GROUP for the preferred version when none is given,
 * then the APIResourceList of GROUP/VERSION. Returns a kind that lives
 * until exit (free with cache_discover_free), or NULL with err set: -ENOENT in
 * *why when the upstream does not serve it, -EAGAIN when the upstream
 * could not be asked (retry).
 */
struct cache_kind *cache_discover_kind(const struct cache_upstream *up,
				       const char *spec, const bool *stop,
				       int *why, char *err, size_t errlen);
/* Free a kind cache_discover_kind made (NULL is fine); never a built-in. */
void cache_discover_free(struct cache_kind *k);

/* ---- the parsing steps, without a network ------------------------------ */

/* The preferredVersion.version of an APIGroup document d into ver (cap
 * bytes). Returns 0, or -ENOENT when it is missing, empty or too long. */
int cache_discover_preferred(const struct json_doc *d, char *ver, size_t cap);

/*
 * The kind of ks->resource from an APIResourceList document d (the one of
 * ks->group and ks->version, which the kind gets), into *out, which the
 * caller frees with cache_discover_free. An entry without a string kind
 * ends the search. Returns 0, -ENOENT (not listed) or -ENOMEM; *out is
 * NULL on failure.
 */
int cache_discover_from_list(const struct json_doc *d,
			     const struct cache_kind_spec *ks,
			     struct cache_kind **out);

#endif
