/*
 * probe: ask the upstream where a resource's resourceVersion stands now.
 *
 * One limit=1 LIST, a quorum read at the apiserver. The reflector uses it
 * to notice an upstream that went backwards (a wiped cluster), and the
 * proxy's freshness wait to learn which RV a consistent read must reach.
 * Blocking; call it from a thread that may wait on the network.
 */
#ifndef CACHE_PROBE_H
#define CACHE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/kind.h"
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

#endif
