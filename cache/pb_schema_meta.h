/*
 * pb_schema_meta: the meta/v1 (k8s.io/apimachinery) messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_META_H
#define CACHE_PB_SCHEMA_META_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_list_meta;
extern const struct pb_msg pb_status_cause;
extern const struct pb_msg pb_status_details;
extern const struct pb_msg pb_status;
extern const struct pb_msg pb_owner_reference;
extern const struct pb_msg pb_managed_fields_entry;
extern const struct pb_msg pb_object_meta;
extern const struct pb_msg pb_partial_object_metadata;
extern const struct pb_msg pb_partial_object_metadata_list;
extern const struct pb_msg pb_watch_event;
extern const struct pb_msg pb_label_selector_requirement;
extern const struct pb_msg pb_label_selector;
extern const struct pb_msg pb_condition;
/* discovery */
extern const struct pb_msg pb_server_address_by_client_cidr;
extern const struct pb_msg pb_api_versions;
extern const struct pb_msg pb_group_version_for_discovery;
extern const struct pb_msg pb_api_group;
extern const struct pb_msg pb_api_group_list;
extern const struct pb_msg pb_verbs;
extern const struct pb_msg pb_api_resource;
extern const struct pb_msg pb_api_resource_list;

#endif
