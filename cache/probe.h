/*
 * probe: ask the upstream where a resource's resourceVersion stands now.
 *
 * One limit=1 LIST, a quorum read at the apiserver. The reflector uses it
 * to notice an upstream that went backwards (a wiped cluster), and the
 * proxy's freshness wait to learn which RV a consistent read must reach.
 * One GET of an object tells where that object stands, which proves a
 * cached copy of it fresh. Blocking; call it from a thread that may wait
 * on the network.
 */
#ifndef CACHE_PROBE_H
#define CACHE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/kind.h"
#include "cache/store.h"
#include "cache/upstream.h"

/* The upstream's current RV for kind into *rv, asked of namespace ns
 * (NULL: cluster-wide), which a namespaced Role allows. Gives up when *stop
 * (atomic; may be NULL) turns true. Returns 0, or -EIO with err set (a
 * transport error, a non-200 answer, or a body without a numeric
 * metadata.resourceVersion). */
int cache_probe_upstream_rv(const struct cache_upstream *up,
			    const struct cache_kind *kind, const char *ns,
			    const bool *stop, uint64_t *rv, char *err,
			    size_t errlen);

/* The same on the caller's connection: keep as cache_upstream_ask's (made
 * on first use, one thread at a time, the caller frees it with
 * curl_easy_cleanup()); NULL: a connection of its own. */
int cache_probe_rv_on(const struct cache_upstream *up, CURL **keep,
		      const struct cache_kind *kind, const char *ns,
		      const bool *stop, uint64_t *rv, char *err, size_t errlen);

/* Where one object stands at the upstream now: a GET of ns/name (ns "" for
 * a cluster-scoped kind), a quorum read there. *present and *rv (its
 * metadata.resourceVersion, 0 when absent) on success. A 404 counts as
 * absent only with a NotFound Status, so an unknown path is an error.
 * keep as above. Returns 0, or -EACCES (401 or 403: the identity may
 * not get it), -EIO or -ENOMEM with err set. */
int cache_probe_object(const struct cache_upstream *up, CURL **keep,
		       const struct cache_kind *kind, const char *ns,
		       const char *name, const bool *stop, bool *present,
		       uint64_t *rv, char *err, size_t errlen);

/*
 * Whether store holds the upstream's state now: one LIST of the
 * collection (ns as above) of at most max items, whose items must be
 * the current snapshot's, as many, each with the same RV. Then the
 * snapshot (at RV *at) stands for the upstream's state at *rv, the
 * list's RV, though no event brought the store there. *same is false
 * when they differ or the collection takes more than one page. Compares
 * keys and RVs only: the caller makes sure the store caches the whole
 * collection (no selector). keep as above. Returns 0, or -EIO with err
 * set.
 */
int cache_probe_same_state(const struct cache_upstream *up, CURL **keep,
			   const struct cache_kind *kind, const char *ns,
			   struct cache_store *store, int max, const bool *stop,
			   bool *same, uint64_t *rv, uint64_t *at, char *err,
			   size_t errlen);

#endif
