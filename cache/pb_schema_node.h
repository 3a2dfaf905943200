/*
 * pb_schema_node: the node.k8s.io/v1 messages of the protobuf schema
 * (see pb_schema.h); the kinds among them are registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_NODE_H
#define CACHE_PB_SCHEMA_NODE_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_node_overhead;
extern const struct pb_msg pb_node_scheduling;
extern const struct pb_msg pb_node_runtime_class;
extern const struct pb_msg pb_node_runtime_class_list;

#endif
