/*
 * pb_schema_discovery: the discovery.k8s.io/v1 messages of the protobuf
 * schema (see pb_schema.h); the kinds among them are registered in
 * pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_DISCOVERY_H
#define CACHE_PB_SCHEMA_DISCOVERY_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_disc_endpoint_conditions;
extern const struct pb_msg pb_disc_for_zone;
extern const struct pb_msg pb_disc_endpoint_hints;
extern const struct pb_msg pb_disc_endpoint;
extern const struct pb_msg pb_disc_endpoint_port;
extern const struct pb_msg pb_disc_endpoint_slice;
extern const struct pb_msg pb_disc_endpoint_slice_list;

#endif
