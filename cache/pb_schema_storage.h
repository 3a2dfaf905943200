/*
 * pb_schema_storage: the storage.k8s.io/v1 messages of the protobuf
 * schema (see pb_schema.h); the kinds among them are registered in
 * pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_STORAGE_H
#define CACHE_PB_SCHEMA_STORAGE_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_storage_storage_class;
extern const struct pb_msg pb_storage_storage_class_list;
extern const struct pb_msg pb_storage_token_request;
extern const struct pb_msg pb_storage_csi_driver_spec;
extern const struct pb_msg pb_storage_csi_driver;
extern const struct pb_msg pb_storage_csi_driver_list;
extern const struct pb_msg pb_storage_volume_node_resources;
extern const struct pb_msg pb_storage_csi_node_driver;
extern const struct pb_msg pb_storage_csi_node_spec;
extern const struct pb_msg pb_storage_csi_node;
extern const struct pb_msg pb_storage_csi_node_list;
extern const struct pb_msg pb_storage_volume_attachment_source;
extern const struct pb_msg pb_storage_volume_attachment_spec;
extern const struct pb_msg pb_storage_volume_error;
extern const struct pb_msg pb_storage_volume_attachment_status;
extern const struct pb_msg pb_storage_volume_attachment;
extern const struct pb_msg pb_storage_volume_attachment_list;
extern const struct pb_msg pb_storage_csi_storage_capacity;
extern const struct pb_msg pb_storage_csi_storage_capacity_list;

#endif
