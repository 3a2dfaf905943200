/*
 * pb_schema_scheduling: the scheduling.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_SCHEDULING_H
#define CACHE_PB_SCHEMA_SCHEDULING_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_sched_priority_class;
extern const struct pb_msg pb_sched_priority_class_list;

#endif
