/*
 * resources: the reflectors one --config entry (or --resources name)
 * asks for. An entry with namespaces gets one reflector per namespace,
 * each scoped to it; every reflector of the entry carries its selectors
 * and stripped paths (cache/scope.h).
 *
 * The caller resolves the kind (built in or discovered) and owns the
 * reflectors made here: it starts, stops and frees them.
 *
 * Threads: main's thread (at start) and reload's (main's too).
 */
#ifndef PROXY_RESOURCES_H
#define PROXY_RESOURCES_H

#include <stddef.h>

#include "cache/resource.h"
#include "config/file.h"

/*
 * Check sc against kind k (its selectors parse, a namespace list only on
 * a namespaced kind) and make its reflectors, not started, into out[]
 * (room for max). Returns how many, or -EINVAL / -ENOMEM / -ENOSPC with
 * err set; a message names sc's place in the --config file when it came
 * from there. Nothing is left allocated on failure.
 */
int proxy_resources_make(const struct cache_kind *k,
			 const struct config_scope *sc,
			 const struct cache_upstream *up, size_t history,
			 struct cache_resource **out, int max, char *err,
			 size_t errlen);

/* How many reflectors sc asks for (its namespaces, or one). */
int proxy_resources_count(const struct config_scope *sc);

#endif
