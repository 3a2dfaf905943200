/*
 * pb_schema_batch: the batch/v1 messages of the protobuf schema (see
 * pb_schema.h): every field of k8s.io/api's generated.proto (v0.32),
 * one row each, in Go struct order.
 */
#include "cache/pb_schema_batch.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_batch_pod_failure_policy_on_exit_codes_requirement,
       "PodFailurePolicyOnExitCodesRequirement",
       PB_F(1, "containerName", PB_STR, PB_PTR),
       PB_F(2, "operator", PB_STR, PB_KEEP),
       PB_F(3, "values", PB_INT, PB_REP | PB_KEEP));

PB_MSG(pb_batch_pod_failure_policy_on_pod_conditions_pattern,
       "PodFailurePolicyOnPodConditionsPattern",
       PB_F(1, "type", PB_STR, PB_KEEP), PB_F(2, "status", PB_STR, PB_KEEP));

PB_MSG(pb_batch_pod_failure_policy_rule, "PodFailurePolicyRule",
       PB_F(1, "action", PB_STR, PB_KEEP),
       PB_M(2, "onExitCodes",
	    pb_batch_pod_failure_policy_on_exit_codes_requirement, PB_PTR),
       PB_M(3, "onPodConditions",
	    pb_batch_pod_failure_policy_on_pod_conditions_pattern, PB_REP));

PB_MSG(pb_batch_pod_failure_policy, "PodFailurePolicy",
       PB_M(1, "rules", pb_batch_pod_failure_policy_rule, PB_REP | PB_KEEP));

PB_MSG(pb_batch_success_policy_rule, "SuccessPolicyRule",
       PB_F(1, "succeededIndexes", PB_STR, PB_PTR),
       PB_F(2, "succeededCount", PB_INT, PB_PTR));

PB_MSG(pb_batch_success_policy, "SuccessPolicy",
       PB_M(1, "rules", pb_batch_success_policy_rule, PB_REP | PB_KEEP));

PB_MSG(pb_batch_job_spec, "JobSpec", PB_F(1, "parallelism", PB_INT, PB_PTR),
       PB_F(2, "completions", PB_INT, PB_PTR),
       PB_F(3, "activeDeadlineSeconds", PB_INT, PB_PTR),
       PB_M(11, "podFailurePolicy", pb_batch_pod_failure_policy, PB_PTR),
       PB_M(16, "successPolicy", pb_batch_success_policy, PB_PTR),
       PB_F(7, "backoffLimit", PB_INT, PB_PTR),
       PB_F(12, "backoffLimitPerIndex", PB_INT, PB_PTR),
       PB_F(13, "maxFailedIndexes", PB_INT, PB_PTR),
       PB_M(4, "selector", pb_label_selector, PB_PTR),
       PB_F(5, "manualSelector", PB_BOOL, PB_PTR),
       PB_M(6, "template", pb_pod_template_spec, PB_KEEP),
       PB_F(8, "ttlSecondsAfterFinished", PB_INT, PB_PTR),
       PB_F(9, "completionMode", PB_STR, PB_PTR),
       PB_F(10, "suspend", PB_BOOL, PB_PTR),
       PB_F(14, "podReplacementPolicy", PB_STR, PB_PTR),
       PB_F(15, "managedBy", PB_STR, PB_PTR));

PB_MSG(pb_batch_job_condition, "JobCondition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(2, "status", PB_STR, PB_KEEP),
       PB_F(3, "lastProbeTime", PB_TIME, PB_KEEP),
       PB_F(4, "lastTransitionTime", PB_TIME, PB_KEEP),
       PB_F(5, "reason", PB_STR, 0), PB_F(6, "message", PB_STR, 0));

PB_MSG(pb_batch_uncounted_terminated_pods, "UncountedTerminatedPods",
       PB_F(1, "succeeded", PB_STR, PB_REP), PB_F(2, "failed", PB_STR, PB_REP));

PB_MSG(pb_batch_job_status, "JobStatus",
       PB_M(1, "conditions", pb_batch_job_condition, PB_REP),
       PB_F(2, "startTime", PB_TIME, PB_PTR),
       PB_F(3, "completionTime", PB_TIME, PB_PTR), PB_F(4, "active", PB_INT, 0),
       PB_F(5, "succeeded", PB_INT, 0), PB_F(6, "failed", PB_INT, 0),
       PB_F(11, "terminating", PB_INT, PB_PTR),
       PB_F(7, "completedIndexes", PB_STR, 0),
       PB_F(10, "failedIndexes", PB_STR, PB_PTR),
       PB_M(8, "uncountedTerminatedPods", pb_batch_uncounted_terminated_pods,
	    PB_PTR),
       PB_F(9, "ready", PB_INT, PB_PTR));

PB_MSG(pb_batch_job, "Job", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_batch_job_spec, PB_KEEP),
       PB_M(3, "status", pb_batch_job_status, PB_KEEP));

PB_MSG(pb_batch_job_list, "JobList", PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_batch_job, PB_REP | PB_KEEP));

PB_MSG(pb_batch_job_template_spec, "JobTemplateSpec",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_batch_job_spec, PB_KEEP));

PB_MSG(pb_batch_cron_job_spec, "CronJobSpec",
       PB_F(1, "schedule", PB_STR, PB_KEEP),
       PB_F(8, "timeZone", PB_STR, PB_PTR),
       PB_F(2, "startingDeadlineSeconds", PB_INT, PB_PTR),
       PB_F(3, "concurrencyPolicy", PB_STR, 0),
       PB_F(4, "suspend", PB_BOOL, PB_PTR),
       PB_M(5, "jobTemplate", pb_batch_job_template_spec, PB_KEEP),
       PB_F(6, "successfulJobsHistoryLimit", PB_INT, PB_PTR),
       PB_F(7, "failedJobsHistoryLimit", PB_INT, PB_PTR));

PB_MSG(pb_batch_cron_job_status, "CronJobStatus",
       PB_M(1, "active", pb_object_reference, PB_REP),
       PB_F(4, "lastScheduleTime", PB_TIME, PB_PTR),
       PB_F(5, "lastSuccessfulTime", PB_TIME, PB_PTR));

PB_MSG(pb_batch_cron_job, "CronJob",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_batch_cron_job_spec, PB_KEEP),
       PB_M(3, "status", pb_batch_cron_job_status, PB_KEEP));

PB_MSG(pb_batch_cron_job_list, "CronJobList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_batch_cron_job, PB_REP | PB_KEEP));
