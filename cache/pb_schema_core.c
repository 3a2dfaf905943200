/*
 * pb_schema_core: the core/v1 messages of the protobuf schema (see
 * pb_schema.h): every field of k8s.io/api's generated.proto (v0.32),
 * one row each, in Go struct order.
 */
#include "cache/pb_schema_core.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_namespace_spec, "NamespaceSpec",
       PB_F(1, "finalizers", PB_STR, PB_REP));

PB_MSG(pb_namespace_condition, "NamespaceCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(4, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(5, "reason", PB_STR, 0), PB_F(6, "message", PB_STR, 0));

PB_MSG(pb_namespace_status, "NamespaceStatus", PB_F(1, "phase", PB_STR, 0),
       PB_M(2, "conditions", pb_namespace_condition, PB_REP));

PB_MSG(pb_namespace, "Namespace", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_namespace_spec, PB_KEEP),
       PB_M(3, "status", pb_namespace_status, PB_KEEP));

PB_MSG(pb_namespace_list, "NamespaceList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_namespace, PB_REP | PB_KEEP));

PB_MSG(pb_host_path_volume_source, "HostPathVolumeSource",
       PB_F(1, "path", PB_STR, PB_KEEP), PB_F(2, "type", PB_STR, PB_PTR));

PB_MSG(pb_empty_dir_volume_source, "EmptyDirVolumeSource",
       PB_F(1, "medium", PB_STR, 0), PB_F(2, "sizeLimit", PB_QTY, PB_PTR));

PB_MSG(pb_gce_persistent_disk_volume_source, "GCEPersistentDiskVolumeSource",
       PB_F(1, "pdName", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_F(3, "partition", PB_INT, 0), PB_F(4, "readOnly", PB_BOOL, 0));

PB_MSG(pb_aws_elastic_block_store_volume_source,
       "AWSElasticBlockStoreVolumeSource", PB_F(1, "volumeID", PB_STR, PB_KEEP),
       PB_F(2, "fsType", PB_STR, 0), PB_F(3, "partition", PB_INT, 0),
       PB_F(4, "readOnly", PB_BOOL, 0));

PB_MSG(pb_git_repo_volume_source, "GitRepoVolumeSource",
       PB_F(1, "repository", PB_STR, PB_KEEP), PB_F(2, "revision", PB_STR, 0),
       PB_F(3, "directory", PB_STR, 0));

PB_MSG(pb_key_to_path, "KeyToPath", PB_F(1, "key", PB_STR, PB_KEEP),
       PB_F(2, "path", PB_STR, PB_KEEP), PB_F(3, "mode", PB_INT, PB_PTR));

PB_MSG(pb_secret_volume_source, "SecretVolumeSource",
       PB_F(1, "secretName", PB_STR, 0),
       PB_M(2, "items", pb_key_to_path, PB_REP),
       PB_F(3, "defaultMode", PB_INT, PB_PTR),
       PB_F(4, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_nfs_volume_source, "NFSVolumeSource",
       PB_F(1, "server", PB_STR, PB_KEEP), PB_F(2, "path", PB_STR, PB_KEEP),
       PB_F(3, "readOnly", PB_BOOL, 0));

PB_MSG(pb_local_object_reference, "LocalObjectReference",
       PB_F(1, "name", PB_STR, 0));

PB_MSG(pb_iscsi_volume_source, "ISCSIVolumeSource",
       PB_F(1, "targetPortal", PB_STR, PB_KEEP),
       PB_F(2, "iqn", PB_STR, PB_KEEP), PB_F(3, "lun", PB_INT, PB_KEEP),
       PB_F(4, "iscsiInterface", PB_STR, 0), PB_F(5, "fsType", PB_STR, 0),
       PB_F(6, "readOnly", PB_BOOL, 0), PB_F(7, "portals", PB_STR, PB_REP),
       PB_F(8, "chapAuthDiscovery", PB_BOOL, 0),
       PB_F(11, "chapAuthSession", PB_BOOL, 0),
       PB_M(10, "secretRef", pb_local_object_reference, PB_PTR),
       PB_F(12, "initiatorName", PB_STR, PB_PTR));

PB_MSG(pb_glusterfs_volume_source, "GlusterfsVolumeSource",
       PB_F(1, "endpoints", PB_STR, PB_KEEP), PB_F(2, "path", PB_STR, PB_KEEP),
       PB_F(3, "readOnly", PB_BOOL, 0));

PB_MSG(pb_persistent_volume_claim_volume_source,
       "PersistentVolumeClaimVolumeSource",
       PB_F(1, "claimName", PB_STR, PB_KEEP), PB_F(2, "readOnly", PB_BOOL, 0));

PB_MSG(pb_rbd_volume_source, "RBDVolumeSource",
       PB_F(1, "monitors", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "image", PB_STR, PB_KEEP), PB_F(3, "fsType", PB_STR, 0),
       PB_F(4, "pool", PB_STR, 0), PB_F(5, "user", PB_STR, 0),
       PB_F(6, "keyring", PB_STR, 0),
       PB_M(7, "secretRef", pb_local_object_reference, PB_PTR),
       PB_F(8, "readOnly", PB_BOOL, 0));

PB_MSG(pb_flex_volume_source, "FlexVolumeSource",
       PB_F(1, "driver", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_M(3, "secretRef", pb_local_object_reference, PB_PTR),
       PB_F(4, "readOnly", PB_BOOL, 0), PB_F(5, "options", PB_MAP_STR, 0));

PB_MSG(pb_cinder_volume_source, "CinderVolumeSource",
       PB_F(1, "volumeID", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_F(3, "readOnly", PB_BOOL, 0),
       PB_M(4, "secretRef", pb_local_object_reference, PB_PTR));

PB_MSG(pb_ceph_fs_volume_source, "CephFSVolumeSource",
       PB_F(1, "monitors", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "path", PB_STR, 0), PB_F(3, "user", PB_STR, 0),
       PB_F(4, "secretFile", PB_STR, 0),
       PB_M(5, "secretRef", pb_local_object_reference, PB_PTR),
       PB_F(6, "readOnly", PB_BOOL, 0));

PB_MSG(pb_flocker_volume_source, "FlockerVolumeSource",
       PB_F(1, "datasetName", PB_STR, 0), PB_F(2, "datasetUUID", PB_STR, 0));

PB_MSG(pb_object_field_selector, "ObjectFieldSelector",
       PB_F(1, "apiVersion", PB_STR, 0), PB_F(2, "fieldPath", PB_STR, PB_KEEP));

PB_MSG(pb_resource_field_selector, "ResourceFieldSelector",
       PB_F(1, "containerName", PB_STR, 0),
       PB_F(2, "resource", PB_STR, PB_KEEP),
       PB_F(3, "divisor", PB_QTY, PB_KEEP));

PB_MSG(pb_downward_api_volume_file, "DownwardAPIVolumeFile",
       PB_F(1, "path", PB_STR, PB_KEEP),
       PB_M(2, "fieldRef", pb_object_field_selector, PB_PTR),
       PB_M(3, "resourceFieldRef", pb_resource_field_selector, PB_PTR),
       PB_F(4, "mode", PB_INT, PB_PTR));

PB_MSG(pb_downward_api_volume_source, "DownwardAPIVolumeSource",
       PB_M(1, "items", pb_downward_api_volume_file, PB_REP),
       PB_F(2, "defaultMode", PB_INT, PB_PTR));

PB_MSG(pb_fc_volume_source, "FCVolumeSource",
       PB_F(1, "targetWWNs", PB_STR, PB_REP), PB_F(2, "lun", PB_INT, PB_PTR),
       PB_F(3, "fsType", PB_STR, 0), PB_F(4, "readOnly", PB_BOOL, 0),
       PB_F(5, "wwids", PB_STR, PB_REP));

PB_MSG(pb_azure_file_volume_source, "AzureFileVolumeSource",
       PB_F(1, "secretName", PB_STR, PB_KEEP),
       PB_F(2, "shareName", PB_STR, PB_KEEP), PB_F(3, "readOnly", PB_BOOL, 0));

PB_MSG(pb_config_map_volume_source, "ConfigMapVolumeSource",
       PB_I(1, pb_local_object_reference),
       PB_M(2, "items", pb_key_to_path, PB_REP),
       PB_F(3, "defaultMode", PB_INT, PB_PTR),
       PB_F(4, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_vsphere_virtual_disk_volume_source, "VsphereVirtualDiskVolumeSource",
       PB_F(1, "volumePath", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_F(3, "storagePolicyName", PB_STR, 0),
       PB_F(4, "storagePolicyID", PB_STR, 0));

PB_MSG(pb_quobyte_volume_source, "QuobyteVolumeSource",
       PB_F(1, "registry", PB_STR, PB_KEEP), PB_F(2, "volume", PB_STR, PB_KEEP),
       PB_F(3, "readOnly", PB_BOOL, 0), PB_F(4, "user", PB_STR, 0),
       PB_F(5, "group", PB_STR, 0), PB_F(6, "tenant", PB_STR, 0));

PB_MSG(pb_azure_disk_volume_source, "AzureDiskVolumeSource",
       PB_F(1, "diskName", PB_STR, PB_KEEP),
       PB_F(2, "diskURI", PB_STR, PB_KEEP),
       PB_F(3, "cachingMode", PB_STR, PB_PTR),
       PB_F(4, "fsType", PB_STR, PB_PTR), PB_F(5, "readOnly", PB_BOOL, PB_PTR),
       PB_F(6, "kind", PB_STR, PB_PTR));

PB_MSG(pb_photon_persistent_disk_volume_source,
       "PhotonPersistentDiskVolumeSource", PB_F(1, "pdID", PB_STR, PB_KEEP),
       PB_F(2, "fsType", PB_STR, 0));

PB_MSG(pb_secret_projection, "SecretProjection",
       PB_I(1, pb_local_object_reference),
       PB_M(2, "items", pb_key_to_path, PB_REP),
       PB_F(4, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_downward_api_projection, "DownwardAPIProjection",
       PB_M(1, "items", pb_downward_api_volume_file, PB_REP));

PB_MSG(pb_config_map_projection, "ConfigMapProjection",
       PB_I(1, pb_local_object_reference),
       PB_M(2, "items", pb_key_to_path, PB_REP),
       PB_F(4, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_service_account_token_projection, "ServiceAccountTokenProjection",
       PB_F(1, "audience", PB_STR, 0),
       PB_F(2, "expirationSeconds", PB_INT, PB_PTR),
       PB_F(3, "path", PB_STR, PB_KEEP));

PB_MSG(pb_cluster_trust_bundle_projection, "ClusterTrustBundleProjection",
       PB_F(1, "name", PB_STR, PB_PTR), PB_F(2, "signerName", PB_STR, PB_PTR),
       PB_M(3, "labelSelector", pb_label_selector, PB_PTR),
       PB_F(5, "optional", PB_BOOL, PB_PTR), PB_F(4, "path", PB_STR, PB_KEEP));

PB_MSG(pb_volume_projection, "VolumeProjection",
       PB_M(1, "secret", pb_secret_projection, PB_PTR),
       PB_M(2, "downwardAPI", pb_downward_api_projection, PB_PTR),
       PB_M(3, "configMap", pb_config_map_projection, PB_PTR),
       PB_M(4, "serviceAccountToken", pb_service_account_token_projection,
	    PB_PTR),
       PB_M(5, "clusterTrustBundle", pb_cluster_trust_bundle_projection,
	    PB_PTR));

PB_MSG(pb_projected_volume_source, "ProjectedVolumeSource",
       PB_M(1, "sources", pb_volume_projection, PB_REP | PB_KEEP),
       PB_F(2, "defaultMode", PB_INT, PB_PTR));

PB_MSG(pb_portworx_volume_source, "PortworxVolumeSource",
       PB_F(1, "volumeID", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_F(3, "readOnly", PB_BOOL, 0));

PB_MSG(pb_scale_io_volume_source, "ScaleIOVolumeSource",
       PB_F(1, "gateway", PB_STR, PB_KEEP), PB_F(2, "system", PB_STR, PB_KEEP),
       PB_M(3, "secretRef", pb_local_object_reference, PB_PTR | PB_KEEP),
       PB_F(4, "sslEnabled", PB_BOOL, 0),
       PB_F(5, "protectionDomain", PB_STR, 0),
       PB_F(6, "storagePool", PB_STR, 0), PB_F(7, "storageMode", PB_STR, 0),
       PB_F(8, "volumeName", PB_STR, 0), PB_F(9, "fsType", PB_STR, 0),
       PB_F(10, "readOnly", PB_BOOL, 0));

PB_MSG(pb_storage_os_volume_source, "StorageOSVolumeSource",
       PB_F(1, "volumeName", PB_STR, 0), PB_F(2, "volumeNamespace", PB_STR, 0),
       PB_F(3, "fsType", PB_STR, 0), PB_F(4, "readOnly", PB_BOOL, 0),
       PB_M(5, "secretRef", pb_local_object_reference, PB_PTR));

PB_MSG(pb_csi_volume_source, "CSIVolumeSource",
       PB_F(1, "driver", PB_STR, PB_KEEP), PB_F(2, "readOnly", PB_BOOL, PB_PTR),
       PB_F(3, "fsType", PB_STR, PB_PTR),
       PB_F(4, "volumeAttributes", PB_MAP_STR, 0),
       PB_M(5, "nodePublishSecretRef", pb_local_object_reference, PB_PTR));

PB_MSG(pb_volume_resource_requirements, "VolumeResourceRequirements",
       PB_F(1, "limits", PB_MAP_QTY, 0), PB_F(2, "requests", PB_MAP_QTY, 0));

PB_MSG(pb_typed_local_object_reference, "TypedLocalObjectReference",
       PB_F(1, "apiGroup", PB_STR, PB_PTR | PB_KEEP),
       PB_F(2, "kind", PB_STR, PB_KEEP), PB_F(3, "name", PB_STR, PB_KEEP));

PB_MSG(pb_typed_object_reference, "TypedObjectReference",
       PB_F(1, "apiGroup", PB_STR, PB_PTR | PB_KEEP),
       PB_F(2, "kind", PB_STR, PB_KEEP), PB_F(3, "name", PB_STR, PB_KEEP),
       PB_F(4, "namespace", PB_STR, PB_PTR));

PB_MSG(pb_persistent_volume_claim_spec, "PersistentVolumeClaimSpec",
       PB_F(1, "accessModes", PB_STR, PB_REP),
       PB_M(4, "selector", pb_label_selector, PB_PTR),
       PB_M(2, "resources", pb_volume_resource_requirements, PB_KEEP),
       PB_F(3, "volumeName", PB_STR, 0),
       PB_F(5, "storageClassName", PB_STR, PB_PTR),
       PB_F(6, "volumeMode", PB_STR, PB_PTR),
       PB_M(7, "dataSource", pb_typed_local_object_reference, PB_PTR),
       PB_M(8, "dataSourceRef", pb_typed_object_reference, PB_PTR),
       PB_F(9, "volumeAttributesClassName", PB_STR, PB_PTR));

PB_MSG(pb_persistent_volume_claim_template, "PersistentVolumeClaimTemplate",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_persistent_volume_claim_spec, PB_KEEP));

PB_MSG(pb_ephemeral_volume_source, "EphemeralVolumeSource",
       PB_M(1, "volumeClaimTemplate", pb_persistent_volume_claim_template,
	    PB_PTR));

PB_MSG(pb_image_volume_source, "ImageVolumeSource",
       PB_F(1, "reference", PB_STR, 0), PB_F(2, "pullPolicy", PB_STR, 0));

PB_MSG(pb_volume_source, "VolumeSource",
       PB_M(1, "hostPath", pb_host_path_volume_source, PB_PTR),
       PB_M(2, "emptyDir", pb_empty_dir_volume_source, PB_PTR),
       PB_M(3, "gcePersistentDisk", pb_gce_persistent_disk_volume_source,
	    PB_PTR),
       PB_M(4, "awsElasticBlockStore", pb_aws_elastic_block_store_volume_source,
	    PB_PTR),
       PB_M(5, "gitRepo", pb_git_repo_volume_source, PB_PTR),
       PB_M(6, "secret", pb_secret_volume_source, PB_PTR),
       PB_M(7, "nfs", pb_nfs_volume_source, PB_PTR),
       PB_M(8, "iscsi", pb_iscsi_volume_source, PB_PTR),
       PB_M(9, "glusterfs", pb_glusterfs_volume_source, PB_PTR),
       PB_M(10, "persistentVolumeClaim",
	    pb_persistent_volume_claim_volume_source, PB_PTR),
       PB_M(11, "rbd", pb_rbd_volume_source, PB_PTR),
       PB_M(12, "flexVolume", pb_flex_volume_source, PB_PTR),
       PB_M(13, "cinder", pb_cinder_volume_source, PB_PTR),
       PB_M(14, "cephfs", pb_ceph_fs_volume_source, PB_PTR),
       PB_M(15, "flocker", pb_flocker_volume_source, PB_PTR),
       PB_M(16, "downwardAPI", pb_downward_api_volume_source, PB_PTR),
       PB_M(17, "fc", pb_fc_volume_source, PB_PTR),
       PB_M(18, "azureFile", pb_azure_file_volume_source, PB_PTR),
       PB_M(19, "configMap", pb_config_map_volume_source, PB_PTR),
       PB_M(20, "vsphereVolume", pb_vsphere_virtual_disk_volume_source, PB_PTR),
       PB_M(21, "quobyte", pb_quobyte_volume_source, PB_PTR),
       PB_M(22, "azureDisk", pb_azure_disk_volume_source, PB_PTR),
       PB_M(23, "photonPersistentDisk", pb_photon_persistent_disk_volume_source,
	    PB_PTR),
       PB_M(26, "projected", pb_projected_volume_source, PB_PTR),
       PB_M(24, "portworxVolume", pb_portworx_volume_source, PB_PTR),
       PB_M(25, "scaleIO", pb_scale_io_volume_source, PB_PTR),
       PB_M(27, "storageos", pb_storage_os_volume_source, PB_PTR),
       PB_M(28, "csi", pb_csi_volume_source, PB_PTR),
       PB_M(29, "ephemeral", pb_ephemeral_volume_source, PB_PTR),
       PB_M(30, "image", pb_image_volume_source, PB_PTR));

PB_MSG(pb_volume, "Volume", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_I(2, pb_volume_source));

PB_MSG(pb_container_port, "ContainerPort", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "hostPort", PB_INT, 0),
       PB_F(3, "containerPort", PB_INT, PB_KEEP),
       PB_F(4, "protocol", PB_STR, 0), PB_F(5, "hostIP", PB_STR, 0));

PB_MSG(pb_config_map_env_source, "ConfigMapEnvSource",
       PB_I(1, pb_local_object_reference),
       PB_F(2, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_secret_env_source, "SecretEnvSource",
       PB_I(1, pb_local_object_reference),
       PB_F(2, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_env_from_source, "EnvFromSource", PB_F(1, "prefix", PB_STR, 0),
       PB_M(2, "configMapRef", pb_config_map_env_source, PB_PTR),
       PB_M(3, "secretRef", pb_secret_env_source, PB_PTR));

PB_MSG(pb_config_map_key_selector, "ConfigMapKeySelector",
       PB_I(1, pb_local_object_reference), PB_F(2, "key", PB_STR, PB_KEEP),
       PB_F(3, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_secret_key_selector, "SecretKeySelector",
       PB_I(1, pb_local_object_reference), PB_F(2, "key", PB_STR, PB_KEEP),
       PB_F(3, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_env_var_source, "EnvVarSource",
       PB_M(1, "fieldRef", pb_object_field_selector, PB_PTR),
       PB_M(2, "resourceFieldRef", pb_resource_field_selector, PB_PTR),
       PB_M(3, "configMapKeyRef", pb_config_map_key_selector, PB_PTR),
       PB_M(4, "secretKeyRef", pb_secret_key_selector, PB_PTR));

PB_MSG(pb_env_var, "EnvVar", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "value", PB_STR, 0),
       PB_M(3, "valueFrom", pb_env_var_source, PB_PTR));

PB_MSG(pb_resource_claim, "ResourceClaim", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "request", PB_STR, 0));

PB_MSG(pb_resource_requirements, "ResourceRequirements",
       PB_F(1, "limits", PB_MAP_QTY, 0), PB_F(2, "requests", PB_MAP_QTY, 0),
       PB_M(3, "claims", pb_resource_claim, PB_REP));

PB_MSG(pb_container_resize_policy, "ContainerResizePolicy",
       PB_F(1, "resourceName", PB_STR, PB_KEEP),
       PB_F(2, "restartPolicy", PB_STR, PB_KEEP));

PB_MSG(pb_volume_mount, "VolumeMount", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "readOnly", PB_BOOL, 0),
       PB_F(7, "recursiveReadOnly", PB_STR, PB_PTR),
       PB_F(3, "mountPath", PB_STR, PB_KEEP), PB_F(4, "subPath", PB_STR, 0),
       PB_F(5, "mountPropagation", PB_STR, PB_PTR),
       PB_F(6, "subPathExpr", PB_STR, 0));

PB_MSG(pb_volume_device, "VolumeDevice", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "devicePath", PB_STR, PB_KEEP));

PB_MSG(pb_exec_action, "ExecAction", PB_F(1, "command", PB_STR, PB_REP));

PB_MSG(pb_http_header, "HTTPHeader", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "value", PB_STR, PB_KEEP));

PB_MSG(pb_http_get_action, "HTTPGetAction", PB_F(1, "path", PB_STR, 0),
       PB_F(2, "port", PB_INTSTR, PB_KEEP), PB_F(3, "host", PB_STR, 0),
       PB_F(4, "scheme", PB_STR, 0),
       PB_M(5, "httpHeaders", pb_http_header, PB_REP));

PB_MSG(pb_tcp_socket_action, "TCPSocketAction",
       PB_F(1, "port", PB_INTSTR, PB_KEEP), PB_F(2, "host", PB_STR, 0));

PB_MSG(pb_grpc_action, "GRPCAction", PB_F(1, "port", PB_INT, PB_KEEP),
       PB_F(2, "service", PB_STR, PB_PTR | PB_KEEP));

PB_MSG(pb_probe_handler, "ProbeHandler",
       PB_M(1, "exec", pb_exec_action, PB_PTR),
       PB_M(2, "httpGet", pb_http_get_action, PB_PTR),
       PB_M(3, "tcpSocket", pb_tcp_socket_action, PB_PTR),
       PB_M(4, "grpc", pb_grpc_action, PB_PTR));

PB_MSG(pb_probe, "Probe", PB_I(1, pb_probe_handler),
       PB_F(2, "initialDelaySeconds", PB_INT, 0),
       PB_F(3, "timeoutSeconds", PB_INT, 0),
       PB_F(4, "periodSeconds", PB_INT, 0),
       PB_F(5, "successThreshold", PB_INT, 0),
       PB_F(6, "failureThreshold", PB_INT, 0),
       PB_F(7, "terminationGracePeriodSeconds", PB_INT, PB_PTR));

PB_MSG(pb_sleep_action, "SleepAction", PB_F(1, "seconds", PB_INT, PB_KEEP));

PB_MSG(pb_lifecycle_handler, "LifecycleHandler",
       PB_M(1, "exec", pb_exec_action, PB_PTR),
       PB_M(2, "httpGet", pb_http_get_action, PB_PTR),
       PB_M(3, "tcpSocket", pb_tcp_socket_action, PB_PTR),
       PB_M(4, "sleep", pb_sleep_action, PB_PTR));

PB_MSG(pb_lifecycle, "Lifecycle",
       PB_M(1, "postStart", pb_lifecycle_handler, PB_PTR),
       PB_M(2, "preStop", pb_lifecycle_handler, PB_PTR));

PB_MSG(pb_capabilities, "Capabilities", PB_F(1, "add", PB_STR, PB_REP),
       PB_F(2, "drop", PB_STR, PB_REP));

PB_MSG(pb_se_linux_options, "SELinuxOptions", PB_F(1, "user", PB_STR, 0),
       PB_F(2, "role", PB_STR, 0), PB_F(3, "type", PB_STR, 0),
       PB_F(4, "level", PB_STR, 0));

PB_MSG(pb_windows_security_context_options, "WindowsSecurityContextOptions",
       PB_F(1, "gmsaCredentialSpecName", PB_STR, PB_PTR),
       PB_F(2, "gmsaCredentialSpec", PB_STR, PB_PTR),
       PB_F(3, "runAsUserName", PB_STR, PB_PTR),
       PB_F(4, "hostProcess", PB_BOOL, PB_PTR));

PB_MSG(pb_seccomp_profile, "SeccompProfile", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "localhostProfile", PB_STR, PB_PTR));

PB_MSG(pb_app_armor_profile, "AppArmorProfile",
       PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "localhostProfile", PB_STR, PB_PTR));

PB_MSG(pb_security_context, "SecurityContext",
       PB_M(1, "capabilities", pb_capabilities, PB_PTR),
       PB_F(2, "privileged", PB_BOOL, PB_PTR),
       PB_M(3, "seLinuxOptions", pb_se_linux_options, PB_PTR),
       PB_M(10, "windowsOptions", pb_windows_security_context_options, PB_PTR),
       PB_F(4, "runAsUser", PB_INT, PB_PTR),
       PB_F(8, "runAsGroup", PB_INT, PB_PTR),
       PB_F(5, "runAsNonRoot", PB_BOOL, PB_PTR),
       PB_F(6, "readOnlyRootFilesystem", PB_BOOL, PB_PTR),
       PB_F(7, "allowPrivilegeEscalation", PB_BOOL, PB_PTR),
       PB_F(9, "procMount", PB_STR, PB_PTR),
       PB_M(11, "seccompProfile", pb_seccomp_profile, PB_PTR),
       PB_M(12, "appArmorProfile", pb_app_armor_profile, PB_PTR));

PB_MSG(pb_container, "Container", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "image", PB_STR, 0), PB_F(3, "command", PB_STR, PB_REP),
       PB_F(4, "args", PB_STR, PB_REP), PB_F(5, "workingDir", PB_STR, 0),
       PB_M(6, "ports", pb_container_port, PB_REP),
       PB_M(19, "envFrom", pb_env_from_source, PB_REP),
       PB_M(7, "env", pb_env_var, PB_REP),
       PB_M(8, "resources", pb_resource_requirements, PB_KEEP),
       PB_M(23, "resizePolicy", pb_container_resize_policy, PB_REP),
       PB_F(24, "restartPolicy", PB_STR, PB_PTR),
       PB_M(9, "volumeMounts", pb_volume_mount, PB_REP),
       PB_M(21, "volumeDevices", pb_volume_device, PB_REP),
       PB_M(10, "livenessProbe", pb_probe, PB_PTR),
       PB_M(11, "readinessProbe", pb_probe, PB_PTR),
       PB_M(22, "startupProbe", pb_probe, PB_PTR),
       PB_M(12, "lifecycle", pb_lifecycle, PB_PTR),
       PB_F(13, "terminationMessagePath", PB_STR, 0),
       PB_F(20, "terminationMessagePolicy", PB_STR, 0),
       PB_F(14, "imagePullPolicy", PB_STR, 0),
       PB_M(15, "securityContext", pb_security_context, PB_PTR),
       PB_F(16, "stdin", PB_BOOL, 0), PB_F(17, "stdinOnce", PB_BOOL, 0),
       PB_F(18, "tty", PB_BOOL, 0));

PB_MSG(pb_ephemeral_container_common, "EphemeralContainerCommon",
       PB_F(1, "name", PB_STR, PB_KEEP), PB_F(2, "image", PB_STR, 0),
       PB_F(3, "command", PB_STR, PB_REP), PB_F(4, "args", PB_STR, PB_REP),
       PB_F(5, "workingDir", PB_STR, 0),
       PB_M(6, "ports", pb_container_port, PB_REP),
       PB_M(19, "envFrom", pb_env_from_source, PB_REP),
       PB_M(7, "env", pb_env_var, PB_REP),
       PB_M(8, "resources", pb_resource_requirements, PB_KEEP),
       PB_M(23, "resizePolicy", pb_container_resize_policy, PB_REP),
       PB_F(24, "restartPolicy", PB_STR, PB_PTR),
       PB_M(9, "volumeMounts", pb_volume_mount, PB_REP),
       PB_M(21, "volumeDevices", pb_volume_device, PB_REP),
       PB_M(10, "livenessProbe", pb_probe, PB_PTR),
       PB_M(11, "readinessProbe", pb_probe, PB_PTR),
       PB_M(22, "startupProbe", pb_probe, PB_PTR),
       PB_M(12, "lifecycle", pb_lifecycle, PB_PTR),
       PB_F(13, "terminationMessagePath", PB_STR, 0),
       PB_F(20, "terminationMessagePolicy", PB_STR, 0),
       PB_F(14, "imagePullPolicy", PB_STR, 0),
       PB_M(15, "securityContext", pb_security_context, PB_PTR),
       PB_F(16, "stdin", PB_BOOL, 0), PB_F(17, "stdinOnce", PB_BOOL, 0),
       PB_F(18, "tty", PB_BOOL, 0));

PB_MSG(pb_ephemeral_container, "EphemeralContainer",
       PB_I(1, pb_ephemeral_container_common),
       PB_F(2, "targetContainerName", PB_STR, 0));

PB_MSG(pb_sysctl, "Sysctl", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "value", PB_STR, PB_KEEP));

PB_MSG(pb_pod_security_context, "PodSecurityContext",
       PB_M(1, "seLinuxOptions", pb_se_linux_options, PB_PTR),
       PB_M(8, "windowsOptions", pb_windows_security_context_options, PB_PTR),
       PB_F(2, "runAsUser", PB_INT, PB_PTR),
       PB_F(6, "runAsGroup", PB_INT, PB_PTR),
       PB_F(3, "runAsNonRoot", PB_BOOL, PB_PTR),
       PB_F(4, "supplementalGroups", PB_INT, PB_REP),
       PB_F(12, "supplementalGroupsPolicy", PB_STR, PB_PTR),
       PB_F(5, "fsGroup", PB_INT, PB_PTR),
       PB_M(7, "sysctls", pb_sysctl, PB_REP),
       PB_F(9, "fsGroupChangePolicy", PB_STR, PB_PTR),
       PB_M(10, "seccompProfile", pb_seccomp_profile, PB_PTR),
       PB_M(11, "appArmorProfile", pb_app_armor_profile, PB_PTR),
       PB_F(13, "seLinuxChangePolicy", PB_STR, PB_PTR));

PB_MSG(pb_node_selector_requirement, "NodeSelectorRequirement",
       PB_F(1, "key", PB_STR, PB_KEEP), PB_F(2, "operator", PB_STR, PB_KEEP),
       PB_F(3, "values", PB_STR, PB_REP));

PB_MSG(pb_node_selector_term, "NodeSelectorTerm",
       PB_M(1, "matchExpressions", pb_node_selector_requirement, PB_REP),
       PB_M(2, "matchFields", pb_node_selector_requirement, PB_REP));

PB_MSG(pb_node_selector, "NodeSelector",
       PB_M(1, "nodeSelectorTerms", pb_node_selector_term, PB_REP | PB_KEEP));

PB_MSG(pb_preferred_scheduling_term, "PreferredSchedulingTerm",
       PB_F(1, "weight", PB_INT, PB_KEEP),
       PB_M(2, "preference", pb_node_selector_term, PB_KEEP));

PB_MSG(pb_node_affinity, "NodeAffinity",
       PB_M(1, "requiredDuringSchedulingIgnoredDuringExecution",
	    pb_node_selector, PB_PTR),
       PB_M(2, "preferredDuringSchedulingIgnoredDuringExecution",
	    pb_preferred_scheduling_term, PB_REP));

PB_MSG(pb_pod_affinity_term, "PodAffinityTerm",
       PB_M(1, "labelSelector", pb_label_selector, PB_PTR),
       PB_F(2, "namespaces", PB_STR, PB_REP),
       PB_F(3, "topologyKey", PB_STR, PB_KEEP),
       PB_M(4, "namespaceSelector", pb_label_selector, PB_PTR),
       PB_F(5, "matchLabelKeys", PB_STR, PB_REP),
       PB_F(6, "mismatchLabelKeys", PB_STR, PB_REP));

PB_MSG(pb_weighted_pod_affinity_term, "WeightedPodAffinityTerm",
       PB_F(1, "weight", PB_INT, PB_KEEP),
       PB_M(2, "podAffinityTerm", pb_pod_affinity_term, PB_KEEP));

PB_MSG(pb_pod_affinity, "PodAffinity",
       PB_M(1, "requiredDuringSchedulingIgnoredDuringExecution",
	    pb_pod_affinity_term, PB_REP),
       PB_M(2, "preferredDuringSchedulingIgnoredDuringExecution",
	    pb_weighted_pod_affinity_term, PB_REP));

PB_MSG(pb_pod_anti_affinity, "PodAntiAffinity",
       PB_M(1, "requiredDuringSchedulingIgnoredDuringExecution",
	    pb_pod_affinity_term, PB_REP),
       PB_M(2, "preferredDuringSchedulingIgnoredDuringExecution",
	    pb_weighted_pod_affinity_term, PB_REP));

PB_MSG(pb_affinity, "Affinity",
       PB_M(1, "nodeAffinity", pb_node_affinity, PB_PTR),
       PB_M(2, "podAffinity", pb_pod_affinity, PB_PTR),
       PB_M(3, "podAntiAffinity", pb_pod_anti_affinity, PB_PTR));

PB_MSG(pb_toleration, "Toleration", PB_F(1, "key", PB_STR, 0),
       PB_F(2, "operator", PB_STR, 0), PB_F(3, "value", PB_STR, 0),
       PB_F(4, "effect", PB_STR, 0),
       PB_F(5, "tolerationSeconds", PB_INT, PB_PTR));

PB_MSG(pb_host_alias, "HostAlias", PB_F(1, "ip", PB_STR, PB_KEEP),
       PB_F(2, "hostnames", PB_STR, PB_REP));

PB_MSG(pb_pod_dns_config_option, "PodDNSConfigOption",
       PB_F(1, "name", PB_STR, 0), PB_F(2, "value", PB_STR, PB_PTR));

PB_MSG(pb_pod_dns_config, "PodDNSConfig",
       PB_F(1, "nameservers", PB_STR, PB_REP),
       PB_F(2, "searches", PB_STR, PB_REP),
       PB_M(3, "options", pb_pod_dns_config_option, PB_REP));

PB_MSG(pb_pod_readiness_gate, "PodReadinessGate",
       PB_F(1, "conditionType", PB_STR, PB_KEEP));

PB_MSG(pb_topology_spread_constraint, "TopologySpreadConstraint",
       PB_F(1, "maxSkew", PB_INT, PB_KEEP),
       PB_F(2, "topologyKey", PB_STR, PB_KEEP),
       PB_F(3, "whenUnsatisfiable", PB_STR, PB_KEEP),
       PB_M(4, "labelSelector", pb_label_selector, PB_PTR),
       PB_F(5, "minDomains", PB_INT, PB_PTR),
       PB_F(6, "nodeAffinityPolicy", PB_STR, PB_PTR),
       PB_F(7, "nodeTaintsPolicy", PB_STR, PB_PTR),
       PB_F(8, "matchLabelKeys", PB_STR, PB_REP));

PB_MSG(pb_pod_os, "PodOS", PB_F(1, "name", PB_STR, PB_KEEP));

PB_MSG(pb_pod_scheduling_gate, "PodSchedulingGate",
       PB_F(1, "name", PB_STR, PB_KEEP));

PB_MSG(pb_pod_resource_claim, "PodResourceClaim",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(3, "resourceClaimName", PB_STR, PB_PTR),
       PB_F(4, "resourceClaimTemplateName", PB_STR, PB_PTR));

PB_MSG(pb_pod_spec, "PodSpec", PB_M(1, "volumes", pb_volume, PB_REP),
       PB_M(20, "initContainers", pb_container, PB_REP),
       PB_M(2, "containers", pb_container, PB_REP | PB_KEEP),
       PB_M(34, "ephemeralContainers", pb_ephemeral_container, PB_REP),
       PB_F(3, "restartPolicy", PB_STR, 0),
       PB_F(4, "terminationGracePeriodSeconds", PB_INT, PB_PTR),
       PB_F(5, "activeDeadlineSeconds", PB_INT, PB_PTR),
       PB_F(6, "dnsPolicy", PB_STR, 0), PB_F(7, "nodeSelector", PB_MAP_STR, 0),
       PB_F(8, "serviceAccountName", PB_STR, 0),
       PB_F(9, "serviceAccount", PB_STR, 0),
       PB_F(21, "automountServiceAccountToken", PB_BOOL, PB_PTR),
       PB_F(10, "nodeName", PB_STR, 0), PB_F(11, "hostNetwork", PB_BOOL, 0),
       PB_F(12, "hostPID", PB_BOOL, 0), PB_F(13, "hostIPC", PB_BOOL, 0),
       PB_F(27, "shareProcessNamespace", PB_BOOL, PB_PTR),
       PB_M(14, "securityContext", pb_pod_security_context, PB_PTR),
       PB_M(15, "imagePullSecrets", pb_local_object_reference, PB_REP),
       PB_F(16, "hostname", PB_STR, 0), PB_F(17, "subdomain", PB_STR, 0),
       PB_M(18, "affinity", pb_affinity, PB_PTR),
       PB_F(19, "schedulerName", PB_STR, 0),
       PB_M(22, "tolerations", pb_toleration, PB_REP),
       PB_M(23, "hostAliases", pb_host_alias, PB_REP),
       PB_F(24, "priorityClassName", PB_STR, 0),
       PB_F(25, "priority", PB_INT, PB_PTR),
       PB_M(26, "dnsConfig", pb_pod_dns_config, PB_PTR),
       PB_M(28, "readinessGates", pb_pod_readiness_gate, PB_REP),
       PB_F(29, "runtimeClassName", PB_STR, PB_PTR),
       PB_F(30, "enableServiceLinks", PB_BOOL, PB_PTR),
       PB_F(31, "preemptionPolicy", PB_STR, PB_PTR),
       PB_F(32, "overhead", PB_MAP_QTY, 0),
       PB_M(33, "topologySpreadConstraints", pb_topology_spread_constraint,
	    PB_REP),
       PB_F(35, "setHostnameAsFQDN", PB_BOOL, PB_PTR),
       PB_M(36, "os", pb_pod_os, PB_PTR),
       PB_F(37, "hostUsers", PB_BOOL, PB_PTR),
       PB_M(38, "schedulingGates", pb_pod_scheduling_gate, PB_REP),
       PB_M(39, "resourceClaims", pb_pod_resource_claim, PB_REP),
       PB_M(40, "resources", pb_resource_requirements, PB_PTR));

PB_MSG(pb_pod_condition, "PodCondition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastProbeTime", PB_TIME, PB_KEEP),
       PB_F(4, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(5, "reason", PB_STR, 0), PB_F(6, "message", PB_STR, 0));

PB_MSG(pb_host_ip, "HostIP", PB_F(1, "ip", PB_STR, PB_KEEP));

PB_MSG(pb_pod_ip, "PodIP", PB_F(1, "ip", PB_STR, PB_KEEP));

PB_MSG(pb_container_state_waiting, "ContainerStateWaiting",
       PB_F(1, "reason", PB_STR, 0), PB_F(2, "message", PB_STR, 0));

PB_MSG(pb_container_state_running, "ContainerStateRunning",
       PB_F(1, "startedAt", PB_TIME, PB_KEEP));

PB_MSG(pb_container_state_terminated, "ContainerStateTerminated",
       PB_F(1, "exitCode", PB_INT, PB_KEEP), PB_F(2, "signal", PB_INT, 0),
       PB_F(3, "reason", PB_STR, 0), PB_F(4, "message", PB_STR, 0),
       PB_F(5, "startedAt", PB_TIME, PB_KEEP),
       PB_F(6, "finishedAt", PB_TIME, PB_KEEP),
       PB_F(7, "containerID", PB_STR, 0));

PB_MSG(pb_container_state, "ContainerState",
       PB_M(1, "waiting", pb_container_state_waiting, PB_PTR),
       PB_M(2, "running", pb_container_state_running, PB_PTR),
       PB_M(3, "terminated", pb_container_state_terminated, PB_PTR));

PB_MSG(pb_volume_mount_status, "VolumeMountStatus",
       PB_F(1, "name", PB_STR, PB_KEEP), PB_F(2, "mountPath", PB_STR, PB_KEEP),
       PB_F(3, "readOnly", PB_BOOL, 0),
       PB_F(4, "recursiveReadOnly", PB_STR, PB_PTR));

PB_MSG(pb_linux_container_user, "LinuxContainerUser",
       PB_F(1, "uid", PB_INT, PB_KEEP), PB_F(2, "gid", PB_INT, PB_KEEP),
       PB_F(3, "supplementalGroups", PB_INT, PB_REP));

PB_MSG(pb_container_user, "ContainerUser",
       PB_M(1, "linux", pb_linux_container_user, PB_PTR));

PB_MSG(pb_resource_health, "ResourceHealth",
       PB_F(1, "resourceID", PB_STR, PB_KEEP), PB_F(2, "health", PB_STR, 0));

PB_MSG(pb_resource_status, "ResourceStatus", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "resources", pb_resource_health, PB_REP));

PB_MSG(pb_container_status, "ContainerStatus", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "state", pb_container_state, PB_KEEP),
       PB_M(3, "lastState", pb_container_state, PB_KEEP),
       PB_F(4, "ready", PB_BOOL, PB_KEEP),
       PB_F(5, "restartCount", PB_INT, PB_KEEP),
       PB_F(6, "image", PB_STR, PB_KEEP), PB_F(7, "imageID", PB_STR, PB_KEEP),
       PB_F(8, "containerID", PB_STR, 0), PB_F(9, "started", PB_BOOL, PB_PTR),
       PB_F(10, "allocatedResources", PB_MAP_QTY, 0),
       PB_M(11, "resources", pb_resource_requirements, PB_PTR),
       PB_M(12, "volumeMounts", pb_volume_mount_status, PB_REP),
       PB_M(13, "user", pb_container_user, PB_PTR),
       PB_M(14, "allocatedResourcesStatus", pb_resource_status, PB_REP));

PB_MSG(pb_pod_resource_claim_status, "PodResourceClaimStatus",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "resourceClaimName", PB_STR, PB_PTR));

PB_MSG(pb_pod_status, "PodStatus", PB_F(1, "phase", PB_STR, 0),
       PB_M(2, "conditions", pb_pod_condition, PB_REP),
       PB_F(3, "message", PB_STR, 0), PB_F(4, "reason", PB_STR, 0),
       PB_F(11, "nominatedNodeName", PB_STR, 0), PB_F(5, "hostIP", PB_STR, 0),
       PB_M(16, "hostIPs", pb_host_ip, PB_REP), PB_F(6, "podIP", PB_STR, 0),
       PB_M(12, "podIPs", pb_pod_ip, PB_REP),
       PB_F(7, "startTime", PB_TIME, PB_PTR),
       PB_M(10, "initContainerStatuses", pb_container_status, PB_REP),
       PB_M(8, "containerStatuses", pb_container_status, PB_REP),
       PB_F(9, "qosClass", PB_STR, 0),
       PB_M(13, "ephemeralContainerStatuses", pb_container_status, PB_REP),
       PB_F(14, "resize", PB_STR, 0),
       PB_M(15, "resourceClaimStatuses", pb_pod_resource_claim_status, PB_REP));

PB_MSG(pb_pod, "Pod", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_pod_spec, PB_KEEP),
       PB_M(3, "status", pb_pod_status, PB_KEEP));

PB_MSG(pb_pod_list, "PodList", PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_pod, PB_REP | PB_KEEP));

PB_MSG(pb_configmap, "ConfigMap", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(4, "immutable", PB_BOOL, PB_PTR), PB_F(2, "data", PB_MAP_STR, 0),
       PB_F(3, "binaryData", PB_MAP_BYTES, 0));

PB_MSG(pb_config_map_list, "ConfigMapList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_configmap, PB_REP | PB_KEEP));

PB_MSG(pb_service_port, "ServicePort", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "protocol", PB_STR, 0), PB_F(6, "appProtocol", PB_STR, PB_PTR),
       PB_F(3, "port", PB_INT, PB_KEEP),
       PB_F(4, "targetPort", PB_INTSTR, PB_KEEP),
       PB_F(5, "nodePort", PB_INT, 0));

PB_MSG(pb_client_ip_config, "ClientIPConfig",
       PB_F(1, "timeoutSeconds", PB_INT, PB_PTR));

PB_MSG(pb_session_affinity_config, "SessionAffinityConfig",
       PB_M(1, "clientIP", pb_client_ip_config, PB_PTR));

PB_MSG(pb_service_spec, "ServiceSpec",
       PB_M(1, "ports", pb_service_port, PB_REP),
       PB_F(2, "selector", PB_MAP_STR, 0), PB_F(3, "clusterIP", PB_STR, 0),
       PB_F(18, "clusterIPs", PB_STR, PB_REP), PB_F(4, "type", PB_STR, 0),
       PB_F(5, "externalIPs", PB_STR, PB_REP),
       PB_F(7, "sessionAffinity", PB_STR, 0),
       PB_F(8, "loadBalancerIP", PB_STR, 0),
       PB_F(9, "loadBalancerSourceRanges", PB_STR, PB_REP),
       PB_F(10, "externalName", PB_STR, 0),
       PB_F(11, "externalTrafficPolicy", PB_STR, 0),
       PB_F(12, "healthCheckNodePort", PB_INT, 0),
       PB_F(13, "publishNotReadyAddresses", PB_BOOL, 0),
       PB_M(14, "sessionAffinityConfig", pb_session_affinity_config, PB_PTR),
       PB_F(19, "ipFamilies", PB_STR, PB_REP),
       PB_F(17, "ipFamilyPolicy", PB_STR, PB_PTR),
       PB_F(20, "allocateLoadBalancerNodePorts", PB_BOOL, PB_PTR),
       PB_F(21, "loadBalancerClass", PB_STR, PB_PTR),
       PB_F(22, "internalTrafficPolicy", PB_STR, PB_PTR),
       PB_F(23, "trafficDistribution", PB_STR, PB_PTR));

PB_MSG(pb_port_status, "PortStatus", PB_F(1, "port", PB_INT, PB_KEEP),
       PB_F(2, "protocol", PB_STR, PB_KEEP), PB_F(3, "error", PB_STR, PB_PTR));

PB_MSG(pb_load_balancer_ingress, "LoadBalancerIngress",
       PB_F(1, "ip", PB_STR, 0), PB_F(2, "hostname", PB_STR, 0),
       PB_F(3, "ipMode", PB_STR, PB_PTR),
       PB_M(4, "ports", pb_port_status, PB_REP));

PB_MSG(pb_load_balancer_status, "LoadBalancerStatus",
       PB_M(1, "ingress", pb_load_balancer_ingress, PB_REP));

PB_MSG(pb_service_status, "ServiceStatus",
       PB_M(1, "loadBalancer", pb_load_balancer_status, PB_KEEP),
       PB_M(2, "conditions", pb_condition, PB_REP));

PB_MSG(pb_service, "Service", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_service_spec, PB_KEEP),
       PB_M(3, "status", pb_service_status, PB_KEEP));

PB_MSG(pb_service_list, "ServiceList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_service, PB_REP | PB_KEEP));

PB_MSG(pb_secret, "Secret", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(5, "immutable", PB_BOOL, PB_PTR), PB_F(2, "data", PB_MAP_BYTES, 0),
       PB_F(4, "stringData", PB_MAP_STR, 0), PB_F(3, "type", PB_STR, 0));

PB_MSG(pb_secret_list, "SecretList", PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_secret, PB_REP | PB_KEEP));

PB_MSG(pb_object_reference, "ObjectReference", PB_F(1, "kind", PB_STR, 0),
       PB_F(2, "namespace", PB_STR, 0), PB_F(3, "name", PB_STR, 0),
       PB_F(4, "uid", PB_STR, 0), PB_F(5, "apiVersion", PB_STR, 0),
       PB_F(6, "resourceVersion", PB_STR, 0), PB_F(7, "fieldPath", PB_STR, 0));

PB_MSG(pb_service_account, "ServiceAccount",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "secrets", pb_object_reference, PB_REP),
       PB_M(3, "imagePullSecrets", pb_local_object_reference, PB_REP),
       PB_F(4, "automountServiceAccountToken", PB_BOOL, PB_PTR));

PB_MSG(pb_service_account_list, "ServiceAccountList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_service_account, PB_REP | PB_KEEP));

PB_MSG(pb_endpoint_address, "EndpointAddress", PB_F(1, "ip", PB_STR, PB_KEEP),
       PB_F(3, "hostname", PB_STR, 0), PB_F(4, "nodeName", PB_STR, PB_PTR),
       PB_M(2, "targetRef", pb_object_reference, PB_PTR));

PB_MSG(pb_endpoint_port, "EndpointPort", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "port", PB_INT, PB_KEEP), PB_F(3, "protocol", PB_STR, 0),
       PB_F(4, "appProtocol", PB_STR, PB_PTR));

PB_MSG(pb_endpoint_subset, "EndpointSubset",
       PB_M(1, "addresses", pb_endpoint_address, PB_REP),
       PB_M(2, "notReadyAddresses", pb_endpoint_address, PB_REP),
       PB_M(3, "ports", pb_endpoint_port, PB_REP));

PB_MSG(pb_endpoints, "Endpoints", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "subsets", pb_endpoint_subset, PB_REP));

PB_MSG(pb_endpoints_list, "EndpointsList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_endpoints, PB_REP | PB_KEEP));

PB_MSG(pb_event_source, "EventSource", PB_F(1, "component", PB_STR, 0),
       PB_F(2, "host", PB_STR, 0));

PB_MSG(pb_event_series, "EventSeries", PB_F(1, "count", PB_INT, 0),
       PB_F(2, "lastObservedTime", PB_MICROTIME, PB_KEEP));

PB_MSG(pb_event, "Event", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "involvedObject", pb_object_reference, PB_KEEP),
       PB_F(3, "reason", PB_STR, 0), PB_F(4, "message", PB_STR, 0),
       PB_M(5, "source", pb_event_source, PB_KEEP),
       PB_F(6, "firstTimestamp", PB_TIME, PB_KEEP),
       PB_F(7, "lastTimestamp", PB_TIME, PB_KEEP), PB_F(8, "count", PB_INT, 0),
       PB_F(9, "type", PB_STR, 0), PB_F(10, "eventTime", PB_MICROTIME, PB_KEEP),
       PB_M(11, "series", pb_event_series, PB_PTR),
       PB_F(12, "action", PB_STR, 0),
       PB_M(13, "related", pb_object_reference, PB_PTR),
       PB_F(14, "reportingComponent", PB_STR, PB_KEEP),
       PB_F(15, "reportingInstance", PB_STR, PB_KEEP));

PB_MSG(pb_event_list, "EventList", PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_event, PB_REP | PB_KEEP));

PB_MSG(pb_pod_template_spec, "PodTemplateSpec",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_pod_spec, PB_KEEP));

PB_MSG(pb_replication_controller_spec, "ReplicationControllerSpec",
       PB_F(1, "replicas", PB_INT, PB_PTR),
       PB_F(4, "minReadySeconds", PB_INT, 0),
       PB_F(2, "selector", PB_MAP_STR, 0),
       PB_M(3, "template", pb_pod_template_spec, PB_PTR));

PB_MSG(pb_replication_controller_condition, "ReplicationControllerCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(4, "reason", PB_STR, 0), PB_F(5, "message", PB_STR, 0));

PB_MSG(pb_replication_controller_status, "ReplicationControllerStatus",
       PB_F(1, "replicas", PB_INT, PB_KEEP),
       PB_F(2, "fullyLabeledReplicas", PB_INT, 0),
       PB_F(4, "readyReplicas", PB_INT, 0),
       PB_F(5, "availableReplicas", PB_INT, 0),
       PB_F(3, "observedGeneration", PB_INT, 0),
       PB_M(6, "conditions", pb_replication_controller_condition, PB_REP));

PB_MSG(pb_replication_controller, "ReplicationController",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_replication_controller_spec, PB_KEEP),
       PB_M(3, "status", pb_replication_controller_status, PB_KEEP));

PB_MSG(pb_replication_controller_list, "ReplicationControllerList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_replication_controller, PB_REP | PB_KEEP));

PB_MSG(pb_taint, "Taint", PB_F(1, "key", PB_STR, PB_KEEP),
       PB_F(2, "value", PB_STR, 0), PB_F(3, "effect", PB_STR, PB_KEEP),
       PB_F(4, "timeAdded", PB_TIME, PB_PTR));

PB_MSG(pb_config_map_node_config_source, "ConfigMapNodeConfigSource",
       PB_F(1, "namespace", PB_STR, PB_KEEP), PB_F(2, "name", PB_STR, PB_KEEP),
       PB_F(3, "uid", PB_STR, 0), PB_F(4, "resourceVersion", PB_STR, 0),
       PB_F(5, "kubeletConfigKey", PB_STR, PB_KEEP));

PB_MSG(pb_node_config_source, "NodeConfigSource",
       PB_M(2, "configMap", pb_config_map_node_config_source, PB_PTR));

PB_MSG(pb_node_spec, "NodeSpec", PB_F(1, "podCIDR", PB_STR, 0),
       PB_F(7, "podCIDRs", PB_STR, PB_REP), PB_F(3, "providerID", PB_STR, 0),
       PB_F(4, "unschedulable", PB_BOOL, 0),
       PB_M(5, "taints", pb_taint, PB_REP),
       PB_M(6, "configSource", pb_node_config_source, PB_PTR),
       PB_F(2, "externalID", PB_STR, 0));

PB_MSG(pb_node_condition, "NodeCondition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastHeartbeatTime", PB_TIME, PB_KEEP),
       PB_F(4, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(5, "reason", PB_STR, 0), PB_F(6, "message", PB_STR, 0));

PB_MSG(pb_node_address, "NodeAddress", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "address", PB_STR, PB_KEEP));

PB_MSG(pb_daemon_endpoint, "DaemonEndpoint", PB_F(1, "Port", PB_INT, PB_KEEP));

PB_MSG(pb_node_daemon_endpoints, "NodeDaemonEndpoints",
       PB_M(1, "kubeletEndpoint", pb_daemon_endpoint, PB_KEEP));

PB_MSG(pb_node_system_info, "NodeSystemInfo",
       PB_F(1, "machineID", PB_STR, PB_KEEP),
       PB_F(2, "systemUUID", PB_STR, PB_KEEP),
       PB_F(3, "bootID", PB_STR, PB_KEEP),
       PB_F(4, "kernelVersion", PB_STR, PB_KEEP),
       PB_F(5, "osImage", PB_STR, PB_KEEP),
       PB_F(6, "containerRuntimeVersion", PB_STR, PB_KEEP),
       PB_F(7, "kubeletVersion", PB_STR, PB_KEEP),
       PB_F(8, "kubeProxyVersion", PB_STR, PB_KEEP),
       PB_F(9, "operatingSystem", PB_STR, PB_KEEP),
       PB_F(10, "architecture", PB_STR, PB_KEEP));

PB_MSG(pb_container_image, "ContainerImage",
       PB_F(1, "names", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "sizeBytes", PB_INT, 0));

PB_MSG(pb_attached_volume, "AttachedVolume", PB_F(1, "name", PB_STR, PB_KEEP),
       PB_F(2, "devicePath", PB_STR, PB_KEEP));

PB_MSG(pb_node_config_status, "NodeConfigStatus",
       PB_M(1, "assigned", pb_node_config_source, PB_PTR),
       PB_M(2, "active", pb_node_config_source, PB_PTR),
       PB_M(3, "lastKnownGood", pb_node_config_source, PB_PTR),
       PB_F(4, "error", PB_STR, 0));

PB_MSG(pb_node_runtime_handler_features, "NodeRuntimeHandlerFeatures",
       PB_F(1, "recursiveReadOnlyMounts", PB_BOOL, PB_PTR),
       PB_F(2, "userNamespaces", PB_BOOL, PB_PTR));

PB_MSG(pb_node_runtime_handler, "NodeRuntimeHandler",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "features", pb_node_runtime_handler_features, PB_PTR));

PB_MSG(pb_node_features, "NodeFeatures",
       PB_F(1, "supplementalGroupsPolicy", PB_BOOL, PB_PTR));

PB_MSG(pb_node_status, "NodeStatus", PB_F(1, "capacity", PB_MAP_QTY, 0),
       PB_F(2, "allocatable", PB_MAP_QTY, 0), PB_F(3, "phase", PB_STR, 0),
       PB_M(4, "conditions", pb_node_condition, PB_REP),
       PB_M(5, "addresses", pb_node_address, PB_REP),
       PB_M(6, "daemonEndpoints", pb_node_daemon_endpoints, PB_KEEP),
       PB_M(7, "nodeInfo", pb_node_system_info, PB_KEEP),
       PB_M(8, "images", pb_container_image, PB_REP),
       PB_F(9, "volumesInUse", PB_STR, PB_REP),
       PB_M(10, "volumesAttached", pb_attached_volume, PB_REP),
       PB_M(11, "config", pb_node_config_status, PB_PTR),
       PB_M(12, "runtimeHandlers", pb_node_runtime_handler, PB_REP),
       PB_M(13, "features", pb_node_features, PB_PTR));

PB_MSG(pb_node, "Node", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_node_spec, PB_KEEP),
       PB_M(3, "status", pb_node_status, PB_KEEP));

PB_MSG(pb_node_list, "NodeList", PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_node, PB_REP | PB_KEEP));

PB_MSG(pb_glusterfs_persistent_volume_source, "GlusterfsPersistentVolumeSource",
       PB_F(1, "endpoints", PB_STR, PB_KEEP), PB_F(2, "path", PB_STR, PB_KEEP),
       PB_F(3, "readOnly", PB_BOOL, 0),
       PB_F(4, "endpointsNamespace", PB_STR, PB_PTR));

PB_MSG(pb_secret_reference, "SecretReference", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "namespace", PB_STR, 0));

PB_MSG(pb_rbd_persistent_volume_source, "RBDPersistentVolumeSource",
       PB_F(1, "monitors", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "image", PB_STR, PB_KEEP), PB_F(3, "fsType", PB_STR, 0),
       PB_F(4, "pool", PB_STR, 0), PB_F(5, "user", PB_STR, 0),
       PB_F(6, "keyring", PB_STR, 0),
       PB_M(7, "secretRef", pb_secret_reference, PB_PTR),
       PB_F(8, "readOnly", PB_BOOL, 0));

PB_MSG(pb_iscsi_persistent_volume_source, "ISCSIPersistentVolumeSource",
       PB_F(1, "targetPortal", PB_STR, PB_KEEP),
       PB_F(2, "iqn", PB_STR, PB_KEEP), PB_F(3, "lun", PB_INT, PB_KEEP),
       PB_F(4, "iscsiInterface", PB_STR, 0), PB_F(5, "fsType", PB_STR, 0),
       PB_F(6, "readOnly", PB_BOOL, 0), PB_F(7, "portals", PB_STR, PB_REP),
       PB_F(8, "chapAuthDiscovery", PB_BOOL, 0),
       PB_F(11, "chapAuthSession", PB_BOOL, 0),
       PB_M(10, "secretRef", pb_secret_reference, PB_PTR),
       PB_F(12, "initiatorName", PB_STR, PB_PTR));

PB_MSG(pb_cinder_persistent_volume_source, "CinderPersistentVolumeSource",
       PB_F(1, "volumeID", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_F(3, "readOnly", PB_BOOL, 0),
       PB_M(4, "secretRef", pb_secret_reference, PB_PTR));

PB_MSG(pb_ceph_fs_persistent_volume_source, "CephFSPersistentVolumeSource",
       PB_F(1, "monitors", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "path", PB_STR, 0), PB_F(3, "user", PB_STR, 0),
       PB_F(4, "secretFile", PB_STR, 0),
       PB_M(5, "secretRef", pb_secret_reference, PB_PTR),
       PB_F(6, "readOnly", PB_BOOL, 0));

PB_MSG(pb_flex_persistent_volume_source, "FlexPersistentVolumeSource",
       PB_F(1, "driver", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, 0),
       PB_M(3, "secretRef", pb_secret_reference, PB_PTR),
       PB_F(4, "readOnly", PB_BOOL, 0), PB_F(5, "options", PB_MAP_STR, 0));

PB_MSG(pb_azure_file_persistent_volume_source,
       "AzureFilePersistentVolumeSource",
       PB_F(1, "secretName", PB_STR, PB_KEEP),
       PB_F(2, "shareName", PB_STR, PB_KEEP), PB_F(3, "readOnly", PB_BOOL, 0),
       PB_F(4, "secretNamespace", PB_STR, PB_PTR | PB_KEEP));

PB_MSG(pb_scale_io_persistent_volume_source, "ScaleIOPersistentVolumeSource",
       PB_F(1, "gateway", PB_STR, PB_KEEP), PB_F(2, "system", PB_STR, PB_KEEP),
       PB_M(3, "secretRef", pb_secret_reference, PB_PTR | PB_KEEP),
       PB_F(4, "sslEnabled", PB_BOOL, 0),
       PB_F(5, "protectionDomain", PB_STR, 0),
       PB_F(6, "storagePool", PB_STR, 0), PB_F(7, "storageMode", PB_STR, 0),
       PB_F(8, "volumeName", PB_STR, 0), PB_F(9, "fsType", PB_STR, 0),
       PB_F(10, "readOnly", PB_BOOL, 0));

PB_MSG(pb_local_volume_source, "LocalVolumeSource",
       PB_F(1, "path", PB_STR, PB_KEEP), PB_F(2, "fsType", PB_STR, PB_PTR));

PB_MSG(pb_storage_os_persistent_volume_source,
       "StorageOSPersistentVolumeSource", PB_F(1, "volumeName", PB_STR, 0),
       PB_F(2, "volumeNamespace", PB_STR, 0), PB_F(3, "fsType", PB_STR, 0),
       PB_F(4, "readOnly", PB_BOOL, 0),
       PB_M(5, "secretRef", pb_object_reference, PB_PTR));

PB_MSG(pb_csi_persistent_volume_source, "CSIPersistentVolumeSource",
       PB_F(1, "driver", PB_STR, PB_KEEP),
       PB_F(2, "volumeHandle", PB_STR, PB_KEEP),
       PB_F(3, "readOnly", PB_BOOL, 0), PB_F(4, "fsType", PB_STR, 0),
       PB_F(5, "volumeAttributes", PB_MAP_STR, 0),
       PB_M(6, "controllerPublishSecretRef", pb_secret_reference, PB_PTR),
       PB_M(7, "nodeStageSecretRef", pb_secret_reference, PB_PTR),
       PB_M(8, "nodePublishSecretRef", pb_secret_reference, PB_PTR),
       PB_M(9, "controllerExpandSecretRef", pb_secret_reference, PB_PTR),
       PB_M(10, "nodeExpandSecretRef", pb_secret_reference, PB_PTR));

PB_MSG(pb_persistent_volume_source, "PersistentVolumeSource",
       PB_M(1, "gcePersistentDisk", pb_gce_persistent_disk_volume_source,
	    PB_PTR),
       PB_M(2, "awsElasticBlockStore", pb_aws_elastic_block_store_volume_source,
	    PB_PTR),
       PB_M(3, "hostPath", pb_host_path_volume_source, PB_PTR),
       PB_M(4, "glusterfs", pb_glusterfs_persistent_volume_source, PB_PTR),
       PB_M(5, "nfs", pb_nfs_volume_source, PB_PTR),
       PB_M(6, "rbd", pb_rbd_persistent_volume_source, PB_PTR),
       PB_M(7, "iscsi", pb_iscsi_persistent_volume_source, PB_PTR),
       PB_M(8, "cinder", pb_cinder_persistent_volume_source, PB_PTR),
       PB_M(9, "cephfs", pb_ceph_fs_persistent_volume_source, PB_PTR),
       PB_M(10, "fc", pb_fc_volume_source, PB_PTR),
       PB_M(11, "flocker", pb_flocker_volume_source, PB_PTR),
       PB_M(12, "flexVolume", pb_flex_persistent_volume_source, PB_PTR),
       PB_M(13, "azureFile", pb_azure_file_persistent_volume_source, PB_PTR),
       PB_M(14, "vsphereVolume", pb_vsphere_virtual_disk_volume_source, PB_PTR),
       PB_M(15, "quobyte", pb_quobyte_volume_source, PB_PTR),
       PB_M(16, "azureDisk", pb_azure_disk_volume_source, PB_PTR),
       PB_M(17, "photonPersistentDisk", pb_photon_persistent_disk_volume_source,
	    PB_PTR),
       PB_M(18, "portworxVolume", pb_portworx_volume_source, PB_PTR),
       PB_M(19, "scaleIO", pb_scale_io_persistent_volume_source, PB_PTR),
       PB_M(20, "local", pb_local_volume_source, PB_PTR),
       PB_M(21, "storageos", pb_storage_os_persistent_volume_source, PB_PTR),
       PB_M(22, "csi", pb_csi_persistent_volume_source, PB_PTR));

PB_MSG(pb_volume_node_affinity, "VolumeNodeAffinity",
       PB_M(1, "required", pb_node_selector, PB_PTR));

PB_MSG(pb_persistent_volume_spec, "PersistentVolumeSpec",
       PB_F(1, "capacity", PB_MAP_QTY, 0), PB_I(2, pb_persistent_volume_source),
       PB_F(3, "accessModes", PB_STR, PB_REP),
       PB_M(4, "claimRef", pb_object_reference, PB_PTR),
       PB_F(5, "persistentVolumeReclaimPolicy", PB_STR, 0),
       PB_F(6, "storageClassName", PB_STR, 0),
       PB_F(7, "mountOptions", PB_STR, PB_REP),
       PB_F(8, "volumeMode", PB_STR, PB_PTR),
       PB_M(9, "nodeAffinity", pb_volume_node_affinity, PB_PTR),
       PB_F(10, "volumeAttributesClassName", PB_STR, PB_PTR));

PB_MSG(pb_persistent_volume_status, "PersistentVolumeStatus",
       PB_F(1, "phase", PB_STR, 0), PB_F(2, "message", PB_STR, 0),
       PB_F(3, "reason", PB_STR, 0),
       PB_F(4, "lastPhaseTransitionTime", PB_TIME, PB_PTR));

PB_MSG(pb_persistent_volume, "PersistentVolume",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_persistent_volume_spec, PB_KEEP),
       PB_M(3, "status", pb_persistent_volume_status, PB_KEEP));

PB_MSG(pb_persistent_volume_list, "PersistentVolumeList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_persistent_volume, PB_REP | PB_KEEP));

PB_MSG(pb_persistent_volume_claim_condition, "PersistentVolumeClaimCondition",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastProbeTime", PB_TIME, PB_KEEP),
       PB_F(4, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(5, "reason", PB_STR, 0), PB_F(6, "message", PB_STR, 0));

PB_MSG(pb_modify_volume_status, "ModifyVolumeStatus",
       PB_F(1, "targetVolumeAttributesClassName", PB_STR, 0),
       PB_F(2, "status", PB_STR, PB_KEEP));

PB_MSG(pb_persistent_volume_claim_status, "PersistentVolumeClaimStatus",
       PB_F(1, "phase", PB_STR, 0), PB_F(2, "accessModes", PB_STR, PB_REP),
       PB_F(3, "capacity", PB_MAP_QTY, 0),
       PB_M(4, "conditions", pb_persistent_volume_claim_condition, PB_REP),
       PB_F(5, "allocatedResources", PB_MAP_QTY, 0),
       PB_F(7, "allocatedResourceStatuses", PB_MAP_STR, 0),
       PB_F(8, "currentVolumeAttributesClassName", PB_STR, PB_PTR),
       PB_M(9, "modifyVolumeStatus", pb_modify_volume_status, PB_PTR));

PB_MSG(pb_persistent_volume_claim, "PersistentVolumeClaim",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_persistent_volume_claim_spec, PB_KEEP),
       PB_M(3, "status", pb_persistent_volume_claim_status, PB_KEEP));

PB_MSG(pb_persistent_volume_claim_list, "PersistentVolumeClaimList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_persistent_volume_claim, PB_REP | PB_KEEP));

PB_MSG(pb_pod_template, "PodTemplate",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "template", pb_pod_template_spec, PB_KEEP));

PB_MSG(pb_pod_template_list, "PodTemplateList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_pod_template, PB_REP | PB_KEEP));

PB_MSG(pb_limit_range_item, "LimitRangeItem", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "max", PB_MAP_QTY, 0), PB_F(3, "min", PB_MAP_QTY, 0),
       PB_F(4, "default", PB_MAP_QTY, 0),
       PB_F(5, "defaultRequest", PB_MAP_QTY, 0),
       PB_F(6, "maxLimitRequestRatio", PB_MAP_QTY, 0));

PB_MSG(pb_limit_range_spec, "LimitRangeSpec",
       PB_M(1, "limits", pb_limit_range_item, PB_REP | PB_KEEP));

PB_MSG(pb_limit_range, "LimitRange",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_limit_range_spec, PB_KEEP));

PB_MSG(pb_limit_range_list, "LimitRangeList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_limit_range, PB_REP | PB_KEEP));

PB_MSG(pb_scoped_resource_selector_requirement,
       "ScopedResourceSelectorRequirement",
       PB_F(1, "scopeName", PB_STR, PB_KEEP),
       PB_F(2, "operator", PB_STR, PB_KEEP), PB_F(3, "values", PB_STR, PB_REP));

PB_MSG(pb_scope_selector, "ScopeSelector",
       PB_M(1, "matchExpressions", pb_scoped_resource_selector_requirement,
	    PB_REP));

PB_MSG(pb_resource_quota_spec, "ResourceQuotaSpec",
       PB_F(1, "hard", PB_MAP_QTY, 0), PB_F(2, "scopes", PB_STR, PB_REP),
       PB_M(3, "scopeSelector", pb_scope_selector, PB_PTR));

PB_MSG(pb_resource_quota_status, "ResourceQuotaStatus",
       PB_F(1, "hard", PB_MAP_QTY, 0), PB_F(2, "used", PB_MAP_QTY, 0));

PB_MSG(pb_resource_quota, "ResourceQuota",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_resource_quota_spec, PB_KEEP),
       PB_M(3, "status", pb_resource_quota_status, PB_KEEP));

PB_MSG(pb_resource_quota_list, "ResourceQuotaList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_resource_quota, PB_REP | PB_KEEP));

PB_MSG(pb_topology_selector_label_requirement,
       "TopologySelectorLabelRequirement", PB_F(1, "key", PB_STR, PB_KEEP),
       PB_F(2, "values", PB_STR, PB_REP | PB_KEEP));

PB_MSG(pb_topology_selector_term, "TopologySelectorTerm",
       PB_M(1, "matchLabelExpressions", pb_topology_selector_label_requirement,
	    PB_REP));
