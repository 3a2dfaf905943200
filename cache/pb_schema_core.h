/*
 * pb_schema_core: the meta/v1 and core/v1 messages of the protobuf
 * schema (see pb_schema.h). The other groups' tables embed these (a
 * Deployment's pod template is a core/v1 PodTemplateSpec).
 */
#ifndef CACHE_PB_SCHEMA_CORE_H
#define CACHE_PB_SCHEMA_CORE_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_object_meta;
extern const struct pb_msg pb_pod_spec;

/* Top-level kinds (core/v1). */
extern const struct pb_msg pb_namespace, pb_pod, pb_configmap, pb_service;

#endif
