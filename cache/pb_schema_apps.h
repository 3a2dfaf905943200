/*
 * pb_schema_apps: the apps/v1 messages of the protobuf schema (see
 * pb_schema.h); the kinds among them are registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_APPS_H
#define CACHE_PB_SCHEMA_APPS_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_apps_rolling_update_deployment;
extern const struct pb_msg pb_apps_deployment_strategy;
extern const struct pb_msg pb_apps_deployment_spec;
extern const struct pb_msg pb_apps_deployment_condition;
extern const struct pb_msg pb_apps_deployment_status;
extern const struct pb_msg pb_apps_deployment;
extern const struct pb_msg pb_apps_deployment_list;
extern const struct pb_msg pb_apps_replica_set_spec;
extern const struct pb_msg pb_apps_replica_set_condition;
extern const struct pb_msg pb_apps_replica_set_status;
extern const struct pb_msg pb_apps_replica_set;
extern const struct pb_msg pb_apps_replica_set_list;
extern const struct pb_msg pb_apps_rolling_update_stateful_set_strategy;
extern const struct pb_msg pb_apps_stateful_set_update_strategy;
extern const struct pb_msg
	pb_apps_stateful_set_persistent_volume_claim_retention_policy;
extern const struct pb_msg pb_apps_stateful_set_ordinals;
extern const struct pb_msg pb_apps_stateful_set_spec;
extern const struct pb_msg pb_apps_stateful_set_condition;
extern const struct pb_msg pb_apps_stateful_set_status;
extern const struct pb_msg pb_apps_stateful_set;
extern const struct pb_msg pb_apps_stateful_set_list;
extern const struct pb_msg pb_apps_rolling_update_daemon_set;
extern const struct pb_msg pb_apps_daemon_set_update_strategy;
extern const struct pb_msg pb_apps_daemon_set_spec;
extern const struct pb_msg pb_apps_daemon_set_condition;
extern const struct pb_msg pb_apps_daemon_set_status;
extern const struct pb_msg pb_apps_daemon_set;
extern const struct pb_msg pb_apps_daemon_set_list;
extern const struct pb_msg pb_apps_controller_revision;
extern const struct pb_msg pb_apps_controller_revision_list;

#endif
