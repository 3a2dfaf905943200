/*
 * pb_schema_events: the events.k8s.io/v1 messages of the protobuf
 * schema (see pb_schema.h): every field of k8s.io/api's generated.proto
 * (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_events.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_events_event_series, "EventSeries", PB_F(1, "count", PB_INT, PB_KEEP),
       PB_F(2, "lastObservedTime", PB_MICROTIME, PB_KEEP));

PB_MSG(pb_events_event, "Event", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(2, "eventTime", PB_MICROTIME, PB_KEEP),
       PB_M(3, "series", pb_events_event_series, PB_PTR),
       PB_F(4, "reportingController", PB_STR, 0),
       PB_F(5, "reportingInstance", PB_STR, 0), PB_F(6, "action", PB_STR, 0),
       PB_F(7, "reason", PB_STR, 0),
       PB_M(8, "regarding", pb_object_reference, PB_KEEP),
       PB_M(9, "related", pb_object_reference, PB_PTR),
       PB_F(10, "note", PB_STR, 0), PB_F(11, "type", PB_STR, 0),
       PB_M(12, "deprecatedSource", pb_event_source, PB_KEEP),
       PB_F(13, "deprecatedFirstTimestamp", PB_TIME, PB_KEEP),
       PB_F(14, "deprecatedLastTimestamp", PB_TIME, PB_KEEP),
       PB_F(15, "deprecatedCount", PB_INT, 0));

PB_MSG(pb_events_event_list, "EventList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_events_event, PB_REP | PB_KEEP));
