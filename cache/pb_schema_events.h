/*
 * pb_schema_events: the events.k8s.io/v1 messages of the protobuf
 * schema (see pb_schema.h); the kinds among them are registered in
 * pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_EVENTS_H
#define CACHE_PB_SCHEMA_EVENTS_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_events_event_series;
extern const struct pb_msg pb_events_event;
extern const struct pb_msg pb_events_event_list;

#endif
