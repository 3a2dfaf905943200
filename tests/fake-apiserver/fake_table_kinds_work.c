/*
 * fake_table_kinds_work: the printers of the workloads (deployments,
 * replica sets, stateful sets, daemon sets, jobs, cron jobs,
 * replication controllers), pod disruption budgets and horizontal pod
 * autoscalers (see fake_table_kinds_int.h).
 */
#include "fake_table_kinds_int.h"

#include <stdio.h>
#include <string.h>

#include "fake_table.h"

json_t *tk_print_deployment(json_t *o, time_t now)
{
	json_t *r = tk_row();
	struct tk_list sel = { "", 0 };
	tk_name_cell(r, o);
	tk_push(r, tk_fmt("%lld/%lld",
			  (long long)tk_iget(o, "status.readyReplicas", 0),
			  (long long)tk_iget(o, "spec.replicas", 1)));
	tk_push(r, json_integer(tk_iget(o, "status.updatedReplicas", 0)));
	tk_push(r, json_integer(tk_iget(o, "status.availableReplicas", 0)));
	tk_age_cell(r, o, now);
	tk_template_cells(r, tk_get(o, "spec.template.spec"));
	tk_selector_string(tk_get(o, "spec.selector"), &sel);
	tk_push(r, tk_str(sel.s));
	return r;
}

/* A ReplicaSet's and a ReplicationController's columns: the same but
 * for how the selector is written (selector, the last cell). */
static json_t *replicas_row(json_t *o, time_t now, json_t *selector)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, json_integer(tk_iget(o, "spec.replicas", 1)));
	tk_push(r, json_integer(tk_iget(o, "status.replicas", 0)));
	tk_push(r, json_integer(tk_iget(o, "status.readyReplicas", 0)));
	tk_age_cell(r, o, now);
	tk_template_cells(r, tk_get(o, "spec.template.spec"));
	tk_push(r, selector);
	return r;
}

json_t *tk_print_replicaset(json_t *o, time_t now)
{
	return replicas_row(o, now,
			    tk_selector_cell(tk_get(o, "spec.selector")));
}

json_t *tk_print_statefulset(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, tk_fmt("%lld/%lld",
			  (long long)tk_iget(o, "status.readyReplicas", 0),
			  (long long)tk_iget(o, "spec.replicas", 1)));
	tk_age_cell(r, o, now);
	tk_template_cells(r, tk_get(o, "spec.template.spec"));
	return r;
}

json_t *tk_print_daemonset(json_t *o, time_t now)
{
	static const char *const nums[] = {
		"desiredNumberScheduled", "currentNumberScheduled",
		"numberReady", "updatedNumberScheduled", "numberAvailable"
	};
	json_t *r = tk_row(), *st = json_object_get(o, "status");
	tk_name_cell(r, o);
	for (size_t i = 0; i < 5; i++)
		tk_push(r, json_integer(tk_iget(st, nums[i], 0)));
	tk_push(r,
		tk_labels_cell(tk_get(o, "spec.template.spec.nodeSelector")));
	tk_age_cell(r, o, now);
	tk_template_cells(r, tk_get(o, "spec.template.spec"));
	tk_push(r, tk_selector_cell(tk_get(o, "spec.selector")));
	return r;
}

/* hasJobCondition */
static bool job_cond(json_t *o, const char *type)
{
	size_t i;
	json_t *c;
	json_array_foreach(tk_get(o, "status.conditions"), i, c)
	{
		if (!strcmp(tk_sget(c, "type"), type))
			return !strcmp(tk_sget(c, "status"), "True");
	}
	return false;
}

json_t *tk_print_job(json_t *o, time_t now)
{
	json_t *r = tk_row();
	long long ok = tk_iget(o, "status.succeeded", 0);
	long long par = tk_iget(o, "spec.parallelism", 0);
	long long start = tk_parse_time(tk_sget(o, "status.startTime"));
	long long end = tk_parse_time(tk_sget(o, "status.completionTime"));
	char dur[32] = "";
	const char *status = "Running";

	if (job_cond(o, "Complete"))
		status = "Complete";
	else if (job_cond(o, "Failed"))
		status = "Failed";
	else if (tk_get(o, "metadata.deletionTimestamp"))
		status = "Terminating";
	else if (job_cond(o, "Suspended"))
		status = "Suspended";
	else if (job_cond(o, "FailureTarget"))
		status = "FailureTarget";
	tk_name_cell(r, o);
	tk_push(r, tk_str(status));
	if (tk_get(o, "spec.completions"))
		tk_push(r,
			tk_fmt("%lld/%lld", ok,
			       (long long)tk_iget(o, "spec.completions", 0)));
	else if (par > 1)
		tk_push(r, tk_fmt("%lld/1 of %lld", ok, par));
	else
		tk_push(r, tk_fmt("%lld/1", ok));
	if (start >= 0)
		fake_human_duration((end >= 0 ? end : (long long)now) - start,
				    dur, sizeof(dur));
	tk_push(r, tk_str(dur));
	tk_age_cell(r, o, now);
	tk_template_cells(r, tk_get(o, "spec.template.spec"));
	tk_push(r, tk_selector_cell(tk_get(o, "spec.selector")));
	return r;
}

json_t *tk_print_cronjob(json_t *o, time_t now)
{
	json_t *r = tk_row(), *susp = tk_get(o, "spec.suspend");
	json_t *last = tk_get(o, "status.lastScheduleTime");
	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_sget(o, "spec.schedule")));
	tk_push(r, tk_str(tk_get(o, "spec.timeZone") ?
				  tk_sget(o, "spec.timeZone") :
				  "<none>"));
	tk_push(r, tk_str(!susp		     ? "<unset>" :
			  json_is_true(susp) ? "True" :
					       "False"));
	tk_push(r, json_integer((json_int_t)json_array_size(
			   tk_get(o, "status.active"))));
	tk_push(r, last ? tk_since(json_string_value(last), now) :
			  tk_str("<none>"));
	tk_age_cell(r, o, now);
	tk_template_cells(r, tk_get(o, "spec.jobTemplate.spec.template.spec"));
	tk_push(r,
		tk_selector_cell(tk_get(o, "spec.jobTemplate.spec.selector")));
	return r;
}

json_t *tk_print_rc(json_t *o, time_t now)
{
	return replicas_row(o, now, tk_labels_cell(tk_get(o, "spec.selector")));
}

/* An IntOrString's String(), "N/A" when unset. */
static json_t *int_or_string(json_t *v)
{
	if (!v)
		return tk_str("N/A");
	if (json_is_integer(v))
		return tk_fmt("%lld", (long long)json_integer_value(v));
	return tk_str(json_string_value(v) ?: "");
}

json_t *tk_print_pdb(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, int_or_string(tk_get(o, "spec.minAvailable")));
	tk_push(r, int_or_string(tk_get(o, "spec.maxUnavailable")));
	tk_push(r, json_integer(tk_iget(o, "status.disruptionsAllowed", 0)));
	tk_age_cell(r, o, now);
	return r;
}

/* A quantity string at path under v, or "<unknown>". */
static const char *qty_or_unknown(json_t *v, const char *path)
{
	const char *q = json_string_value(tk_get(v, path));
	return q ? q : "<unknown>";
}

/* formatHPAMetrics */
static json_t *hpa_targets(json_t *o)
{
	json_t *specs = tk_get(o, "spec.metrics"),
	       *stats = tk_get(o, "status.currentMetrics");
	json_t *m;
	struct tk_list l = { "", 0 };
	size_t i, n = json_array_size(specs);

	if (!n)
		return tk_str("<none>");
	json_array_foreach(specs, i, m)
	{
		char one[512];
		const char *type = tk_sget(m, "type");
		json_t *st = json_array_get(stats, i);
		if (i == 2)
			break;
		if (!strcmp(type, "Pods")) {
			snprintf(
				one, sizeof(one), "%s/%s",
				qty_or_unknown(st, "pods.current.averageValue"),
				qty_or_unknown(m, "pods.target.averageValue"));
		} else if (!strcmp(type, "Object") ||
			   !strcmp(type, "External")) {
			const char *src =
				!strcmp(type, "Object") ? "object" : "external";
			json_t *spec = json_object_get(m, src);
			json_t *cur = json_object_get(st, src);
			if (tk_get(spec, "target.averageValue"))
				snprintf(one, sizeof(one), "%s/%s (avg)",
					 qty_or_unknown(cur,
							"current.averageValue"),
					 qty_or_unknown(spec,
							"target.averageValue"));
			else
				snprintf(one, sizeof(one), "%s/%s",
					 qty_or_unknown(cur, "current.value"),
					 qty_or_unknown(spec, "target.value"));
		} else if (!strcmp(type, "Resource") ||
			   !strcmp(type, "ContainerResource")) {
			const char *src = !strcmp(type, "Resource") ?
						  "resource" :
						  "containerResource";
			json_t *spec = json_object_get(m, src);
			json_t *cur = json_object_get(st, src);
			if (tk_get(spec, "target.averageValue")) {
				snprintf(one, sizeof(one), "%s: %s/%s",
					 tk_sget(spec, "name"),
					 qty_or_unknown(cur,
							"current.averageValue"),
					 qty_or_unknown(spec,
							"target.averageValue"));
			} else {
				char c[32] = "<unknown>", t[32] = "<auto>";
				if (tk_get(cur, "current.averageUtilization"))
					snprintf(
						c, sizeof(c), "%lld%%",
						(long long)tk_iget(
							cur,
							"current.averageUtilization",
							0));
				if (tk_get(spec, "target.averageUtilization"))
					snprintf(
						t, sizeof(t), "%lld%%",
						(long long)tk_iget(
							spec,
							"target.averageUtilization",
							0));
				snprintf(one, sizeof(one), "%s: %s/%s",
					 tk_sget(spec, "name"), c, t);
			}
		} else {
			snprintf(one, sizeof(one), "<unknown type>");
		}
		tk_add(&l, ", ", one);
	}
	if (n > 2)
		return tk_fmt("%s + %zu more...", l.s, n - 2);
	return tk_str(l.s);
}

json_t *tk_print_hpa(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, tk_fmt("%s/%s", tk_sget(o, "spec.scaleTargetRef.kind"),
			  tk_sget(o, "spec.scaleTargetRef.name")));
	tk_push(r, hpa_targets(o));
	tk_push(r, tk_get(o, "spec.minReplicas") ?
			   tk_fmt("%lld", (long long)tk_iget(
						  o, "spec.minReplicas", 0)) :
			   tk_str("<unset>"));
	tk_push(r, json_integer(tk_iget(o, "spec.maxReplicas", 0)));
	tk_push(r, json_integer(tk_iget(o, "status.currentReplicas", 0)));
	tk_age_cell(r, o, now);
	return r;
}
