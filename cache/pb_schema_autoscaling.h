/*
 * pb_schema_autoscaling: the autoscaling/v2 messages of the protobuf
 * schema (see pb_schema.h); the kinds among them are registered in
 * pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_AUTOSCALING_H
#define CACHE_PB_SCHEMA_AUTOSCALING_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_hpa_cross_version_object_reference;
extern const struct pb_msg pb_hpa_metric_target;
extern const struct pb_msg pb_hpa_metric_identifier;
extern const struct pb_msg pb_hpa_object_metric_source;
extern const struct pb_msg pb_hpa_pods_metric_source;
extern const struct pb_msg pb_hpa_resource_metric_source;
extern const struct pb_msg pb_hpa_container_resource_metric_source;
extern const struct pb_msg pb_hpa_external_metric_source;
extern const struct pb_msg pb_hpa_metric_spec;
extern const struct pb_msg pb_hpa_hpa_scaling_policy;
extern const struct pb_msg pb_hpa_hpa_scaling_rules;
extern const struct pb_msg pb_hpa_horizontal_pod_autoscaler_behavior;
extern const struct pb_msg pb_hpa_horizontal_pod_autoscaler_spec;
extern const struct pb_msg pb_hpa_metric_value_status;
extern const struct pb_msg pb_hpa_object_metric_status;
extern const struct pb_msg pb_hpa_pods_metric_status;
extern const struct pb_msg pb_hpa_resource_metric_status;
extern const struct pb_msg pb_hpa_container_resource_metric_status;
extern const struct pb_msg pb_hpa_external_metric_status;
extern const struct pb_msg pb_hpa_metric_status;
extern const struct pb_msg pb_hpa_horizontal_pod_autoscaler_condition;
extern const struct pb_msg pb_hpa_horizontal_pod_autoscaler_status;
extern const struct pb_msg pb_hpa_horizontal_pod_autoscaler;
extern const struct pb_msg pb_hpa_horizontal_pod_autoscaler_list;

#endif
