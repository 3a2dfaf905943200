/*
 * pb_schema_admission: the admissionregistration.k8s.io/v1 messages of
 * the protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_admission.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_adm_service_reference, "ServiceReference",
       PB_F(1, "namespace", PB_STR, PB_KEEP), PB_F(2, "name", PB_STR, PB_KEEP),
       PB_F(3, "path", PB_STR, PB_PTR), PB_F(4, "port", PB_INT, PB_PTR));

PB_MSG(pb_adm_webhook_client_config, "WebhookClientConfig",
       PB_F(3, "url", PB_STR, PB_PTR),
       PB_M(1, "service", pb_adm_service_reference, PB_PTR),
       PB_F(2, "caBundle", PB_BYTES, 0));

PB_MSG(pb_adm_rule, "Rule", PB_F(1, "apiGroups", PB_STR, PB_REP),
       PB_F(2, "apiVersions", PB_STR, PB_REP),
       PB_F(3, "resources", PB_STR, PB_REP), PB_F(4, "scope", PB_STR, PB_PTR));

PB_MSG(pb_adm_rule_with_operations, "RuleWithOperations",
       PB_F(1, "operations", PB_STR, PB_REP), PB_I(2, pb_adm_rule));

PB_MSG(pb_adm_match_condition, "MatchCondition",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "expression", PB_STR, PB_KEEP));

PB_MSG(pb_adm_validating_webhook, "ValidatingWebhook",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "clientConfig", pb_adm_webhook_client_config, PB_KEEP),
       PB_M(3, "rules", pb_adm_rule_with_operations, PB_REP),
       PB_F(4, "failurePolicy", PB_STR, PB_PTR),
       PB_F(9, "matchPolicy", PB_STR, PB_PTR),
       PB_M(5, "namespaceSelector", pb_label_selector, PB_PTR),
       PB_M(10, "objectSelector", pb_label_selector, PB_PTR),
       PB_F(6, "sideEffects", PB_STR, PB_PTR | PB_KEEP),
       PB_F(7, "timeoutSeconds", PB_INT, PB_PTR),
       PB_F(8, "admissionReviewVersions", PB_STR, PB_REP | PB_KEEP),
       PB_M(11, "matchConditions", pb_adm_match_condition, PB_REP));

PB_MSG(pb_adm_validating_webhook_configuration,
       "ValidatingWebhookConfiguration",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "webhooks", pb_adm_validating_webhook, PB_REP));

PB_MSG(pb_adm_validating_webhook_configuration_list,
       "ValidatingWebhookConfigurationList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_adm_validating_webhook_configuration,
	    PB_REP | PB_KEEP));

PB_MSG(pb_adm_mutating_webhook, "MutatingWebhook",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "clientConfig", pb_adm_webhook_client_config, PB_KEEP),
       PB_M(3, "rules", pb_adm_rule_with_operations, PB_REP),
       PB_F(4, "failurePolicy", PB_STR, PB_PTR),
       PB_F(9, "matchPolicy", PB_STR, PB_PTR),
       PB_M(5, "namespaceSelector", pb_label_selector, PB_PTR),
       PB_M(11, "objectSelector", pb_label_selector, PB_PTR),
       PB_F(6, "sideEffects", PB_STR, PB_PTR | PB_KEEP),
       PB_F(7, "timeoutSeconds", PB_INT, PB_PTR),
       PB_F(8, "admissionReviewVersions", PB_STR, PB_REP | PB_KEEP),
       PB_F(10, "reinvocationPolicy", PB_STR, PB_PTR),
       PB_M(12, "matchConditions", pb_adm_match_condition, PB_REP));

PB_MSG(pb_adm_mutating_webhook_configuration, "MutatingWebhookConfiguration",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "webhooks", pb_adm_mutating_webhook, PB_REP));

PB_MSG(pb_adm_mutating_webhook_configuration_list,
       "MutatingWebhookConfigurationList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_adm_mutating_webhook_configuration,
	    PB_REP | PB_KEEP));

PB_MSG(pb_adm_param_kind, "ParamKind", PB_F(1, "apiVersion", PB_STR, 0),
       PB_F(2, "kind", PB_STR, 0));

PB_MSG(pb_adm_named_rule_with_operations, "NamedRuleWithOperations",
       PB_F(1, "resourceNames", PB_STR, PB_REP),
       PB_I(2, pb_adm_rule_with_operations));

PB_MSG(pb_adm_match_resources, "MatchResources",
       PB_M(1, "namespaceSelector", pb_label_selector, PB_PTR),
       PB_M(2, "objectSelector", pb_label_selector, PB_PTR),
       PB_M(3, "resourceRules", pb_adm_named_rule_with_operations, PB_REP),
       PB_M(4, "excludeResourceRules", pb_adm_named_rule_with_operations,
	    PB_REP),
       PB_F(7, "matchPolicy", PB_STR, PB_PTR));

PB_MSG(pb_adm_validation, "Validation", PB_F(1, "expression", PB_STR, PB_KEEP),
       PB_F(2, "message", PB_STR, 0), PB_F(3, "reason", PB_STR, PB_PTR),
       PB_F(4, "messageExpression", PB_STR, 0));

PB_MSG(pb_adm_audit_annotation, "AuditAnnotation",
       PB_F(1, "key", PB_STR, PB_KEEP),
       PB_F(2, "valueExpression", PB_STR, PB_KEEP));

PB_MSG(pb_adm_variable, "Variable", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "expression", PB_STR, PB_KEEP));

PB_MSG(pb_adm_validating_admission_policy_spec, "ValidatingAdmissionPolicySpec",
       PB_M(1, "paramKind", pb_adm_param_kind, PB_PTR),
       PB_M(2, "matchConstraints", pb_adm_match_resources, PB_PTR),
       PB_M(3, "validations", pb_adm_validation, PB_REP),
       PB_F(4, "failurePolicy", PB_STR, PB_PTR),
       PB_M(5, "auditAnnotations", pb_adm_audit_annotation, PB_REP),
       PB_M(6, "matchConditions", pb_adm_match_condition, PB_REP),
       PB_M(7, "variables", pb_adm_variable, PB_REP));

PB_MSG(pb_adm_expression_warning, "ExpressionWarning",
       PB_F(2, "fieldRef", PB_STR, PB_KEEP),
       PB_F(3, "warning", PB_STR, PB_KEEP));

PB_MSG(pb_adm_type_checking, "TypeChecking",
       PB_M(1, "expressionWarnings", pb_adm_expression_warning, PB_REP));

PB_MSG(pb_adm_validating_admission_policy_status,
       "ValidatingAdmissionPolicyStatus",
       PB_F(1, "observedGeneration", PB_INT, 0),
       PB_M(2, "typeChecking", pb_adm_type_checking, PB_PTR),
       PB_M(3, "conditions", pb_condition, PB_REP));

PB_MSG(pb_adm_validating_admission_policy, "ValidatingAdmissionPolicy",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_adm_validating_admission_policy_spec, PB_KEEP),
       PB_M(3, "status", pb_adm_validating_admission_policy_status, PB_KEEP));

PB_MSG(pb_adm_validating_admission_policy_list, "ValidatingAdmissionPolicyList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_adm_validating_admission_policy, PB_REP | PB_KEEP));

PB_MSG(pb_adm_param_ref, "ParamRef", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "namespace", PB_STR, 0),
       PB_M(3, "selector", pb_label_selector, PB_PTR),
       PB_F(4, "parameterNotFoundAction", PB_STR, PB_PTR));

PB_MSG(pb_adm_validating_admission_policy_binding_spec,
       "ValidatingAdmissionPolicyBindingSpec", PB_F(1, "policyName", PB_STR, 0),
       PB_M(2, "paramRef", pb_adm_param_ref, PB_PTR),
       PB_M(3, "matchResources", pb_adm_match_resources, PB_PTR),
       PB_F(4, "validationActions", PB_STR, PB_REP));

PB_MSG(pb_adm_validating_admission_policy_binding,
       "ValidatingAdmissionPolicyBinding",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_adm_validating_admission_policy_binding_spec,
	    PB_KEEP));

PB_MSG(pb_adm_validating_admission_policy_binding_list,
       "ValidatingAdmissionPolicyBindingList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_adm_validating_admission_policy_binding,
	    PB_REP | PB_KEEP));
