/*
 * pb_schema_storage: the storage.k8s.io/v1 messages of the protobuf
 * schema (see pb_schema.h): every field of k8s.io/api's generated.proto
 * (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_storage.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_storage_storage_class, "StorageClass",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_F(2, "provisioner", PB_STR, PB_KEEP),
       PB_F(3, "parameters", PB_MAP_STR, 0),
       PB_F(4, "reclaimPolicy", PB_STR, PB_PTR),
       PB_F(5, "mountOptions", PB_STR, PB_REP),
       PB_F(6, "allowVolumeExpansion", PB_BOOL, PB_PTR),
       PB_F(7, "volumeBindingMode", PB_STR, PB_PTR),
       PB_M(8, "allowedTopologies", pb_topology_selector_term, PB_REP));

PB_MSG(pb_storage_storage_class_list, "StorageClassList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_storage_storage_class, PB_REP | PB_KEEP));

PB_MSG(pb_storage_token_request, "TokenRequest",
       PB_F(1, "audience", PB_STR, PB_KEEP),
       PB_F(2, "expirationSeconds", PB_INT, PB_PTR));

PB_MSG(pb_storage_csi_driver_spec, "CSIDriverSpec",
       PB_F(1, "attachRequired", PB_BOOL, PB_PTR),
       PB_F(2, "podInfoOnMount", PB_BOOL, PB_PTR),
       PB_F(3, "volumeLifecycleModes", PB_STR, PB_REP),
       PB_F(4, "storageCapacity", PB_BOOL, PB_PTR),
       PB_F(5, "fsGroupPolicy", PB_STR, PB_PTR),
       PB_M(6, "tokenRequests", pb_storage_token_request, PB_REP),
       PB_F(7, "requiresRepublish", PB_BOOL, PB_PTR),
       PB_F(8, "seLinuxMount", PB_BOOL, PB_PTR));

PB_MSG(pb_storage_csi_driver, "CSIDriver",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_storage_csi_driver_spec, PB_KEEP));

PB_MSG(pb_storage_csi_driver_list, "CSIDriverList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_storage_csi_driver, PB_REP | PB_KEEP));

PB_MSG(pb_storage_volume_node_resources, "VolumeNodeResources",
       PB_F(1, "count", PB_INT, PB_PTR));

PB_MSG(pb_storage_csi_node_driver, "CSINodeDriver",
       PB_F(1, "name", PB_STR, PB_KEEP), PB_F(2, "nodeID", PB_STR, PB_KEEP),
       PB_F(3, "topologyKeys", PB_STR, PB_REP | PB_KEEP),
       PB_M(4, "allocatable", pb_storage_volume_node_resources, PB_PTR));

PB_MSG(pb_storage_csi_node_spec, "CSINodeSpec",
       PB_M(1, "drivers", pb_storage_csi_node_driver, PB_REP | PB_KEEP));

PB_MSG(pb_storage_csi_node, "CSINode",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_storage_csi_node_spec, PB_KEEP));

PB_MSG(pb_storage_csi_node_list, "CSINodeList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_storage_csi_node, PB_REP | PB_KEEP));

PB_MSG(pb_storage_volume_attachment_source, "VolumeAttachmentSource",
       PB_F(1, "persistentVolumeName", PB_STR, PB_PTR),
       PB_M(2, "inlineVolumeSpec", pb_persistent_volume_spec, PB_PTR));

PB_MSG(pb_storage_volume_attachment_spec, "VolumeAttachmentSpec",
       PB_F(1, "attacher", PB_STR, PB_KEEP),
       PB_M(2, "source", pb_storage_volume_attachment_source, PB_KEEP),
       PB_F(3, "nodeName", PB_STR, PB_KEEP));

PB_MSG(pb_storage_volume_error, "VolumeError",
       PB_F(1, "time", PB_TIME, PB_KEEP), PB_F(2, "message", PB_STR, 0));

PB_MSG(pb_storage_volume_attachment_status, "VolumeAttachmentStatus",
       PB_F(1, "attached", PB_BOOL, PB_KEEP),
       PB_F(2, "attachmentMetadata", PB_MAP_STR, 0),
       PB_M(3, "attachError", pb_storage_volume_error, PB_PTR),
       PB_M(4, "detachError", pb_storage_volume_error, PB_PTR));

PB_MSG(pb_storage_volume_attachment, "VolumeAttachment",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_storage_volume_attachment_spec, PB_KEEP),
       PB_M(3, "status", pb_storage_volume_attachment_status, PB_KEEP));

PB_MSG(pb_storage_volume_attachment_list, "VolumeAttachmentList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_storage_volume_attachment, PB_REP | PB_KEEP));

PB_MSG(pb_storage_csi_storage_capacity, "CSIStorageCapacity",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "nodeTopology", pb_label_selector, PB_PTR),
       PB_F(3, "storageClassName", PB_STR, PB_KEEP),
       PB_F(4, "capacity", PB_QTY, PB_PTR),
       PB_F(5, "maximumVolumeSize", PB_QTY, PB_PTR));

PB_MSG(pb_storage_csi_storage_capacity_list, "CSIStorageCapacityList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_storage_csi_storage_capacity, PB_REP | PB_KEEP));
