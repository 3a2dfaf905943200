/*
 * pb_schema_autoscaling: the autoscaling/v2 messages of the protobuf
 * schema (see pb_schema.h): every field of k8s.io/api's generated.proto
 * (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_autoscaling.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_hpa_cross_version_object_reference, "CrossVersionObjectReference",
       PB_F(1, "kind", PB_STR, PB_KEEP), PB_F(2, "name", PB_STR, PB_KEEP),
       PB_F(3, "apiVersion", PB_STR, 0));

PB_MSG(pb_hpa_metric_target, "MetricTarget", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "value", PB_QTY, PB_PTR),
       PB_F(3, "averageValue", PB_QTY, PB_PTR),
       PB_F(4, "averageUtilization", PB_INT, PB_PTR));

PB_MSG(pb_hpa_metric_identifier, "MetricIdentifier",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "selector", pb_label_selector, PB_PTR));

PB_MSG(pb_hpa_object_metric_source, "ObjectMetricSource",
       PB_M(1, "describedObject", pb_hpa_cross_version_object_reference,
	    PB_KEEP),
       PB_M(2, "target", pb_hpa_metric_target, PB_KEEP),
       PB_M(3, "metric", pb_hpa_metric_identifier, PB_KEEP));

PB_MSG(pb_hpa_pods_metric_source, "PodsMetricSource",
       PB_M(1, "metric", pb_hpa_metric_identifier, PB_KEEP),
       PB_M(2, "target", pb_hpa_metric_target, PB_KEEP));

PB_MSG(pb_hpa_resource_metric_source, "ResourceMetricSource",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "target", pb_hpa_metric_target, PB_KEEP));

PB_MSG(pb_hpa_container_resource_metric_source, "ContainerResourceMetricSource",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "target", pb_hpa_metric_target, PB_KEEP),
       PB_F(3, "container", PB_STR, PB_KEEP));

PB_MSG(pb_hpa_external_metric_source, "ExternalMetricSource",
       PB_M(1, "metric", pb_hpa_metric_identifier, PB_KEEP),
       PB_M(2, "target", pb_hpa_metric_target, PB_KEEP));

PB_MSG(pb_hpa_metric_spec, "MetricSpec", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_M(2, "object", pb_hpa_object_metric_source, PB_PTR),
       PB_M(3, "pods", pb_hpa_pods_metric_source, PB_PTR),
       PB_M(4, "resource", pb_hpa_resource_metric_source, PB_PTR),
       PB_M(7, "containerResource", pb_hpa_container_resource_metric_source,
	    PB_PTR),
       PB_M(5, "external", pb_hpa_external_metric_source, PB_PTR));

PB_MSG(pb_hpa_hpa_scaling_policy, "HPAScalingPolicy",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "value", PB_INT, PB_KEEP),
       PB_F(3, "periodSeconds", PB_INT, PB_KEEP));

PB_MSG(pb_hpa_hpa_scaling_rules, "HPAScalingRules",
       PB_F(3, "stabilizationWindowSeconds", PB_INT, PB_PTR),
       PB_F(1, "selectPolicy", PB_STR, PB_PTR),
       PB_M(2, "policies", pb_hpa_hpa_scaling_policy, PB_REP));

PB_MSG(pb_hpa_horizontal_pod_autoscaler_behavior,
       "HorizontalPodAutoscalerBehavior",
       PB_M(1, "scaleUp", pb_hpa_hpa_scaling_rules, PB_PTR),
       PB_M(2, "scaleDown", pb_hpa_hpa_scaling_rules, PB_PTR));

PB_MSG(pb_hpa_horizontal_pod_autoscaler_spec, "HorizontalPodAutoscalerSpec",
       PB_M(1, "scaleTargetRef", pb_hpa_cross_version_object_reference,
	    PB_KEEP),
       PB_F(2, "minReplicas", PB_INT, PB_PTR),
       PB_F(3, "maxReplicas", PB_INT, PB_KEEP),
       PB_M(4, "metrics", pb_hpa_metric_spec, PB_REP),
       PB_M(5, "behavior", pb_hpa_horizontal_pod_autoscaler_behavior, PB_PTR));

PB_MSG(pb_hpa_metric_value_status, "MetricValueStatus",
       PB_F(1, "value", PB_QTY, PB_PTR),
       PB_F(2, "averageValue", PB_QTY, PB_PTR),
       PB_F(3, "averageUtilization", PB_INT, PB_PTR));

PB_MSG(pb_hpa_object_metric_status, "ObjectMetricStatus",
       PB_M(1, "metric", pb_hpa_metric_identifier, PB_KEEP),
       PB_M(2, "current", pb_hpa_metric_value_status, PB_KEEP),
       PB_M(3, "describedObject", pb_hpa_cross_version_object_reference,
	    PB_KEEP));

PB_MSG(pb_hpa_pods_metric_status, "PodsMetricStatus",
       PB_M(1, "metric", pb_hpa_metric_identifier, PB_KEEP),
       PB_M(2, "current", pb_hpa_metric_value_status, PB_KEEP));

PB_MSG(pb_hpa_resource_metric_status, "ResourceMetricStatus",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "current", pb_hpa_metric_value_status, PB_KEEP));

PB_MSG(pb_hpa_container_resource_metric_status, "ContainerResourceMetricStatus",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "current", pb_hpa_metric_value_status, PB_KEEP),
       PB_F(3, "container", PB_STR, PB_KEEP));

PB_MSG(pb_hpa_external_metric_status, "ExternalMetricStatus",
       PB_M(1, "metric", pb_hpa_metric_identifier, PB_KEEP),
       PB_M(2, "current", pb_hpa_metric_value_status, PB_KEEP));

PB_MSG(pb_hpa_metric_status, "MetricStatus", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_M(2, "object", pb_hpa_object_metric_status, PB_PTR),
       PB_M(3, "pods", pb_hpa_pods_metric_status, PB_PTR),
       PB_M(4, "resource", pb_hpa_resource_metric_status, PB_PTR),
       PB_M(7, "containerResource", pb_hpa_container_resource_metric_status,
	    PB_PTR),
       PB_M(5, "external", pb_hpa_external_metric_status, PB_PTR));

PB_MSG(pb_hpa_horizontal_pod_autoscaler_condition,
       "HorizontalPodAutoscalerCondition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_hpa_horizontal_pod_autoscaler_status, "HorizontalPodAutoscalerStatus",
       PB_F(1, "observedGeneration", PB_INT, PB_PTR),
       PB_F(2, "lastScaleTime", PB_TIME, PB_PTR),
       PB_F(3, "currentReplicas", PB_INT, 0),
       PB_F(4, "desiredReplicas", PB_INT, PB_KEEP),
       PB_M(5, "currentMetrics", pb_hpa_metric_status, PB_REP | PB_KEEP),
       PB_M(6, "conditions", pb_hpa_horizontal_pod_autoscaler_condition,
	    PB_REP));

PB_MSG(pb_hpa_horizontal_pod_autoscaler, "HorizontalPodAutoscaler",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_hpa_horizontal_pod_autoscaler_spec, PB_KEEP),
       PB_M(3, "status", pb_hpa_horizontal_pod_autoscaler_status, PB_KEEP));

PB_MSG(pb_hpa_horizontal_pod_autoscaler_list, "HorizontalPodAutoscalerList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_hpa_horizontal_pod_autoscaler, PB_REP | PB_KEEP));
