/*
 * pb_schema_meta: the framing messages of meta/v1 (see pb_schema_meta.h),
 * after apimachinery's generated.proto.
 */
#include "cache/pb_schema_meta.h"

#include "cache/pb_schema_core.h"

PB_MSG(pb_list_meta, "ListMeta", PB_F(1, "selfLink", PB_STR, 0),
       PB_F(2, "resourceVersion", PB_STR, 0), PB_F(3, "continue", PB_STR, 0),
       PB_F(4, "remainingItemCount", PB_INT, PB_PTR));

PB_MSG(pb_status_cause, "StatusCause", PB_F(1, "reason", PB_STR, 0),
       PB_F(2, "message", PB_STR, 0), PB_F(3, "field", PB_STR, 0));

PB_MSG(pb_status_details, "StatusDetails", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "group", PB_STR, 0), PB_F(3, "kind", PB_STR, 0),
       PB_F(6, "uid", PB_STR, 0), PB_M(4, "causes", pb_status_cause, PB_REP),
       PB_F(5, "retryAfterSeconds", PB_INT, 0));

PB_MSG(pb_status, "Status", PB_M(1, "metadata", pb_list_meta, 0),
       PB_F(2, "status", PB_STR, 0), PB_F(3, "message", PB_STR, 0),
       PB_F(4, "reason", PB_STR, 0), PB_M(5, "details", pb_status_details, 0),
       PB_F(6, "code", PB_INT, 0));

PB_MSG(pb_partial_object_metadata, "PartialObjectMetadata",
       PB_M(1, "metadata", pb_object_meta, 0));

PB_MSG(pb_partial_object_metadata_list, "PartialObjectMetadataList",
       PB_M(1, "metadata", pb_list_meta, 0),
       PB_M(2, "items", pb_partial_object_metadata, PB_REP));
