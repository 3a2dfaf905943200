/*
 * pb_kinds: the top-level kinds of the protobuf schema: for an envelope's
 * apiVersion and kind, the message (see pb_schema.h). Constant data; any
 * thread may read it.
 */
#ifndef CACHE_PB_KINDS_H
#define CACHE_PB_KINDS_H

#include <stddef.h>

#include "cache/pb_schema.h"

struct pb_kind_row {
	const char *api_version; /* "v1", "apps/v1" */
	const char *kind;
	const struct pb_msg *msg;
};

/* The message of kind in api_version, or NULL when the schema does not
 * know it (a custom resource, or a kind not written down). */
const struct pb_msg *pb_kinds_find(const char *api_version, const char *kind);

/* Every known kind, for tests: *n rows. */
const struct pb_kind_row *pb_kinds_all(size_t *n);

#endif
