/*
 * pb_schema_meta: the meta/v1 (k8s.io/apimachinery) messages of the
 * protobuf schema (see pb_schema.h): every field of
 * k8s.io/apimachinery's generated.proto (v0.32), one row each, in Go
 * struct order.
 */
#include "cache/pb_schema_meta.h"

PB_MSG(pb_list_meta, "ListMeta", PB_F(1, "selfLink", PB_STR, 0),
       PB_F(2, "resourceVersion", PB_STR, 0), PB_F(3, "continue", PB_STR, 0),
       PB_F(4, "remainingItemCount", PB_INT, PB_PTR));

PB_MSG(pb_status_cause, "StatusCause", PB_F(1, "reason", PB_STR, 0),
       PB_F(2, "message", PB_STR, 0), PB_F(3, "field", PB_STR, 0));

PB_MSG(pb_status_details, "StatusDetails", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "group", PB_STR, 0), PB_F(3, "kind", PB_STR, 0),
       PB_F(6, "uid", PB_STR, 0), PB_M(4, "causes", pb_status_cause, PB_REP),
       PB_F(5, "retryAfterSeconds", PB_INT, 0));

PB_MSG(pb_status, "Status", PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_F(2, "status", PB_STR, 0), PB_F(3, "message", PB_STR, 0),
       PB_F(4, "reason", PB_STR, 0),
       PB_M(5, "details", pb_status_details, PB_PTR),
       PB_F(6, "code", PB_INT, 0));

PB_MSG(pb_owner_reference, "OwnerReference",
       PB_F(5, "apiVersion", PB_STR, PB_KEEP), PB_F(1, "kind", PB_STR, PB_KEEP),
       PB_F(3, "name", PB_STR, PB_KEEP), PB_F(4, "uid", PB_STR, PB_KEEP),
       PB_F(6, "controller", PB_BOOL, PB_PTR),
       PB_F(7, "blockOwnerDeletion", PB_BOOL, PB_PTR));

PB_MSG(pb_managed_fields_entry, "ManagedFieldsEntry",
       PB_F(1, "manager", PB_STR, 0), PB_F(2, "operation", PB_STR, 0),
       PB_F(3, "apiVersion", PB_STR, 0), PB_F(4, "time", PB_TIME, PB_PTR),
       PB_F(6, "fieldsType", PB_STR, 0),
       PB_F(7, "fieldsV1", PB_FIELDSV1, PB_PTR),
       PB_F(8, "subresource", PB_STR, 0));

PB_MSG(pb_object_meta, "ObjectMeta", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "generateName", PB_STR, 0), PB_F(3, "namespace", PB_STR, 0),
       PB_F(4, "selfLink", PB_STR, 0), PB_F(5, "uid", PB_STR, 0),
       PB_F(6, "resourceVersion", PB_STR, 0), PB_F(7, "generation", PB_INT, 0),
       PB_F(8, "creationTimestamp", PB_TIME, PB_KEEP),
       PB_F(9, "deletionTimestamp", PB_TIME, PB_PTR),
       PB_F(10, "deletionGracePeriodSeconds", PB_INT, PB_PTR),
       PB_F(11, "labels", PB_MAP_STR, 0),
       PB_F(12, "annotations", PB_MAP_STR, 0),
       PB_M(13, "ownerReferences", pb_owner_reference, PB_REP),
       PB_F(14, "finalizers", PB_STR, PB_REP),
       PB_M(17, "managedFields", pb_managed_fields_entry, PB_REP));

PB_MSG(pb_partial_object_metadata, "PartialObjectMetadata",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP));

PB_MSG(pb_partial_object_metadata_list, "PartialObjectMetadataList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_partial_object_metadata, PB_REP | PB_KEEP));

PB_MSG(pb_watch_event, "WatchEvent", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "object", PB_RAW, PB_KEEP));

PB_MSG(pb_label_selector_requirement, "LabelSelectorRequirement",
       PB_F(1, "key", PB_STR, PB_KEEP), PB_F(2, "operator", PB_STR, PB_KEEP),
       PB_F(3, "values", PB_STR, PB_REP));

PB_MSG(pb_label_selector, "LabelSelector",
       PB_F(1, "matchLabels", PB_MAP_STR, 0),
       PB_M(2, "matchExpressions", pb_label_selector_requirement, PB_REP));

PB_MSG(pb_condition, "Condition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "observedGeneration", PB_INT, 0),
       PB_F(4, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(5, "reason", PB_STR, PB_KEEP), PB_F(6, "message", PB_STR, PB_KEEP));

/* Discovery (/api, /apis, /apis/G, /apis/G/V): answered in protobuf to
 * a protobuf Accept, as the other reads are. */
PB_MSG(pb_server_address_by_client_cidr, "ServerAddressByClientCIDR",
       PB_F(1, "clientCIDR", PB_STR, PB_KEEP),
       PB_F(2, "serverAddress", PB_STR, PB_KEEP));

PB_MSG(pb_api_versions, "APIVersions", PB_F(1, "versions", PB_STR, PB_REP),
       PB_M(2, "serverAddressByClientCIDRs", pb_server_address_by_client_cidr,
	    PB_REP));

PB_MSG(pb_group_version_for_discovery, "GroupVersionForDiscovery",
       PB_F(1, "groupVersion", PB_STR, PB_KEEP),
       PB_F(2, "version", PB_STR, PB_KEEP));

PB_MSG(pb_api_group, "APIGroup", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "versions", pb_group_version_for_discovery, PB_REP),
       PB_M(3, "preferredVersion", pb_group_version_for_discovery, PB_KEEP),
       PB_M(4, "serverAddressByClientCIDRs", pb_server_address_by_client_cidr,
	    PB_REP));

PB_MSG(pb_api_group_list, "APIGroupList",
       PB_M(1, "groups", pb_api_group, PB_REP));

/* Verbs is a named []string: a bare JSON array */
PB_MSG_FORM(pb_verbs, "Verbs", PB_FORM_LIST, PB_F(1, "items", PB_STR, PB_REP));

PB_MSG(pb_api_resource, "APIResource", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(6, "singularName", PB_STR, PB_KEEP),
       PB_F(2, "namespaced", PB_BOOL, PB_KEEP), PB_F(8, "group", PB_STR, 0),
       PB_F(9, "version", PB_STR, 0), PB_F(3, "kind", PB_STR, PB_KEEP),
       PB_M(4, "verbs", pb_verbs, 0), PB_F(5, "shortNames", PB_STR, PB_REP),
       PB_F(7, "categories", PB_STR, PB_REP),
       PB_F(10, "storageVersionHash", PB_STR, 0));

PB_MSG(pb_api_resource_list, "APIResourceList",
       PB_F(1, "groupVersion", PB_STR, PB_KEEP),
       PB_M(2, "resources", pb_api_resource, PB_REP));
