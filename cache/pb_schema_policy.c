/*
 * pb_schema_policy: the policy/v1 messages of the protobuf schema (see
 * pb_schema.h): every field of k8s.io/api's generated.proto (v0.32),
 * one row each, in Go struct order.
 */
#include "cache/pb_schema_policy.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_policy_pod_disruption_budget_spec, "PodDisruptionBudgetSpec",
       PB_F(1, "minAvailable", PB_INTSTR, PB_PTR),
       PB_M(2, "selector", pb_label_selector, PB_PTR),
       PB_F(3, "maxUnavailable", PB_INTSTR, PB_PTR),
       PB_F(4, "unhealthyPodEvictionPolicy", PB_STR, PB_PTR));

PB_MSG(pb_policy_pod_disruption_budget_status, "PodDisruptionBudgetStatus",
       PB_F(1, "observedGeneration", PB_INT, 0),
       PB_F(2, "disruptedPods", PB_MAP_TIME, 0),
       PB_F(3, "disruptionsAllowed", PB_INT, PB_KEEP),
       PB_F(4, "currentHealthy", PB_INT, PB_KEEP),
       PB_F(5, "desiredHealthy", PB_INT, PB_KEEP),
       PB_F(6, "expectedPods", PB_INT, PB_KEEP),
       PB_M(7, "conditions", pb_condition, PB_REP));

PB_MSG(pb_policy_pod_disruption_budget, "PodDisruptionBudget",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_policy_pod_disruption_budget_spec, PB_KEEP),
       PB_M(3, "status", pb_policy_pod_disruption_budget_status, PB_KEEP));

PB_MSG(pb_policy_pod_disruption_budget_list, "PodDisruptionBudgetList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_policy_pod_disruption_budget, PB_REP | PB_KEEP));
