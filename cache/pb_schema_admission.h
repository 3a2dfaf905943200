/*
 * pb_schema_admission: the admissionregistration.k8s.io/v1 messages of
 * the protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_ADMISSION_H
#define CACHE_PB_SCHEMA_ADMISSION_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_adm_service_reference;
extern const struct pb_msg pb_adm_webhook_client_config;
extern const struct pb_msg pb_adm_rule;
extern const struct pb_msg pb_adm_rule_with_operations;
extern const struct pb_msg pb_adm_match_condition;
extern const struct pb_msg pb_adm_validating_webhook;
extern const struct pb_msg pb_adm_validating_webhook_configuration;
extern const struct pb_msg pb_adm_validating_webhook_configuration_list;
extern const struct pb_msg pb_adm_mutating_webhook;
extern const struct pb_msg pb_adm_mutating_webhook_configuration;
extern const struct pb_msg pb_adm_mutating_webhook_configuration_list;
extern const struct pb_msg pb_adm_param_kind;
extern const struct pb_msg pb_adm_named_rule_with_operations;
extern const struct pb_msg pb_adm_match_resources;
extern const struct pb_msg pb_adm_validation;
extern const struct pb_msg pb_adm_audit_annotation;
extern const struct pb_msg pb_adm_variable;
extern const struct pb_msg pb_adm_validating_admission_policy_spec;
extern const struct pb_msg pb_adm_expression_warning;
extern const struct pb_msg pb_adm_type_checking;
extern const struct pb_msg pb_adm_validating_admission_policy_status;
extern const struct pb_msg pb_adm_validating_admission_policy;
extern const struct pb_msg pb_adm_validating_admission_policy_list;
extern const struct pb_msg pb_adm_param_ref;
extern const struct pb_msg pb_adm_validating_admission_policy_binding_spec;
extern const struct pb_msg pb_adm_validating_admission_policy_binding;
extern const struct pb_msg pb_adm_validating_admission_policy_binding_list;

#endif
