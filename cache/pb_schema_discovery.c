/*
 * pb_schema_discovery: the discovery.k8s.io/v1 messages of the protobuf
 * schema (see pb_schema.h): every field of k8s.io/api's generated.proto
 * (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_discovery.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_disc_endpoint_conditions, "EndpointConditions",
       PB_F(1, "ready", PB_BOOL, PB_PTR), PB_F(2, "serving", PB_BOOL, PB_PTR),
       PB_F(3, "terminating", PB_BOOL, PB_PTR));

PB_MSG(pb_disc_for_zone, "ForZone", PB_F(1, "name", PB_STR, PB_KEEP));

PB_MSG(pb_disc_endpoint_hints, "EndpointHints",
       PB_M(1, "forZones", pb_disc_for_zone, PB_REP));

PB_MSG(pb_disc_endpoint, "Endpoint",
       PB_F(1, "addresses", PB_STR, PB_REP | PB_KEEP),
       PB_M(2, "conditions", pb_disc_endpoint_conditions, PB_KEEP),
       PB_F(3, "hostname", PB_STR, PB_PTR),
       PB_M(4, "targetRef", pb_object_reference, PB_PTR),
       PB_F(5, "deprecatedTopology", PB_MAP_STR, 0),
       PB_F(6, "nodeName", PB_STR, PB_PTR), PB_F(7, "zone", PB_STR, PB_PTR),
       PB_M(8, "hints", pb_disc_endpoint_hints, PB_PTR));

PB_MSG(pb_disc_endpoint_port, "EndpointPort", PB_F(1, "name", PB_STR, PB_PTR),
       PB_F(2, "protocol", PB_STR, PB_PTR), PB_F(3, "port", PB_INT, PB_PTR),
       PB_F(4, "appProtocol", PB_STR, PB_PTR));

PB_MSG(pb_disc_endpoint_slice, "EndpointSlice",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(4, "addressType", PB_STR, PB_KEEP),
       PB_M(2, "endpoints", pb_disc_endpoint, PB_REP | PB_KEEP),
       PB_M(3, "ports", pb_disc_endpoint_port, PB_REP | PB_KEEP));

PB_MSG(pb_disc_endpoint_slice_list, "EndpointSliceList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_disc_endpoint_slice, PB_REP | PB_KEEP));
