/*
 * pb_schema_scheduling: the scheduling.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_scheduling.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_sched_priority_class, "PriorityClass",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(2, "value", PB_INT, PB_KEEP), PB_F(3, "globalDefault", PB_BOOL, 0),
       PB_F(4, "description", PB_STR, 0),
       PB_F(5, "preemptionPolicy", PB_STR, PB_PTR));

PB_MSG(pb_sched_priority_class_list, "PriorityClassList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_sched_priority_class, PB_REP | PB_KEEP));
