/*
 * shape: which parts of an upstream document the cache tokenizes.
 *
 * Of each object the cache reads metadata (name, namespace, uid,
 * resourceVersion, creation time, labels) and its kind's selectable
 * fields; everything else it keeps as bytes. A shape built here from a
 * kind tells json_parse_shaped() to validate the rest without recording
 * tokens for it: spec and status beyond the selectable fields, and
 * metadata.managedFields, which are most of a typical object's tokens.
 *
 * Ownership: cache_shape_new() returns a shape that the caller frees
 * with cache_shape_free() once no parse uses it. It borrows the kind's
 * field strings, which live as long as the kind. Read-only after
 * construction, so any number of threads may parse with it.
 */
#ifndef CACHE_SHAPE_H
#define CACHE_SHAPE_H

#include "cache/json.h"
#include "cache/kind.h"

struct cache_shape;

/* The shape for kind's objects, or NULL when out of memory. */
struct cache_shape *cache_shape_new(const struct cache_kind *kind);
void cache_shape_free(struct cache_shape *s);

/* A LIST page: its metadata whole, each of its items as an object. */
const struct json_shape *cache_shape_list(const struct cache_shape *s);
/* A watch event line: its type, and its object. */
const struct json_shape *cache_shape_event(const struct cache_shape *s);
/* One object alone. */
const struct json_shape *cache_shape_object(const struct cache_shape *s);

#endif
