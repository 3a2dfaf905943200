/*
 * pb_schema_apps: the apps/v1 messages of the protobuf schema (see
 * pb_schema.h): every field of k8s.io/api's generated.proto (v0.32),
 * one row each, in Go struct order.
 */
#include "cache/pb_schema_apps.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_apps_rolling_update_deployment, "RollingUpdateDeployment",
       PB_F(1, "maxUnavailable", PB_INTSTR, PB_PTR),
       PB_F(2, "maxSurge", PB_INTSTR, PB_PTR));

PB_MSG(pb_apps_deployment_strategy, "DeploymentStrategy",
       PB_F(1, "type", PB_STR, 0),
       PB_M(2, "rollingUpdate", pb_apps_rolling_update_deployment, PB_PTR));

PB_MSG(pb_apps_deployment_spec, "DeploymentSpec",
       PB_F(1, "replicas", PB_INT, PB_PTR),
       PB_M(2, "selector", pb_label_selector, PB_PTR | PB_KEEP),
       PB_M(3, "template", pb_pod_template_spec, PB_KEEP),
       PB_M(4, "strategy", pb_apps_deployment_strategy, PB_KEEP),
       PB_F(5, "minReadySeconds", PB_INT, 0),
       PB_F(6, "revisionHistoryLimit", PB_INT, PB_PTR),
       PB_F(7, "paused", PB_BOOL, 0),
       PB_F(9, "progressDeadlineSeconds", PB_INT, PB_PTR));

PB_MSG(pb_apps_deployment_condition, "DeploymentCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(6, "lastUpdateTime", PB_TIME, PB_KEEP),
       PB_F(7, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_apps_deployment_status, "DeploymentStatus",
       PB_F(1, "observedGeneration", PB_INT, 0), PB_F(2, "replicas", PB_INT, 0),
       PB_F(3, "updatedReplicas", PB_INT, 0),
       PB_F(7, "readyReplicas", PB_INT, 0),
       PB_F(4, "availableReplicas", PB_INT, 0),
       PB_F(5, "unavailableReplicas", PB_INT, 0),
       PB_M(6, "conditions", pb_apps_deployment_condition, PB_REP),
       PB_F(8, "collisionCount", PB_INT, PB_PTR));

PB_MSG(pb_apps_deployment, "Deployment",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_apps_deployment_spec, PB_KEEP),
       PB_M(3, "status", pb_apps_deployment_status, PB_KEEP));

PB_MSG(pb_apps_deployment_list, "DeploymentList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_apps_deployment, PB_REP | PB_KEEP));

PB_MSG(pb_apps_replica_set_spec, "ReplicaSetSpec",
       PB_F(1, "replicas", PB_INT, PB_PTR),
       PB_F(4, "minReadySeconds", PB_INT, 0),
       PB_M(2, "selector", pb_label_selector, PB_PTR | PB_KEEP),
       PB_M(3, "template", pb_pod_template_spec, PB_KEEP));

PB_MSG(pb_apps_replica_set_condition, "ReplicaSetCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_apps_replica_set_status, "ReplicaSetStatus",
       PB_F(1, "replicas", PB_INT, PB_KEEP),
       PB_F(2, "fullyLabeledReplicas", PB_INT, 0),
       PB_F(4, "readyReplicas", PB_INT, 0),
       PB_F(5, "availableReplicas", PB_INT, 0),
       PB_F(3, "observedGeneration", PB_INT, 0),
       PB_M(6, "conditions", pb_apps_replica_set_condition, PB_REP));

PB_MSG(pb_apps_replica_set, "ReplicaSet",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_apps_replica_set_spec, PB_KEEP),
       PB_M(3, "status", pb_apps_replica_set_status, PB_KEEP));

PB_MSG(pb_apps_replica_set_list, "ReplicaSetList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_apps_replica_set, PB_REP | PB_KEEP));

PB_MSG(pb_apps_rolling_update_stateful_set_strategy,
       "RollingUpdateStatefulSetStrategy", PB_F(1, "partition", PB_INT, PB_PTR),
       PB_F(2, "maxUnavailable", PB_INTSTR, PB_PTR));

PB_MSG(pb_apps_stateful_set_update_strategy, "StatefulSetUpdateStrategy",
       PB_F(1, "type", PB_STR, 0),
       PB_M(2, "rollingUpdate", pb_apps_rolling_update_stateful_set_strategy,
	    PB_PTR));

PB_MSG(pb_apps_stateful_set_persistent_volume_claim_retention_policy,
       "StatefulSetPersistentVolumeClaimRetentionPolicy",
       PB_F(1, "whenDeleted", PB_STR, 0), PB_F(2, "whenScaled", PB_STR, 0));

PB_MSG(pb_apps_stateful_set_ordinals, "StatefulSetOrdinals",
       PB_F(1, "start", PB_INT, PB_KEEP));

PB_MSG(pb_apps_stateful_set_spec, "StatefulSetSpec",
       PB_F(1, "replicas", PB_INT, PB_PTR),
       PB_M(2, "selector", pb_label_selector, PB_PTR | PB_KEEP),
       PB_M(3, "template", pb_pod_template_spec, PB_KEEP),
       PB_M(4, "volumeClaimTemplates", pb_persistent_volume_claim,
	    PB_REP | PB_TYPED),
       PB_F(5, "serviceName", PB_STR, PB_KEEP),
       PB_F(6, "podManagementPolicy", PB_STR, 0),
       PB_M(7, "updateStrategy", pb_apps_stateful_set_update_strategy, PB_KEEP),
       PB_F(8, "revisionHistoryLimit", PB_INT, PB_PTR),
       PB_F(9, "minReadySeconds", PB_INT, 0),
       PB_M(10, "persistentVolumeClaimRetentionPolicy",
	    pb_apps_stateful_set_persistent_volume_claim_retention_policy,
	    PB_PTR),
       PB_M(11, "ordinals", pb_apps_stateful_set_ordinals, PB_PTR));

PB_MSG(pb_apps_stateful_set_condition, "StatefulSetCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_apps_stateful_set_status, "StatefulSetStatus",
       PB_F(1, "observedGeneration", PB_INT, 0),
       PB_F(2, "replicas", PB_INT, PB_KEEP),
       PB_F(3, "readyReplicas", PB_INT, 0),
       PB_F(4, "currentReplicas", PB_INT, 0),
       PB_F(5, "updatedReplicas", PB_INT, 0),
       PB_F(6, "currentRevision", PB_STR, 0),
       PB_F(7, "updateRevision", PB_STR, 0),
       PB_F(9, "collisionCount", PB_INT, PB_PTR),
       PB_M(10, "conditions", pb_apps_stateful_set_condition, PB_REP),
       PB_F(11, "availableReplicas", PB_INT, PB_KEEP));

PB_MSG(pb_apps_stateful_set, "StatefulSet",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_apps_stateful_set_spec, PB_KEEP),
       PB_M(3, "status", pb_apps_stateful_set_status, PB_KEEP));

PB_MSG(pb_apps_stateful_set_list, "StatefulSetList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_apps_stateful_set, PB_REP | PB_KEEP));

PB_MSG(pb_apps_rolling_update_daemon_set, "RollingUpdateDaemonSet",
       PB_F(1, "maxUnavailable", PB_INTSTR, PB_PTR),
       PB_F(2, "maxSurge", PB_INTSTR, PB_PTR));

PB_MSG(pb_apps_daemon_set_update_strategy, "DaemonSetUpdateStrategy",
       PB_F(1, "type", PB_STR, 0),
       PB_M(2, "rollingUpdate", pb_apps_rolling_update_daemon_set, PB_PTR));

PB_MSG(pb_apps_daemon_set_spec, "DaemonSetSpec",
       PB_M(1, "selector", pb_label_selector, PB_PTR | PB_KEEP),
       PB_M(2, "template", pb_pod_template_spec, PB_KEEP),
       PB_M(3, "updateStrategy", pb_apps_daemon_set_update_strategy, PB_KEEP),
       PB_F(4, "minReadySeconds", PB_INT, 0),
       PB_F(6, "revisionHistoryLimit", PB_INT, PB_PTR));

PB_MSG(pb_apps_daemon_set_condition, "DaemonSetCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_apps_daemon_set_status, "DaemonSetStatus",
       PB_F(1, "currentNumberScheduled", PB_INT, PB_KEEP),
       PB_F(2, "numberMisscheduled", PB_INT, PB_KEEP),
       PB_F(3, "desiredNumberScheduled", PB_INT, PB_KEEP),
       PB_F(4, "numberReady", PB_INT, PB_KEEP),
       PB_F(5, "observedGeneration", PB_INT, 0),
       PB_F(6, "updatedNumberScheduled", PB_INT, 0),
       PB_F(7, "numberAvailable", PB_INT, 0),
       PB_F(8, "numberUnavailable", PB_INT, 0),
       PB_F(9, "collisionCount", PB_INT, PB_PTR),
       PB_M(10, "conditions", pb_apps_daemon_set_condition, PB_REP));

PB_MSG(pb_apps_daemon_set, "DaemonSet",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_apps_daemon_set_spec, PB_KEEP),
       PB_M(3, "status", pb_apps_daemon_set_status, PB_KEEP));

PB_MSG(pb_apps_daemon_set_list, "DaemonSetList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_apps_daemon_set, PB_REP | PB_KEEP));

PB_MSG(pb_apps_controller_revision, "ControllerRevision",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(2, "data", PB_RAW, PB_KEEP), PB_F(3, "revision", PB_INT, PB_KEEP));

PB_MSG(pb_apps_controller_revision_list, "ControllerRevisionList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_apps_controller_revision, PB_REP | PB_KEEP));
