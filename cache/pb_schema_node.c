/*
 * pb_schema_node: the node.k8s.io/v1 messages of the protobuf schema
 * (see pb_schema.h): every field of k8s.io/api's generated.proto
 * (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_node.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_node_overhead, "Overhead", PB_F(1, "podFixed", PB_MAP_QTY, 0));

PB_MSG(pb_node_scheduling, "Scheduling", PB_F(1, "nodeSelector", PB_MAP_STR, 0),
       PB_M(2, "tolerations", pb_toleration, PB_REP));

PB_MSG(pb_node_runtime_class, "RuntimeClass",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(2, "handler", PB_STR, PB_KEEP),
       PB_M(3, "overhead", pb_node_overhead, PB_PTR),
       PB_M(4, "scheduling", pb_node_scheduling, PB_PTR));

PB_MSG(pb_node_runtime_class_list, "RuntimeClassList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_node_runtime_class, PB_REP | PB_KEEP));
