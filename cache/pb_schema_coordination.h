/*
 * pb_schema_coordination: the coordination.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_COORDINATION_H
#define CACHE_PB_SCHEMA_COORDINATION_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_coord_lease_spec;
extern const struct pb_msg pb_coord_lease;
extern const struct pb_msg pb_coord_lease_list;

#endif
