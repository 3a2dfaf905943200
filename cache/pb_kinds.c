/*
 * pb_kinds: the registry of top-level kinds of the protobuf schema (see
 * pb_kinds.h). Each API group's messages live in a pb_schema_GROUP.c.
 */
#include "cache/pb_kinds.h"

#include <string.h>

#include "cache/pb_schema_admission.h"
#include "cache/pb_schema_apiext.h"
#include "cache/pb_schema_apps.h"
#include "cache/pb_schema_autoscaling.h"
#include "cache/pb_schema_batch.h"
#include "cache/pb_schema_certificates.h"
#include "cache/pb_schema_coordination.h"
#include "cache/pb_schema_core.h"
#include "cache/pb_schema_discovery.h"
#include "cache/pb_schema_events.h"
#include "cache/pb_schema_flowcontrol.h"
#include "cache/pb_schema_meta.h"
#include "cache/pb_schema_networking.h"
#include "cache/pb_schema_node.h"
#include "cache/pb_schema_policy.h"
#include "cache/pb_schema_rbac.h"
#include "cache/pb_schema_scheduling.h"
#include "cache/pb_schema_storage.h"

/* Each kind and its List (XList = {1 metadata ListMeta, 2 items}). */
static const struct pb_kind_row kinds[] = {
	{ "v1", "Namespace", &pb_namespace },
	{ "v1", "NamespaceList", &pb_namespace_list },
	{ "v1", "Pod", &pb_pod },
	{ "v1", "PodList", &pb_pod_list },
	{ "v1", "ConfigMap", &pb_configmap },
	{ "v1", "ConfigMapList", &pb_config_map_list },
	{ "v1", "Service", &pb_service },
	{ "v1", "ServiceList", &pb_service_list },
	{ "v1", "Secret", &pb_secret },
	{ "v1", "SecretList", &pb_secret_list },
	{ "v1", "ServiceAccount", &pb_service_account },
	{ "v1", "ServiceAccountList", &pb_service_account_list },
	{ "v1", "Endpoints", &pb_endpoints },
	{ "v1", "EndpointsList", &pb_endpoints_list },
	{ "v1", "Event", &pb_event },
	{ "v1", "EventList", &pb_event_list },
	{ "v1", "ReplicationController", &pb_replication_controller },
	{ "v1", "ReplicationControllerList", &pb_replication_controller_list },
	{ "v1", "Node", &pb_node },
	{ "v1", "NodeList", &pb_node_list },
	{ "v1", "PersistentVolume", &pb_persistent_volume },
	{ "v1", "PersistentVolumeList", &pb_persistent_volume_list },
	{ "v1", "PersistentVolumeClaim", &pb_persistent_volume_claim },
	{ "v1", "PersistentVolumeClaimList", &pb_persistent_volume_claim_list },
	{ "v1", "PodTemplate", &pb_pod_template },
	{ "v1", "PodTemplateList", &pb_pod_template_list },
	{ "v1", "LimitRange", &pb_limit_range },
	{ "v1", "LimitRangeList", &pb_limit_range_list },
	{ "v1", "ResourceQuota", &pb_resource_quota },
	{ "v1", "ResourceQuotaList", &pb_resource_quota_list },
	{ "apps/v1", "Deployment", &pb_apps_deployment },
	{ "apps/v1", "DeploymentList", &pb_apps_deployment_list },
	{ "apps/v1", "ReplicaSet", &pb_apps_replica_set },
	{ "apps/v1", "ReplicaSetList", &pb_apps_replica_set_list },
	{ "apps/v1", "StatefulSet", &pb_apps_stateful_set },
	{ "apps/v1", "StatefulSetList", &pb_apps_stateful_set_list },
	{ "apps/v1", "DaemonSet", &pb_apps_daemon_set },
	{ "apps/v1", "DaemonSetList", &pb_apps_daemon_set_list },
	{ "apps/v1", "ControllerRevision", &pb_apps_controller_revision },
	{ "apps/v1", "ControllerRevisionList",
	  &pb_apps_controller_revision_list },
	{ "batch/v1", "Job", &pb_batch_job },
	{ "batch/v1", "JobList", &pb_batch_job_list },
	{ "batch/v1", "CronJob", &pb_batch_cron_job },
	{ "batch/v1", "CronJobList", &pb_batch_cron_job_list },
	{ "rbac.authorization.k8s.io/v1", "Role", &pb_rbac_role },
	{ "rbac.authorization.k8s.io/v1", "RoleList", &pb_rbac_role_list },
	{ "rbac.authorization.k8s.io/v1", "ClusterRole",
	  &pb_rbac_cluster_role },
	{ "rbac.authorization.k8s.io/v1", "ClusterRoleList",
	  &pb_rbac_cluster_role_list },
	{ "rbac.authorization.k8s.io/v1", "RoleBinding",
	  &pb_rbac_role_binding },
	{ "rbac.authorization.k8s.io/v1", "RoleBindingList",
	  &pb_rbac_role_binding_list },
	{ "rbac.authorization.k8s.io/v1", "ClusterRoleBinding",
	  &pb_rbac_cluster_role_binding },
	{ "rbac.authorization.k8s.io/v1", "ClusterRoleBindingList",
	  &pb_rbac_cluster_role_binding_list },
	{ "networking.k8s.io/v1", "Ingress", &pb_net_ingress },
	{ "networking.k8s.io/v1", "IngressList", &pb_net_ingress_list },
	{ "networking.k8s.io/v1", "IngressClass", &pb_net_ingress_class },
	{ "networking.k8s.io/v1", "IngressClassList",
	  &pb_net_ingress_class_list },
	{ "networking.k8s.io/v1", "NetworkPolicy", &pb_net_network_policy },
	{ "networking.k8s.io/v1", "NetworkPolicyList",
	  &pb_net_network_policy_list },
	{ "storage.k8s.io/v1", "StorageClass", &pb_storage_storage_class },
	{ "storage.k8s.io/v1", "StorageClassList",
	  &pb_storage_storage_class_list },
	{ "storage.k8s.io/v1", "CSIDriver", &pb_storage_csi_driver },
	{ "storage.k8s.io/v1", "CSIDriverList", &pb_storage_csi_driver_list },
	{ "storage.k8s.io/v1", "CSINode", &pb_storage_csi_node },
	{ "storage.k8s.io/v1", "CSINodeList", &pb_storage_csi_node_list },
	{ "storage.k8s.io/v1", "VolumeAttachment",
	  &pb_storage_volume_attachment },
	{ "storage.k8s.io/v1", "VolumeAttachmentList",
	  &pb_storage_volume_attachment_list },
	{ "storage.k8s.io/v1", "CSIStorageCapacity",
	  &pb_storage_csi_storage_capacity },
	{ "storage.k8s.io/v1", "CSIStorageCapacityList",
	  &pb_storage_csi_storage_capacity_list },
	{ "policy/v1", "PodDisruptionBudget",
	  &pb_policy_pod_disruption_budget },
	{ "policy/v1", "PodDisruptionBudgetList",
	  &pb_policy_pod_disruption_budget_list },
	{ "autoscaling/v2", "HorizontalPodAutoscaler",
	  &pb_hpa_horizontal_pod_autoscaler },
	{ "autoscaling/v2", "HorizontalPodAutoscalerList",
	  &pb_hpa_horizontal_pod_autoscaler_list },
	{ "coordination.k8s.io/v1", "Lease", &pb_coord_lease },
	{ "coordination.k8s.io/v1", "LeaseList", &pb_coord_lease_list },
	{ "discovery.k8s.io/v1", "EndpointSlice", &pb_disc_endpoint_slice },
	{ "discovery.k8s.io/v1", "EndpointSliceList",
	  &pb_disc_endpoint_slice_list },
	{ "scheduling.k8s.io/v1", "PriorityClass", &pb_sched_priority_class },
	{ "scheduling.k8s.io/v1", "PriorityClassList",
	  &pb_sched_priority_class_list },
	{ "events.k8s.io/v1", "Event", &pb_events_event },
	{ "events.k8s.io/v1", "EventList", &pb_events_event_list },
	{ "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration",
	  &pb_adm_validating_webhook_configuration },
	{ "admissionregistration.k8s.io/v1",
	  "ValidatingWebhookConfigurationList",
	  &pb_adm_validating_webhook_configuration_list },
	{ "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration",
	  &pb_adm_mutating_webhook_configuration },
	{ "admissionregistration.k8s.io/v1", "MutatingWebhookConfigurationList",
	  &pb_adm_mutating_webhook_configuration_list },
	{ "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy",
	  &pb_adm_validating_admission_policy },
	{ "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyList",
	  &pb_adm_validating_admission_policy_list },
	{ "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding",
	  &pb_adm_validating_admission_policy_binding },
	{ "admissionregistration.k8s.io/v1",
	  "ValidatingAdmissionPolicyBindingList",
	  &pb_adm_validating_admission_policy_binding_list },
	{ "certificates.k8s.io/v1", "CertificateSigningRequest",
	  &pb_cert_certificate_signing_request },
	{ "certificates.k8s.io/v1", "CertificateSigningRequestList",
	  &pb_cert_certificate_signing_request_list },
	{ "node.k8s.io/v1", "RuntimeClass", &pb_node_runtime_class },
	{ "node.k8s.io/v1", "RuntimeClassList", &pb_node_runtime_class_list },
	{ "flowcontrol.apiserver.k8s.io/v1", "FlowSchema",
	  &pb_flow_flow_schema },
	{ "flowcontrol.apiserver.k8s.io/v1", "FlowSchemaList",
	  &pb_flow_flow_schema_list },
	{ "flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration",
	  &pb_flow_priority_level_configuration },
	{ "flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfigurationList",
	  &pb_flow_priority_level_configuration_list },
	{ "apiextensions.k8s.io/v1", "CustomResourceDefinition",
	  &pb_crd_custom_resource_definition },
	{ "apiextensions.k8s.io/v1", "CustomResourceDefinitionList",
	  &pb_crd_custom_resource_definition_list },
	{ "v1", "Status", &pb_status },
	{ "meta.k8s.io/v1", "PartialObjectMetadata",
	  &pb_partial_object_metadata },
	{ "meta.k8s.io/v1", "PartialObjectMetadataList",
	  &pb_partial_object_metadata_list },
};

const struct pb_msg *pb_kinds_find(const char *api_version, const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0 &&
		    strcmp(kinds[i].api_version, api_version) == 0)
			return kinds[i].msg;
	return NULL;
}

const struct pb_kind_row *pb_kinds_all(size_t *n)
{
	*n = sizeof(kinds) / sizeof(kinds[0]);
	return kinds;
}
