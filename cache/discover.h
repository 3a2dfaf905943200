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
 * could not be asked (retry), -EACCES when it refused (401, 403),
 * -EOPNOTSUPP when it lists no list or watch verb for it.
 */
struct cache_kind *cache_discover_kind(const struct cache_upstream *up,
				       const char *spec, const bool *stop,
				       int *why, char *err, size_t errlen);
/* Free a kind cache_discover_kind made (NULL is fine); never a built-in. */
void cache_discover_free(struct cache_kind *k);

/*
 * Resolve a resource as kubectl names it: its plural, singular, short
 * name or Kind (any case), each optionally followed by .version and/or
 * .group ("po", "pod", "Deployment.apps", "deploy.v1.apps",
 * "widgets.example.com"), from the upstream's aggregated discovery (/api
 * and /apis, apidiscovery.k8s.io v2): short names first, then the rest;
 * the core group first, then the groups in the upstream's order; the
 * preferred version unless one is given. The built-in table's plural
 * spelling is resolved without asking. An upstream without aggregated
 * discovery is asked as cache_discover_kind() does (plural only).
 * Returns 0 with *kind set: a built-in kind, or *owned (free it with
 * cache_discover_free, until exit); -ENOENT when the upstream does not
 * serve it (yet: a CRD may be installed later), -EAGAIN when it could
 * not be asked, -EACCES when it refused (401, 403: retrying will not
 * help), -EOPNOTSUPP when discovery lists it without the list or watch
 * verb (tokenreviews: it can never be cached), -ENOMEM; err says why.
 */
int cache_discover_resolve(const struct cache_upstream *up, const char *spec,
			   const bool *stop, const struct cache_kind **kind,
			   struct cache_kind **owned, char *err, size_t errlen);

/* ---- the parsing steps, without a network ------------------------------ */

/*
 * Find ks (ks->resource lower-case) in an APIGroupDiscoveryList document
 * d: by short name alone (short_names), or by plural, singular or Kind,
 * ignoring case. A group must match when ks has a group or a version
 * (a version alone names the core group); the version is ks's, else each
 * group's first (preferred). Returns 0 with *out (free with
 * cache_discover_free), -EOPNOTSUPP with *out set likewise when the
 * entry's verbs lack list or watch, -ENOENT or -ENOMEM.
 */
int cache_discover_match(const struct json_doc *d,
			 const struct cache_kind_spec *ks, bool short_names,
			 struct cache_kind **out);

/* The preferredVersion.version of an APIGroup document d into ver (cap
 * bytes). Returns 0, or -ENOENT when it is missing, empty or too long. */
int cache_discover_preferred(const struct json_doc *d, char *ver, size_t cap);

/*
 * The kind of ks->resource from an APIResourceList document d (the one of
 * ks->group and ks->version, which the kind gets), into *out, which the
 * caller frees with cache_discover_free. An entry without a string kind
 * ends the search. Returns 0, -EOPNOTSUPP (its verbs lack list or watch;
 * *out set all the same), -ENOENT (not listed) or -ENOMEM; *out is
 * NULL on the other failures.
 */
int cache_discover_from_list(const struct json_doc *d,
			     const struct cache_kind_spec *ks,
			     struct cache_kind **out);

#endif
