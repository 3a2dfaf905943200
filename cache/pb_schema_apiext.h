/*
 * pb_schema_apiext: the apiextensions.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_APIEXT_H
#define CACHE_PB_SCHEMA_APIEXT_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_crd_custom_resource_definition_names;
extern const struct pb_msg pb_crd_json_schema_props_or_array;
extern const struct pb_msg pb_crd_json_schema_props_or_bool;
extern const struct pb_msg pb_crd_json_schema_props_or_string_array;
extern const struct pb_msg pb_crd_external_documentation;
extern const struct pb_msg pb_crd_validation_rule;
extern const struct pb_msg pb_crd_json_schema_props;
extern const struct pb_msg pb_crd_custom_resource_validation;
extern const struct pb_msg pb_crd_custom_resource_subresource_status;
extern const struct pb_msg pb_crd_custom_resource_subresource_scale;
extern const struct pb_msg pb_crd_custom_resource_subresources;
extern const struct pb_msg pb_crd_custom_resource_column_definition;
extern const struct pb_msg pb_crd_selectable_field;
extern const struct pb_msg pb_crd_custom_resource_definition_version;
extern const struct pb_msg pb_crd_service_reference;
extern const struct pb_msg pb_crd_webhook_client_config;
extern const struct pb_msg pb_crd_webhook_conversion;
extern const struct pb_msg pb_crd_custom_resource_conversion;
extern const struct pb_msg pb_crd_custom_resource_definition_spec;
extern const struct pb_msg pb_crd_custom_resource_definition_condition;
extern const struct pb_msg pb_crd_custom_resource_definition_status;
extern const struct pb_msg pb_crd_custom_resource_definition;
extern const struct pb_msg pb_crd_custom_resource_definition_list;

#endif
