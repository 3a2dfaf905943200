/*
 * table_cols_work: the columns of pods and workloads: deployments,
 * replica sets, stateful sets, daemon sets, jobs, cron jobs, replication
 * controllers, pod disruption budgets and horizontal pod autoscalers,
 * with their own cell functions. A pod's READY, STATUS and RESTARTS come
 * from table_pod.c.
 */
#include "proxy/table/table_cols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "proxy/table/table_age_int.h"
#include "proxy/table/table_pod_int.h"

/* spec.replicas as the apiserver defaults it (1). */
static void c_desired(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	tc_put_int(b, tc_int_of(r->d, tc_at(r, "spec.replicas"), 1));
}

/* READY of deployments and statefulsets: ready/desired. */
static void c_ready_of(struct buf *b, const struct tc_row *r, const char *arg)
{
	char s[48];
	(void)arg;
	snprintf(
		s, sizeof(s), "%lld/%lld",
		(long long)tc_int_of(r->d, tc_at(r, "status.readyReplicas"), 0),
		(long long)tc_int_of(r->d, tc_at(r, "spec.replicas"), 1));
	tc_put_str(b, s);
}

/* Containers' names (or images: arg's last member after ':') joined
 * with ','; arg is "path:member". */
static void c_containers(struct buf *b, const struct tc_row *r, const char *arg)
{
	char path[128];
	const char *colon = strchr(arg, ':');
	snprintf(path, sizeof(path), "%.*s", (int)(colon - arg), arg);
	int arr = tc_at(r, path);
	struct tc_sbuf s = { BUF_INIT, 0 };
	for (int c = tc_members(r->d, arr) ? json_first(r->d, arr) : -1; c > 0;
	     c = json_next(r->d, arr, c))
		tc_sb_token(&s, ",", r->d, json_get(r->d, c, colon + 1));
	buf_addc(&s.b, '\0');
	tc_put_str(b, s.b.p ? s.b.p : "");
	buf_free(&s.b);
}

/* A Deployment's selector.String(): empty stays empty. */
static void c_selector_raw(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	struct buf s = BUF_INIT;
	tc_selector(&s, r->d, tc_at(r, arg));
	buf_addc(&s, '\0');
	tc_put_str(b, s.p ? s.p : "");
	buf_free(&s);
}

/* printBoolPtr: "True", "False", "<unset>". */
static void c_bool_ptr(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = tc_at(r, arg);
	size_t n;
	const char *s = t >= 0 ? json_raw(r->d, t, &n) : NULL;
	if (!s || tc_is_null(r->d, t))
		tc_put_str(b, "<unset>");
	else
		tc_put_str(b, *s == 't' ? "True" : "False");
}

/* The age of the timestamp at arg, "<none>" when unset. */
static void c_since_or_none(struct buf *b, const struct tc_row *r,
			    const char *arg)
{
	int t = tc_at(r, arg);
	if (tc_is_null(r->d, t))
		tc_put_str(b, "<none>");
	else
		tc_put_since(b, r, t);
}

/* The first condition of that type decides (hasJobCondition). */
static bool cond_true(const struct json_doc *d, int conds, const char *type)
{
	for (int c = tc_members(d, conds) ? json_first(d, conds) : -1; c > 0;
	     c = json_next(d, conds, c))
		if (tc_str_eq(d, json_get(d, c, "type"), type))
			return tc_str_eq(d, json_get(d, c, "status"), "True");
	return false;
}

static void c_job_status(struct buf *b, const struct tc_row *r, const char *arg)
{
	int conds = tc_at(r, "status.conditions");
	(void)arg;
	tc_put_str(b,
		   cond_true(r->d, conds, "Complete") ? "Complete" :
		   cond_true(r->d, conds, "Failed")   ? "Failed" :
		   !tc_is_null(r->d, tc_at(r, "metadata.deletionTimestamp")) ?
						      "Terminating" :
		   cond_true(r->d, conds, "Suspended")	   ? "Suspended" :
		   cond_true(r->d, conds, "FailureTarget") ? "FailureTarget" :
							     "Running");
}

static void c_job_completions(struct buf *b, const struct tc_row *r,
			      const char *arg)
{
	char s[80];
	long long ok =
		(long long)tc_int_of(r->d, tc_at(r, "status.succeeded"), 0);
	int comp = tc_at(r, "spec.completions");
	long long par =
		(long long)tc_int_of(r->d, tc_at(r, "spec.parallelism"), 0);
	(void)arg;
	if (!tc_is_null(r->d, comp))
		snprintf(s, sizeof(s), "%lld/%lld", ok,
			 (long long)tc_int_of(r->d, comp, 0));
	else if (par > 1)
		snprintf(s, sizeof(s), "%lld/1 of %lld", ok, par);
	else
		snprintf(s, sizeof(s), "%lld/1", ok);
	tc_put_str(b, s);
}

static void c_job_duration(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	int64_t start, end;
	char s[32] = "";
	(void)arg;
	if (tc_time_of(r->d, tc_at(r, "status.startTime"), &start)) {
		if (!tc_time_of(r->d, tc_at(r, "status.completionTime"), &end))
			end = (int64_t)r->now;
		proxy_table_age_human(end - start, s, sizeof(s));
	}
	tc_put_str(b, s);
}

/* An IntOrString at arg as its String(), "N/A" when unset. */
static void c_int_or_str(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = tc_at(r, arg);
	size_t n;
	if (tc_is_null(r->d, t)) {
		tc_put_str(b, "N/A");
	} else if (tc_is_str(r->d, t)) {
		tc_put_token_str(b, r->d, t);
	} else {
		const char *s = json_raw(r->d, t, &n);
		buf_add_json_str(b, s, n);
	}
}

/* ---- horizontal pod autoscalers ---- */

/* The quantity string at path under t, or "<unknown>". */
static char *qty(const struct json_doc *d, int t, const char *path)
{
	int v = t >= 0 ? json_path(d, t, path) : -1;
	return tc_is_str(d, v) ? tc_dup_str(d, v) : xstrdup("<unknown>");
}

/* One metric of formatHPAMetrics: spec m, status st (or -1). */
static void hpa_metric(struct buf *out, const struct json_doc *d, int m, int st)
{
	char *type = tc_dup_str(d, json_get(d, m, "type"));
	const char *src = !strcmp(type, "External") ? "external" :
			  !strcmp(type, "Pods")	    ? "pods" :
			  !strcmp(type, "Object")   ? "object" :
			  !strcmp(type, "Resource") ? "resource" :
			  !strcmp(type, "ContainerResource") ?
						      "containerResource" :
						      NULL;
	int spec = src ? json_get(d, m, src) : -1;
	int cur = src && st >= 0 ? json_get(d, st, src) : -1;
	int target = json_get(d, spec, "target");
	bool avg = !tc_is_null(d, json_get(d, target, "averageValue"));
	char *c = NULL, *t = NULL;

	if (!src) {
		buf_adds(out, "<unknown type>");
	} else if (!strcmp(src, "pods")) {
		c = qty(d, cur, "current.averageValue");
		t = qty(d, target, "averageValue");
		buf_printf(out, "%s/%s", c, t);
	} else if (!strcmp(src, "external") || !strcmp(src, "object")) {
		c = qty(d, cur, avg ? "current.averageValue" : "current.value");
		t = qty(d, target, avg ? "averageValue" : "value");
		buf_printf(out, avg ? "%s/%s (avg)" : "%s/%s", c, t);
	} else {
		char *name = tc_dup_str(d, json_get(d, spec, "name"));
		if (avg) {
			c = qty(d, cur, "current.averageValue");
			t = qty(d, target, "averageValue");
		} else {
			int cu = cur >= 0 ?
					 json_path(
						 d, cur,
						 "current.averageUtilization") :
					 -1;
			int tu = json_get(d, target, "averageUtilization");
			char tmp[32];
			if (tc_is_null(d, cu)) {
				c = xstrdup("<unknown>");
			} else {
				snprintf(tmp, sizeof(tmp), "%lld%%",
					 (long long)tc_int_of(d, cu, 0));
				c = xstrdup(tmp);
			}
			if (tc_is_null(d, tu)) {
				t = xstrdup("<auto>");
			} else {
				snprintf(tmp, sizeof(tmp), "%lld%%",
					 (long long)tc_int_of(d, tu, 0));
				t = xstrdup(tmp);
			}
		}
		buf_printf(out, "%s: %s/%s", name, c, t);
		free(name);
	}
	free(c);
	free(t);
	free(type);
}

/* TARGETS: the first two metrics, current/target each, then
 * " + N more..."; "<none>" without metrics. */
static void c_hpa_targets(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	int ms = tc_at(r, "spec.metrics"),
	    sts = tc_at(r, "status.currentMetrics");
	int n = tc_members(r->d, ms), nst = tc_members(r->d, sts), i = 0;
	struct buf s = BUF_INIT;
	(void)arg;
	if (!n) {
		tc_put_str(b, "<none>");
		return;
	}
	for (int m = json_first(r->d, ms); m > 0 && i < 2;
	     m = json_next(r->d, ms, m), i++) {
		int st = -1, k = 0;
		for (int x = i < nst ? json_first(r->d, sts) : -1; x > 0;
		     x = json_next(r->d, sts, x))
			if (k++ == i) {
				st = x;
				break;
			}
		if (i)
			buf_adds(&s, ", ");
		hpa_metric(&s, r->d, m, st);
	}
	if (n > 2)
		buf_printf(&s, " + %d more...", n - 2);
	tc_put_buf(b, &s);
}

static void c_hpa_min(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = tc_at(r, "spec.minReplicas");
	char s[24];
	(void)arg;
	if (tc_is_null(r->d, t)) {
		tc_put_str(b, "<unset>");
		return;
	}
	snprintf(s, sizeof(s), "%lld", (long long)tc_int_of(r->d, t, 0));
	tc_put_str(b, s);
}

/* ---- pods ---- */

/* The row's pod summary: made by the first column that asks, or for
 * each when the row keeps none (own). */
static const struct proxy_table_pod_summary *
pod_summary(const struct tc_row *r, struct proxy_table_pod_summary *own)
{
	if (!r->pod) {
		proxy_table_pod_summary(r->d, r->now, own);
		return own;
	}
	if (!r->pod->made) {
		proxy_table_pod_summary(r->d, r->now, &r->pod->sum);
		r->pod->made = true;
	}
	return &r->pod->sum;
}

static void c_pod_ready(struct buf *b, const struct tc_row *r, const char *arg)
{
	struct proxy_table_pod_summary own;
	const struct proxy_table_pod_summary *sum = pod_summary(r, &own);
	char s[48];
	(void)arg;
	snprintf(s, sizeof(s), "%d/%d", sum->ready, sum->total);
	tc_put_str(b, s);
}

static void c_pod_status(struct buf *b, const struct tc_row *r, const char *arg)
{
	struct proxy_table_pod_summary own;
	(void)arg;
	tc_put_str(b, pod_summary(r, &own)->status);
}

static void c_pod_restarts(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	struct proxy_table_pod_summary own;
	(void)arg;
	tc_put_str(b, pod_summary(r, &own)->restarts);
}

/* IP: the first of status.podIPs (status.podIP for an object written
 * before there were several), "<none>". */
static void c_pod_ip(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ips = tc_at(r, "status.podIPs");
	char *ip = tc_dup_str(
		r->d, tc_members(r->d, ips) ?
			      json_get(r->d, json_first(r->d, ips), "ip") :
			      tc_at(r, "status.podIP"));
	(void)arg;
	tc_put_str(b, ip[0] ? ip : "<none>");
	free(ip);
}

/* The string at arg, "<none>" when absent or empty. */
static void c_str_or_none_empty(struct buf *b, const struct tc_row *r,
				const char *arg)
{
	char *s = tc_dup_str(r->d, tc_at(r, arg));
	tc_put_str(b, s[0] ? s : "<none>");
	free(s);
}

/* READINESS GATES: how many of them have a True condition, of how many;
 * "<none>" without gates. */
static void c_pod_gates(struct buf *b, const struct tc_row *r, const char *arg)
{
	int gates = tc_at(r, "spec.readinessGates"),
	    conds = tc_at(r, "status.conditions");
	int ok = 0;
	char s[48];
	(void)arg;
	if (!tc_members(r->d, gates)) {
		tc_put_str(b, "<none>");
		return;
	}
	for (int g = json_first(r->d, gates); g > 0;
	     g = json_next(r->d, gates, g)) {
		char *type =
			tc_dup_str(r->d, json_get(r->d, g, "conditionType"));
		for (int c = tc_members(r->d, conds) ? json_first(r->d, conds) :
						       -1;
		     c > 0; c = json_next(r->d, conds, c))
			if (tc_str_eq(r->d, json_get(r->d, c, "type"), type)) {
				ok += tc_str_eq(r->d,
						json_get(r->d, c, "status"),
						"True");
				break;
			}
		free(type);
	}
	snprintf(s, sizeof(s), "%d/%d", ok, tc_members(r->d, gates));
	tc_put_str(b, s);
}

/* CONTROLLER of a ControllerRevision: the owner that is its controller,
 * as "kind.group/name" in lower case ("daemonset.apps/ds-0"), "<none>". */
static void c_controller(struct buf *b, const struct tc_row *r, const char *arg)
{
	int refs = tc_at(r, "metadata.ownerReferences");
	(void)arg;
	for (int o = tc_members(r->d, refs) ? json_first(r->d, refs) : -1;
	     o > 0; o = json_next(r->d, refs, o)) {
		int c = json_get(r->d, o, "controller");
		size_t n;
		if (c < 0 || *json_raw(r->d, c, &n) != 't')
			continue;
		char *api = tc_dup_str(r->d, json_get(r->d, o, "apiVersion"));
		char *kind = tc_dup_str(r->d, json_get(r->d, o, "kind"));
		char *name = tc_dup_str(r->d, json_get(r->d, o, "name"));
		char *slash = strchr(api, '/');
		struct buf t = BUF_INIT;
		/* the group of "apps/v1"; "v1" is the core group's */
		if (slash)
			*slash = '\0';
		if (kind[0] || (slash && api[0])) {
			buf_adds(&t, kind);
			if (slash && api[0])
				buf_printf(&t, ".%s", api);
			buf_addc(&t, '/');
		}
		buf_adds(&t, name);
		buf_addc(&t, '\0');
		for (char *q = t.p; q && *q && *q != '/'; q++)
			if (*q >= 'A' && *q <= 'Z')
				*q = (char)(*q - 'A' + 'a');
		tc_put_str(b, t.p ? t.p : "");
		buf_free(&t);
		free(api);
		free(kind);
		free(name);
		return;
	}
	tc_put_str(b, "<none>");
}

static const char containers_desc[] =
	"Names of each container in the template.";
static const char images_desc[] =
	"Images referenced by each container in the template.";
#define CONTAINERS(path)                                              \
	{ "Containers", "string",    "", containers_desc, 1,          \
	  c_containers, path ":name" },                               \
	{                                                             \
		"Images", "string", "", images_desc, 1, c_containers, \
			path ":image"                                 \
	}

/*
 * What a pod's row reads (the columns above and table_pod.c's summary):
 * the metadata but managedFields; of spec, nodeName, readinessGates, how
 * many containers there are, and each init container's name and
 * restartPolicy; all of status. The rest of spec (each container's spec,
 * volumes, tolerations, affinity: most of a pod's bytes after
 * managedFields) is skipped, one token each.
 */
static const struct json_shape skip_each = { &json_shape_skip, 0, NULL };
static const struct json_shape init_each = { &skip_each, 0, NULL };
static const struct json_shape_key pod_spec_keys[] = {
	{ "containers", 10, &skip_each },
	{ "initContainers", 14, &init_each },
	{ "readinessGates", 14, NULL },
};
static const struct json_shape pod_spec = { &json_shape_skip, 3,
					    pod_spec_keys };
static const struct json_shape_key pod_keys[] = {
	{ "metadata", 8, &tc_meta_shape },
	{ "spec", 4, &pod_spec },
};
const struct json_shape tc_pod_shape = { NULL, 2, pod_keys };

const struct tc_col tc_pod_cols[] = {
	NAME_COL,
	{ "Ready", "string", "",
	  "The aggregate readiness state of this pod for accepting traffic.", 0,
	  c_pod_ready, NULL },
	{ "Status", "string", "",
	  "The aggregate status of the containers in this pod.", 0,
	  c_pod_status, NULL },
	{ "Restarts", "string", "",
	  "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
	  0, c_pod_restarts, NULL },
	AGE_COL,
	{ "IP", "string", "",
	  "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
	  1, c_pod_ip, NULL },
	{ "Node", "string", "",
	  "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
	  1, c_str_or_none_empty, "spec.nodeName" },
	{ "Nominated Node", "string", "",
	  "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
	  1, c_str_or_none_empty, "status.nominatedNodeName" },
	{ "Readiness Gates", "string", "",
	  "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
	  1, c_pod_gates, NULL },
	TC_END,
};

const struct tc_col tc_deployment_cols[] = {
	NAME_COL,
	{ "Ready", "string", "", "Number of the pod with ready state", 0,
	  c_ready_of, NULL },
	{ "Up-to-date", "string", "",
	  "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
	  0, tc_cell_int, "status.updatedReplicas" },
	{ "Available", "string", "",
	  "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
	  0, tc_cell_int, "status.availableReplicas" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
	  1, c_selector_raw, "spec.selector" },
	TC_END,
};

const struct tc_col tc_replicaset_cols[] = {
	NAME_COL,
	{ "Desired", "integer", "",
	  "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
	  0, c_desired, NULL },
	{ "Current", "integer", "",
	  "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
	  0, tc_cell_int, "status.replicas" },
	{ "Ready", "integer", "",
	  "The number of ready replicas for this replica set.", 0, tc_cell_int,
	  "status.readyReplicas" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, tc_cell_selector, "spec.selector" },
	TC_END,
};

const struct tc_col tc_statefulset_cols[] = {
	NAME_COL,
	{ "Ready", "string", "", "Number of the pod with ready state", 0,
	  c_ready_of, NULL },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	TC_END,
};

const struct tc_col tc_daemonset_cols[] = {
	NAME_COL,
	{ "Desired", "integer", "",
	  "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
	  0, tc_cell_int, "status.desiredNumberScheduled" },
	{ "Current", "integer", "",
	  "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
	  0, tc_cell_int, "status.currentNumberScheduled" },
	{ "Ready", "integer", "",
	  "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
	  0, tc_cell_int, "status.numberReady" },
	{ "Up-to-date", "integer", "",
	  "The total number of nodes that are running updated daemon pod", 0,
	  tc_cell_int, "status.updatedNumberScheduled" },
	{ "Available", "integer", "",
	  "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
	  0, tc_cell_int, "status.numberAvailable" },
	{ "Node Selector", "string", "",
	  "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
	  0, tc_cell_labels, "spec.template.spec.nodeSelector" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, tc_cell_selector, "spec.selector" },
	TC_END,
};

const struct tc_col tc_job_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "Status of the job.", 0, c_job_status, NULL },
	{ "Completions", "string", "",
	  "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
	  0, c_job_completions, NULL },
	{ "Duration", "string", "", "Time required to complete the job.", 0,
	  c_job_duration, NULL },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, tc_cell_selector, "spec.selector" },
	TC_END,
};

const struct tc_col tc_cronjob_cols[] = {
	NAME_COL,
	{ "Schedule", "string", "",
	  "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
	  0, tc_cell_str, "spec.schedule" },
	{ "Timezone", "string", "",
	  "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
	  0, tc_cell_str_or_none, "spec.timeZone" },
	{ "Suspend", "boolean", "",
	  "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
	  0, c_bool_ptr, "spec.suspend" },
	{ "Active", "integer", "",
	  "A list of pointers to currently running jobs.", 0, tc_cell_count,
	  "status.active" },
	{ "Last Schedule", "string", "",
	  "Information when was the last time the job was successfully scheduled.",
	  0, c_since_or_none, "status.lastScheduleTime" },
	AGE_COL,
	CONTAINERS("spec.jobTemplate.spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, tc_cell_selector, "spec.jobTemplate.spec.selector" },
	TC_END,
};

const struct tc_col tc_replicationcontroller_cols[] = {
	NAME_COL,
	{ "Desired", "integer", "",
	  "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
	  0, c_desired, NULL },
	{ "Current", "integer", "",
	  "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
	  0, tc_cell_int, "status.replicas" },
	{ "Ready", "integer", "",
	  "The number of ready replicas for this replication controller.", 0,
	  tc_cell_int, "status.readyReplicas" },
	AGE_COL,
	CONTAINERS("spec.template.spec.containers"),
	{ "Selector", "string", "",
	  "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
	  1, tc_cell_labels, "spec.selector" },
	TC_END,
};

const struct tc_col tc_pdb_cols[] = {
	NAME_COL,
	{ "Min Available", "string", "",
	  "The minimum number of pods that must be available.", 0, c_int_or_str,
	  "spec.minAvailable" },
	{ "Max Unavailable", "string", "",
	  "The maximum number of pods that may be unavailable.", 0,
	  c_int_or_str, "spec.maxUnavailable" },
	{ "Allowed Disruptions", "integer", "",
	  "Calculated number of pods that may be disrupted at this time.", 0,
	  tc_cell_int, "status.disruptionsAllowed" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_hpa_cols[] = {
	NAME_COL,
	{ "Reference", "string", "",
	  "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
	  0, tc_cell_kind_name, "spec.scaleTargetRef" },
	{ "Targets", "string", "",
	  "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.",
	  0, c_hpa_targets, NULL },
	{ "MinPods", "string", "",
	  "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
	  0, c_hpa_min, NULL },
	{ "MaxPods", "string", "",
	  "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
	  0, tc_cell_int, "spec.maxReplicas" },
	{ "Replicas", "string", "",
	  "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
	  0, tc_cell_int, "status.currentReplicas" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_podtemplate_cols[] = {
	NAME_COL,
	{ "Containers", "string", "",
	  "Names of each container in the template.", 0, c_containers,
	  "template.spec.containers:name" },
	{ "Images", "string", "",
	  "Images referenced by each container in the template.", 0,
	  c_containers, "template.spec.containers:image" },
	{ "Pod Labels", "string", "", "The labels for the pod template.", 0,
	  tc_cell_labels, "template.metadata.labels" },
	TC_END,
};

const struct tc_col tc_controllerrevision_cols[] = {
	NAME_COL,
	{ "Controller", "string", "", "Controller of the object", 0,
	  c_controller, NULL },
	{ "Revision", "string", "",
	  "revision indicates the revision of the state represented by Data.",
	  0, tc_cell_int, "revision" },
	AGE_COL,
	TC_END,
};
