/*
 * pb_schema_apiext: the apiextensions.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h): every field of
 * k8s.io/apiextensions-apiserver's generated.proto (v0.32), one row
 * each, in Go struct order.
 */
#include "cache/pb_schema_apiext.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_crd_custom_resource_definition_names, "CustomResourceDefinitionNames",
       PB_F(1, "plural", PB_STR, PB_KEEP), PB_F(2, "singular", PB_STR, 0),
       PB_F(3, "shortNames", PB_STR, PB_REP), PB_F(4, "kind", PB_STR, PB_KEEP),
       PB_F(5, "listKind", PB_STR, 0), PB_F(6, "categories", PB_STR, PB_REP));

PB_MSG_FORM(pb_crd_json_schema_props_or_array, "JSONSchemaPropsOrArray",
	    PB_FORM_OR_ARRAY,
	    PB_M(1, "schema", pb_crd_json_schema_props, PB_PTR | PB_KEEP),
	    PB_M(2, "jSONSchemas", pb_crd_json_schema_props, PB_REP | PB_KEEP));

PB_MSG_FORM(pb_crd_json_schema_props_or_bool, "JSONSchemaPropsOrBool",
	    PB_FORM_OR_BOOL, PB_F(1, "allows", PB_BOOL, PB_KEEP),
	    PB_M(2, "schema", pb_crd_json_schema_props, PB_PTR | PB_KEEP));

PB_MSG_FORM(pb_crd_json_schema_props_or_string_array,
	    "JSONSchemaPropsOrStringArray", PB_FORM_OR_STRS,
	    PB_M(1, "schema", pb_crd_json_schema_props, PB_PTR | PB_KEEP),
	    PB_F(2, "property", PB_STR, PB_REP | PB_KEEP));

PB_MSG(pb_crd_external_documentation, "ExternalDocumentation",
       PB_F(1, "description", PB_STR, 0), PB_F(2, "url", PB_STR, 0));

PB_MSG(pb_crd_validation_rule, "ValidationRule",
       PB_F(1, "rule", PB_STR, PB_KEEP), PB_F(2, "message", PB_STR, 0),
       PB_F(3, "messageExpression", PB_STR, 0),
       PB_F(4, "reason", PB_STR, PB_PTR), PB_F(5, "fieldPath", PB_STR, 0),
       PB_F(6, "optionalOldSelf", PB_BOOL, PB_PTR));

PB_MSG(pb_crd_json_schema_props, "JSONSchemaProps", PB_F(1, "id", PB_STR, 0),
       PB_F(2, "$schema", PB_STR, 0), PB_F(3, "$ref", PB_STR, PB_PTR),
       PB_F(4, "description", PB_STR, 0), PB_F(5, "type", PB_STR, 0),
       PB_F(6, "format", PB_STR, 0), PB_F(7, "title", PB_STR, 0),
       PB_F(8, "default", PB_RAW, PB_PTR),
       PB_F(9, "maximum", PB_DOUBLE, PB_PTR),
       PB_F(10, "exclusiveMaximum", PB_BOOL, 0),
       PB_F(11, "minimum", PB_DOUBLE, PB_PTR),
       PB_F(12, "exclusiveMinimum", PB_BOOL, 0),
       PB_F(13, "maxLength", PB_INT, PB_PTR),
       PB_F(14, "minLength", PB_INT, PB_PTR), PB_F(15, "pattern", PB_STR, 0),
       PB_F(16, "maxItems", PB_INT, PB_PTR),
       PB_F(17, "minItems", PB_INT, PB_PTR),
       PB_F(18, "uniqueItems", PB_BOOL, 0),
       PB_F(19, "multipleOf", PB_DOUBLE, PB_PTR),
       PB_F(20, "enum", PB_RAW, PB_REP),
       PB_F(21, "maxProperties", PB_INT, PB_PTR),
       PB_F(22, "minProperties", PB_INT, PB_PTR),
       PB_F(23, "required", PB_STR, PB_REP),
       PB_M(24, "items", pb_crd_json_schema_props_or_array, PB_PTR),
       PB_M(25, "allOf", pb_crd_json_schema_props, PB_REP),
       PB_M(26, "oneOf", pb_crd_json_schema_props, PB_REP),
       PB_M(27, "anyOf", pb_crd_json_schema_props, PB_REP),
       PB_M(28, "not", pb_crd_json_schema_props, PB_PTR),
       PB_MX(29, "properties", PB_MAP_MSG, pb_crd_json_schema_props, 0),
       PB_M(30, "additionalProperties", pb_crd_json_schema_props_or_bool,
	    PB_PTR),
       PB_MX(31, "patternProperties", PB_MAP_MSG, pb_crd_json_schema_props, 0),
       PB_MX(32, "dependencies", PB_MAP_MSG,
	     pb_crd_json_schema_props_or_string_array, 0),
       PB_M(33, "additionalItems", pb_crd_json_schema_props_or_bool, PB_PTR),
       PB_MX(34, "definitions", PB_MAP_MSG, pb_crd_json_schema_props, 0),
       PB_M(35, "externalDocs", pb_crd_external_documentation, PB_PTR),
       PB_F(36, "example", PB_RAW, PB_PTR), PB_F(37, "nullable", PB_BOOL, 0),
       PB_F(38, "x-kubernetes-preserve-unknown-fields", PB_BOOL, PB_PTR),
       PB_F(39, "x-kubernetes-embedded-resource", PB_BOOL, 0),
       PB_F(40, "x-kubernetes-int-or-string", PB_BOOL, 0),
       PB_F(41, "x-kubernetes-list-map-keys", PB_STR, PB_REP),
       PB_F(42, "x-kubernetes-list-type", PB_STR, PB_PTR),
       PB_F(43, "x-kubernetes-map-type", PB_STR, PB_PTR),
       PB_M(44, "x-kubernetes-validations", pb_crd_validation_rule, PB_REP));

PB_MSG(pb_crd_custom_resource_validation, "CustomResourceValidation",
       PB_M(1, "openAPIV3Schema", pb_crd_json_schema_props, PB_PTR));

PB_MSG_EMPTY(pb_crd_custom_resource_subresource_status,
	     "CustomResourceSubresourceStatus");

PB_MSG(pb_crd_custom_resource_subresource_scale,
       "CustomResourceSubresourceScale",
       PB_F(1, "specReplicasPath", PB_STR, PB_KEEP),
       PB_F(2, "statusReplicasPath", PB_STR, PB_KEEP),
       PB_F(3, "labelSelectorPath", PB_STR, PB_PTR));

PB_MSG(pb_crd_custom_resource_subresources, "CustomResourceSubresources",
       PB_M(1, "status", pb_crd_custom_resource_subresource_status, PB_PTR),
       PB_M(2, "scale", pb_crd_custom_resource_subresource_scale, PB_PTR));

PB_MSG(pb_crd_custom_resource_column_definition,
       "CustomResourceColumnDefinition", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "type", PB_STR, PB_KEEP), PB_F(3, "format", PB_STR, 0),
       PB_F(4, "description", PB_STR, 0), PB_F(5, "priority", PB_INT, 0),
       PB_F(6, "jsonPath", PB_STR, PB_KEEP));

PB_MSG(pb_crd_selectable_field, "SelectableField",
       PB_F(1, "jsonPath", PB_STR, PB_KEEP));

PB_MSG(pb_crd_custom_resource_definition_version,
       "CustomResourceDefinitionVersion", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "served", PB_BOOL, PB_KEEP),
       PB_F(3, "storage", PB_BOOL, PB_KEEP), PB_F(7, "deprecated", PB_BOOL, 0),
       PB_F(8, "deprecationWarning", PB_STR, PB_PTR),
       PB_M(4, "schema", pb_crd_custom_resource_validation, PB_PTR),
       PB_M(5, "subresources", pb_crd_custom_resource_subresources, PB_PTR),
       PB_M(6, "additionalPrinterColumns",
	    pb_crd_custom_resource_column_definition, PB_REP),
       PB_M(9, "selectableFields", pb_crd_selectable_field, PB_REP));

PB_MSG(pb_crd_service_reference, "ServiceReference",
       PB_F(1, "namespace", PB_STR, PB_KEEP), PB_F(2, "name", PB_STR, PB_KEEP),
       PB_F(3, "path", PB_STR, PB_PTR), PB_F(4, "port", PB_INT, PB_PTR));

PB_MSG(pb_crd_webhook_client_config, "WebhookClientConfig",
       PB_F(3, "url", PB_STR, PB_PTR),
       PB_M(1, "service", pb_crd_service_reference, PB_PTR),
       PB_F(2, "caBundle", PB_BYTES, 0));

PB_MSG(pb_crd_webhook_conversion, "WebhookConversion",
       PB_M(2, "clientConfig", pb_crd_webhook_client_config, PB_PTR),
       PB_F(3, "conversionReviewVersions", PB_STR, PB_REP | PB_KEEP));

PB_MSG(pb_crd_custom_resource_conversion, "CustomResourceConversion",
       PB_F(1, "strategy", PB_STR, PB_KEEP),
       PB_M(2, "webhook", pb_crd_webhook_conversion, PB_PTR));

PB_MSG(pb_crd_custom_resource_definition_spec, "CustomResourceDefinitionSpec",
       PB_F(1, "group", PB_STR, PB_KEEP),
       PB_M(3, "names", pb_crd_custom_resource_definition_names, PB_KEEP),
       PB_F(4, "scope", PB_STR, PB_KEEP),
       PB_M(7, "versions", pb_crd_custom_resource_definition_version,
	    PB_REP | PB_KEEP),
       PB_M(9, "conversion", pb_crd_custom_resource_conversion, PB_PTR),
       PB_F(10, "preserveUnknownFields", PB_BOOL, 0));

PB_MSG(pb_crd_custom_resource_definition_condition,
       "CustomResourceDefinitionCondition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_crd_custom_resource_definition_status,
       "CustomResourceDefinitionStatus",
       PB_M(1, "conditions", pb_crd_custom_resource_definition_condition,
	    PB_REP | PB_KEEP),
       PB_M(2, "acceptedNames", pb_crd_custom_resource_definition_names,
	    PB_KEEP),
       PB_F(3, "storedVersions", PB_STR, PB_REP | PB_KEEP));

PB_MSG(pb_crd_custom_resource_definition, "CustomResourceDefinition",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_crd_custom_resource_definition_spec, PB_KEEP),
       PB_M(3, "status", pb_crd_custom_resource_definition_status, PB_KEEP));

PB_MSG(pb_crd_custom_resource_definition_list, "CustomResourceDefinitionList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_crd_custom_resource_definition, PB_REP | PB_KEEP));
