/*
 * pb_schema_flowcontrol: the flowcontrol.apiserver.k8s.io/v1 messages
 * of the protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_FLOWCONTROL_H
#define CACHE_PB_SCHEMA_FLOWCONTROL_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_flow_priority_level_configuration_reference;
extern const struct pb_msg pb_flow_flow_distinguisher_method;
extern const struct pb_msg pb_flow_user_subject;
extern const struct pb_msg pb_flow_group_subject;
extern const struct pb_msg pb_flow_service_account_subject;
extern const struct pb_msg pb_flow_subject;
extern const struct pb_msg pb_flow_resource_policy_rule;
extern const struct pb_msg pb_flow_non_resource_policy_rule;
extern const struct pb_msg pb_flow_policy_rules_with_subjects;
extern const struct pb_msg pb_flow_flow_schema_spec;
extern const struct pb_msg pb_flow_flow_schema_condition;
extern const struct pb_msg pb_flow_flow_schema_status;
extern const struct pb_msg pb_flow_flow_schema;
extern const struct pb_msg pb_flow_flow_schema_list;
extern const struct pb_msg pb_flow_queuing_configuration;
extern const struct pb_msg pb_flow_limit_response;
extern const struct pb_msg pb_flow_limited_priority_level_configuration;
extern const struct pb_msg pb_flow_exempt_priority_level_configuration;
extern const struct pb_msg pb_flow_priority_level_configuration_spec;
extern const struct pb_msg pb_flow_priority_level_configuration_condition;
extern const struct pb_msg pb_flow_priority_level_configuration_status;
extern const struct pb_msg pb_flow_priority_level_configuration;
extern const struct pb_msg pb_flow_priority_level_configuration_list;

#endif
