/*
 * pb_schema_batch: the batch/v1 messages of the protobuf schema (see
 * pb_schema.h); the kinds among them are registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_BATCH_H
#define CACHE_PB_SCHEMA_BATCH_H

#include "cache/pb_schema.h"

extern const struct pb_msg
	pb_batch_pod_failure_policy_on_exit_codes_requirement;
extern const struct pb_msg
	pb_batch_pod_failure_policy_on_pod_conditions_pattern;
extern const struct pb_msg pb_batch_pod_failure_policy_rule;
extern const struct pb_msg pb_batch_pod_failure_policy;
extern const struct pb_msg pb_batch_success_policy_rule;
extern const struct pb_msg pb_batch_success_policy;
extern const struct pb_msg pb_batch_job_spec;
extern const struct pb_msg pb_batch_job_condition;
extern const struct pb_msg pb_batch_uncounted_terminated_pods;
extern const struct pb_msg pb_batch_job_status;
extern const struct pb_msg pb_batch_job;
extern const struct pb_msg pb_batch_job_list;
extern const struct pb_msg pb_batch_job_template_spec;
extern const struct pb_msg pb_batch_cron_job_spec;
extern const struct pb_msg pb_batch_cron_job_status;
extern const struct pb_msg pb_batch_cron_job;
extern const struct pb_msg pb_batch_cron_job_list;

#endif
