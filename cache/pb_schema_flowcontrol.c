/*
 * pb_schema_flowcontrol: the flowcontrol.apiserver.k8s.io/v1 messages
 * of the protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_flowcontrol.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_flow_priority_level_configuration_reference,
       "PriorityLevelConfigurationReference", PB_F(1, "name", PB_STR, PB_KEEP));

PB_MSG(pb_flow_flow_distinguisher_method, "FlowDistinguisherMethod",
       PB_F(1, "type", PB_STR, PB_KEEP));

PB_MSG(pb_flow_user_subject, "UserSubject", PB_F(1, "name", PB_STR, PB_KEEP));

PB_MSG(pb_flow_group_subject, "GroupSubject", PB_F(1, "name", PB_STR, PB_KEEP));

PB_MSG(pb_flow_service_account_subject, "ServiceAccountSubject",
       PB_F(1, "namespace", PB_STR, PB_KEEP), PB_F(2, "name", PB_STR, PB_KEEP));

PB_MSG(pb_flow_subject, "Subject", PB_F(1, "kind", PB_STR, PB_KEEP),
       PB_M(2, "user", pb_flow_user_subject, PB_PTR),
       PB_M(3, "group", pb_flow_group_subject, PB_PTR),
       PB_M(4, "serviceAccount", pb_flow_service_account_subject, PB_PTR));

PB_MSG(pb_flow_resource_policy_rule, "ResourcePolicyRule",
       PB_F(1, "verbs", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "apiGroups", PB_STR, PB_REP | PB_KEEP),
       PB_F(3, "resources", PB_STR, PB_REP | PB_KEEP),
       PB_F(4, "clusterScope", PB_BOOL, 0),
       PB_F(5, "namespaces", PB_STR, PB_REP | PB_KEEP));

PB_MSG(pb_flow_non_resource_policy_rule, "NonResourcePolicyRule",
       PB_F(1, "verbs", PB_STR, PB_REP | PB_KEEP),
       PB_F(6, "nonResourceURLs", PB_STR, PB_REP | PB_KEEP));

PB_MSG(pb_flow_policy_rules_with_subjects, "PolicyRulesWithSubjects",
       PB_M(1, "subjects", pb_flow_subject, PB_REP | PB_KEEP),
       PB_M(2, "resourceRules", pb_flow_resource_policy_rule, PB_REP),
       PB_M(3, "nonResourceRules", pb_flow_non_resource_policy_rule, PB_REP));

PB_MSG(pb_flow_flow_schema_spec, "FlowSchemaSpec",
       PB_M(1, "priorityLevelConfiguration",
	    pb_flow_priority_level_configuration_reference, PB_KEEP),
       PB_F(2, "matchingPrecedence", PB_INT, PB_KEEP),
       PB_M(3, "distinguisherMethod", pb_flow_flow_distinguisher_method,
	    PB_PTR),
       PB_M(4, "rules", pb_flow_policy_rules_with_subjects, PB_REP));

PB_MSG(pb_flow_flow_schema_condition, "FlowSchemaCondition",
       PB_F(1, "type", PB_STR, 0), PB_F(2, "status", PB_STR, 0),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_flow_flow_schema_status, "FlowSchemaStatus",
       PB_M(1, "conditions", pb_flow_flow_schema_condition, PB_REP));

PB_MSG(pb_flow_flow_schema, "FlowSchema",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_flow_flow_schema_spec, PB_KEEP),
       PB_M(3, "status", pb_flow_flow_schema_status, PB_KEEP));

PB_MSG(pb_flow_flow_schema_list, "FlowSchemaList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_flow_flow_schema, PB_REP | PB_KEEP));

PB_MSG(pb_flow_queuing_configuration, "QueuingConfiguration",
       PB_F(1, "queues", PB_INT, PB_KEEP), PB_F(2, "handSize", PB_INT, PB_KEEP),
       PB_F(3, "queueLengthLimit", PB_INT, PB_KEEP));

PB_MSG(pb_flow_limit_response, "LimitResponse",
       PB_F(1, "type", PB_STR, PB_KEEP),
       PB_M(2, "queuing", pb_flow_queuing_configuration, PB_PTR));

PB_MSG(pb_flow_limited_priority_level_configuration,
       "LimitedPriorityLevelConfiguration",
       PB_F(1, "nominalConcurrencyShares", PB_INT, PB_PTR | PB_KEEP),
       PB_M(2, "limitResponse", pb_flow_limit_response, PB_KEEP),
       PB_F(3, "lendablePercent", PB_INT, PB_PTR),
       PB_F(4, "borrowingLimitPercent", PB_INT, PB_PTR));

PB_MSG(pb_flow_exempt_priority_level_configuration,
       "ExemptPriorityLevelConfiguration",
       PB_F(1, "nominalConcurrencyShares", PB_INT, PB_PTR),
       PB_F(2, "lendablePercent", PB_INT, PB_PTR));

PB_MSG(pb_flow_priority_level_configuration_spec,
       "PriorityLevelConfigurationSpec", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_M(2, "limited", pb_flow_limited_priority_level_configuration, PB_PTR),
       PB_M(3, "exempt", pb_flow_exempt_priority_level_configuration, PB_PTR));

PB_MSG(pb_flow_priority_level_configuration_condition,
       "PriorityLevelConfigurationCondition", PB_F(1, "type", PB_STR, 0),
       PB_F(2, "status", PB_STR, 0),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_flow_priority_level_configuration_status,
       "PriorityLevelConfigurationStatus",
       PB_M(1, "conditions", pb_flow_priority_level_configuration_condition,
	    PB_REP));

PB_MSG(pb_flow_priority_level_configuration, "PriorityLevelConfiguration",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_flow_priority_level_configuration_spec, PB_KEEP),
       PB_M(3, "status", pb_flow_priority_level_configuration_status, PB_KEEP));

PB_MSG(pb_flow_priority_level_configuration_list,
       "PriorityLevelConfigurationList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_flow_priority_level_configuration,
	    PB_REP | PB_KEEP));
