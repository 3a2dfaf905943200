/*
 * pb_schema_meta: the meta/v1 messages that frame answers rather than
 * hold objects (see pb_schema.h): a list's ListMeta, the Status of an
 * error, and PartialObjectMetadata. WatchEvent and runtime.Unknown are
 * built by pb_encode.h's framing functions, not from tables.
 */
#ifndef CACHE_PB_SCHEMA_META_H
#define CACHE_PB_SCHEMA_META_H

#include "cache/pb_schema.h"

/* ListMeta {1 selfLink, 2 resourceVersion, 3 continue,
 * 4 remainingItemCount}. */
extern const struct pb_msg pb_list_meta;
/* Status {1 metadata ListMeta, 2 status, 3 message, 4 reason,
 * 5 details, 6 code}; envelope v1 Status. */
extern const struct pb_msg pb_status;
/* PartialObjectMetadata {1 metadata} and its list, envelope apiVersion
 * meta.k8s.io/v1. */
extern const struct pb_msg pb_partial_object_metadata;
extern const struct pb_msg pb_partial_object_metadata_list;

#endif
