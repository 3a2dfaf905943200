/*
 * pb_schema_coordination: the coordination.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_coordination.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_coord_lease_spec, "LeaseSpec",
       PB_F(1, "holderIdentity", PB_STR, PB_PTR),
       PB_F(2, "leaseDurationSeconds", PB_INT, PB_PTR),
       PB_F(3, "acquireTime", PB_MICROTIME, PB_PTR),
       PB_F(4, "renewTime", PB_MICROTIME, PB_PTR),
       PB_F(5, "leaseTransitions", PB_INT, PB_PTR),
       PB_F(6, "strategy", PB_STR, PB_PTR),
       PB_F(7, "preferredHolder", PB_STR, PB_PTR));

PB_MSG(pb_coord_lease, "Lease", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_coord_lease_spec, PB_KEEP));

PB_MSG(pb_coord_lease_list, "LeaseList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_coord_lease, PB_REP | PB_KEEP));
