/*
 * pb_schema_rbac: the rbac.authorization.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_RBAC_H
#define CACHE_PB_SCHEMA_RBAC_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_rbac_policy_rule;
extern const struct pb_msg pb_rbac_role;
extern const struct pb_msg pb_rbac_role_list;
extern const struct pb_msg pb_rbac_aggregation_rule;
extern const struct pb_msg pb_rbac_cluster_role;
extern const struct pb_msg pb_rbac_cluster_role_list;
extern const struct pb_msg pb_rbac_subject;
extern const struct pb_msg pb_rbac_role_ref;
extern const struct pb_msg pb_rbac_role_binding;
extern const struct pb_msg pb_rbac_role_binding_list;
extern const struct pb_msg pb_rbac_cluster_role_binding;
extern const struct pb_msg pb_rbac_cluster_role_binding_list;

#endif
