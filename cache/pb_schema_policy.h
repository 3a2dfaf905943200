/*
 * pb_schema_policy: the policy/v1 messages of the protobuf schema (see
 * pb_schema.h); the kinds among them are registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_POLICY_H
#define CACHE_PB_SCHEMA_POLICY_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_policy_pod_disruption_budget_spec;
extern const struct pb_msg pb_policy_pod_disruption_budget_status;
extern const struct pb_msg pb_policy_pod_disruption_budget;
extern const struct pb_msg pb_policy_pod_disruption_budget_list;

#endif
