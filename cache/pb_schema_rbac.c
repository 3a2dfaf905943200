/*
 * pb_schema_rbac: the rbac.authorization.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_rbac.h"

#include "cache/pb_schema_meta.h"

PB_MSG(pb_rbac_policy_rule, "PolicyRule",
       PB_F(1, "verbs", PB_STR, PB_REP | PB_KEEP),
       PB_F(2, "apiGroups", PB_STR, PB_REP),
       PB_F(3, "resources", PB_STR, PB_REP),
       PB_F(4, "resourceNames", PB_STR, PB_REP),
       PB_F(5, "nonResourceURLs", PB_STR, PB_REP));

PB_MSG(pb_rbac_role, "Role", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "rules", pb_rbac_policy_rule, PB_REP | PB_KEEP));

PB_MSG(pb_rbac_role_list, "RoleList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_rbac_role, PB_REP | PB_KEEP));

PB_MSG(pb_rbac_aggregation_rule, "AggregationRule",
       PB_M(1, "clusterRoleSelectors", pb_label_selector, PB_REP));

PB_MSG(pb_rbac_cluster_role, "ClusterRole",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "rules", pb_rbac_policy_rule, PB_REP | PB_KEEP),
       PB_M(3, "aggregationRule", pb_rbac_aggregation_rule, PB_PTR));

PB_MSG(pb_rbac_cluster_role_list, "ClusterRoleList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_rbac_cluster_role, PB_REP | PB_KEEP));

PB_MSG(pb_rbac_subject, "Subject", PB_F(1, "kind", PB_STR, PB_KEEP),
       PB_F(2, "apiGroup", PB_STR, 0), PB_F(3, "name", PB_STR, PB_KEEP),
       PB_F(4, "namespace", PB_STR, 0));

PB_MSG(pb_rbac_role_ref, "RoleRef", PB_F(1, "apiGroup", PB_STR, PB_KEEP),
       PB_F(2, "kind", PB_STR, PB_KEEP), PB_F(3, "name", PB_STR, PB_KEEP));

PB_MSG(pb_rbac_role_binding, "RoleBinding",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "subjects", pb_rbac_subject, PB_REP),
       PB_M(3, "roleRef", pb_rbac_role_ref, PB_KEEP));

PB_MSG(pb_rbac_role_binding_list, "RoleBindingList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_rbac_role_binding, PB_REP | PB_KEEP));

PB_MSG(pb_rbac_cluster_role_binding, "ClusterRoleBinding",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "subjects", pb_rbac_subject, PB_REP),
       PB_M(3, "roleRef", pb_rbac_role_ref, PB_KEEP));

PB_MSG(pb_rbac_cluster_role_binding_list, "ClusterRoleBindingList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_rbac_cluster_role_binding, PB_REP | PB_KEEP));
