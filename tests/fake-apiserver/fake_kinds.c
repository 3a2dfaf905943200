/*
 * fake_kinds: the kinds --all-kinds adds and their seed objects (see
 * fake_kinds.h).
 *
 * Each seed is one of a few variants picked by idx, so that a handful of
 * objects covers the interesting cases of every column: a LoadBalancer
 * still pending and one with ingress points, a job complete, failed,
 * suspended and running, an event with a series, with only an eventTime,
 * with a reporting controller instead of a source, and so on.
 */
#include "fake_kinds.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fake_res.h"

static bool enabled;

static const struct fake_res extra[] = {
	{ .resource = "deployments",
	  .group = "apps",
	  .version = "v1",
	  .api_version = "apps/v1",
	  .key = "deployments.apps",
	  .singular = "deployment",
	  .kind = "Deployment",
	  .list_kind = "DeploymentList",
	  .namespaced = true,
	  .short_name = "deploy",
	  .category_all = true,
	  .hash = "8aSe+NMegvE=",
	  .fields = { NULL },
	  .bookmark_tail = ",\"spec\":{\"selector\":null,\"template\":"
			   "{\"metadata\":{},\"spec\":{\"containers\":null}},"
			   "\"strategy\":{}},\"status\":{}" },
	{ .resource = "replicasets",
	  .group = "apps",
	  .version = "v1",
	  .api_version = "apps/v1",
	  .key = "replicasets.apps",
	  .singular = "replicaset",
	  .kind = "ReplicaSet",
	  .list_kind = "ReplicaSetList",
	  .namespaced = true,
	  .short_name = "rs",
	  .category_all = true,
	  .hash = "P1RzHs8/mWQ=",
	  .fields = { "status.replicas", NULL },
	  .bookmark_tail = ",\"spec\":{\"selector\":null},"
			   "\"status\":{\"replicas\":0}" },
	{ .resource = "statefulsets",
	  .group = "apps",
	  .version = "v1",
	  .api_version = "apps/v1",
	  .key = "statefulsets.apps",
	  .singular = "statefulset",
	  .kind = "StatefulSet",
	  .list_kind = "StatefulSetList",
	  .namespaced = true,
	  .short_name = "sts",
	  .category_all = true,
	  .hash = "H+vl74LkKdo=",
	  .fields = { NULL },
	  .bookmark_tail =
		  ",\"spec\":{\"selector\":null,\"template\":"
		  "{\"metadata\":{},\"spec\":{\"containers\":null}},"
		  "\"serviceName\":\"\",\"updateStrategy\":{}},"
		  "\"status\":{\"replicas\":0,\"availableReplicas\":0}" },
	{ .resource = "daemonsets",
	  .group = "apps",
	  .version = "v1",
	  .api_version = "apps/v1",
	  .key = "daemonsets.apps",
	  .singular = "daemonset",
	  .kind = "DaemonSet",
	  .list_kind = "DaemonSetList",
	  .namespaced = true,
	  .short_name = "ds",
	  .category_all = true,
	  .hash = "dd7pWHUlMKQ=",
	  .fields = { NULL },
	  .bookmark_tail = ",\"spec\":{\"selector\":null,\"template\":"
			   "{\"metadata\":{},\"spec\":{\"containers\":null}},"
			   "\"updateStrategy\":{}},\"status\":"
			   "{\"currentNumberScheduled\":0,"
			   "\"numberMisscheduled\":0,"
			   "\"desiredNumberScheduled\":0,\"numberReady\":0}" },
	{ .resource = "jobs",
	  .group = "batch",
	  .version = "v1",
	  .api_version = "batch/v1",
	  .key = "jobs.batch",
	  .singular = "job",
	  .kind = "Job",
	  .list_kind = "JobList",
	  .namespaced = true,
	  .category_all = true,
	  .hash = "mudhfqk/qZY=",
	  .fields = { "status.successful", NULL },
	  .paths = { "status.succeeded" },
	  .bookmark_tail = ",\"spec\":{\"template\":{\"metadata\":{},"
			   "\"spec\":{\"containers\":null}}},\"status\":{}" },
	{ .resource = "cronjobs",
	  .group = "batch",
	  .version = "v1",
	  .api_version = "batch/v1",
	  .key = "cronjobs.batch",
	  .singular = "cronjob",
	  .kind = "CronJob",
	  .list_kind = "CronJobList",
	  .namespaced = true,
	  .short_name = "cj",
	  .category_all = true,
	  .hash = "sd5LIXh4Fjs=",
	  .fields = { NULL },
	  .bookmark_tail = ",\"spec\":{\"schedule\":\"\",\"jobTemplate\":"
			   "{\"spec\":{\"template\":{\"metadata\":{},\"spec\":"
			   "{\"containers\":null}}}}},\"status\":{}" },
	{ .resource = "secrets",
	  .group = "",
	  .version = "v1",
	  .api_version = "v1",
	  .key = "secrets",
	  .singular = "secret",
	  .kind = "Secret",
	  .list_kind = "SecretList",
	  .namespaced = true,
	  .hash = "S6u1pOWzb84=",
	  .fields = { "type", NULL },
	  .bookmark_tail = "" },
	{ .resource = "serviceaccounts",
	  .group = "",
	  .version = "v1",
	  .api_version = "v1",
	  .key = "serviceaccounts",
	  .singular = "serviceaccount",
	  .kind = "ServiceAccount",
	  .list_kind = "ServiceAccountList",
	  .namespaced = true,
	  .short_name = "sa",
	  .hash = "pbx9ZvyFpBE=",
	  .fields = { NULL },
	  .bookmark_tail = "" },
	{ .resource = "endpoints",
	  .group = "",
	  .version = "v1",
	  .api_version = "v1",
	  .key = "endpoints",
	  .singular = "endpoints",
	  .kind = "Endpoints",
	  .list_kind = "EndpointsList",
	  .namespaced = true,
	  .short_name = "ep",
	  .hash = "fWeeMqaN/OA=",
	  .fields = { NULL },
	  .bookmark_tail = "" },
};

int fake_kinds_enable(void)
{
	size_t n = sizeof(extra) / sizeof(extra[0]);
	if (enabled)
		return 0;
	if ((size_t)fake_nres + n > FAKE_RES_MAX)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		fake_res_table[fake_nres++] = extra[i];
	enabled = true;
	return 0;
}

bool fake_kinds_enabled(void)
{
	return enabled;
}

/* --- seeds ----------------------------------------------------------- */

/* 2026-01-01T00:00:00Z, the fake's seed epoch; objects are older. */
#define CREATED "2025-11-0%uT0%u:00:00Z"

static void meta(struct buf *b, const char *kind, const char *api,
		 const char *prefix, unsigned idx, const char *ns, uint64_t rv)
{
	buf_printf(b,
		   "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{"
		   "\"name\":\"%s-%u\",",
		   kind, api, prefix, idx);
	if (ns)
		buf_printf(b, "\"namespace\":\"%s\",", ns);
	buf_printf(
		b,
		"\"uid\":\"7a1e0000-0000-4000-8000-%012x\","
		"\"resourceVersion\":\"%llu\",\"creationTimestamp\":\"" CREATED
		"\",\"labels\":{\"app\":\"%s-%u\"}}",
		(unsigned)(idx * 977 + (unsigned)strlen(kind)),
		(unsigned long long)rv, 1 + idx % 9, idx % 10, prefix, idx);
}

/* Template t with every '@' replaced by v. */
static void put_tmpl(struct buf *b, const char *t, const char *v)
{
	for (const char *at; (at = strchr(t, '@')); t = at + 1) {
		buf_add(b, t, (size_t)(at - t));
		buf_adds(b, v);
	}
	buf_adds(b, t);
}

static const char *const selectors[] = {
	"{\"matchLabels\":{\"app\":\"@\"}}",
	"{\"matchLabels\":{\"app\":\"@\",\"tier\":\"web\"},"
	"\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\","
	"\"values\":[\"prod\",\"canary\"]},{\"key\":\"zone\",\"operator\":"
	"\"NotIn\",\"values\":[\"b\",\"a\"]}]}",
	"{\"matchLabels\":{\"app\":\"@\"},\"matchExpressions\":[{\"key\":"
	"\"gpu\",\"operator\":\"Exists\"},{\"key\":\"legacy\",\"operator\":"
	"\"DoesNotExist\"}]}",
};

static const char *const containers[] = {
	"[{\"name\":\"web\",\"image\":\"nginx:1.27\"}]",
	"[{\"name\":\"app\",\"image\":\"registry.example.com/app:2.1\"},"
	"{\"name\":\"sidecar\",\"image\":\"busybox:1.36\"}]",
	"[{\"name\":\"worker\",\"image\":\"python:3.12-slim\"}]",
};

/* spec.selector and spec.template for a workload named name. */
static void workload(struct buf *b, unsigned idx, const char *name,
		     const char *node_selector)
{
	buf_adds(b, "\"selector\":");
	put_tmpl(b, selectors[idx % 3], name);
	buf_printf(b,
		   ",\"template\":{\"metadata\":{\"labels\":{\"app\":\"%s\"}},"
		   "\"spec\":{",
		   name);
	if (node_selector)
		buf_printf(b, "\"nodeSelector\":%s,", node_selector);
	buf_printf(b, "\"containers\":%s}}", containers[idx % 3]);
}

static void name_of(char *out, size_t n, const char *prefix, unsigned idx)
{
	snprintf(out, n, "%s-%u", prefix, idx);
}

static void seed_deployment(struct buf *b, unsigned idx, const char *ns,
			    uint64_t rv)
{
	char nm[64];
	name_of(nm, sizeof(nm), "deploy", idx);
	meta(b, "Deployment", "apps/v1", "deploy", idx, ns, rv);
	buf_printf(b, ",\"spec\":{\"replicas\":%u,", idx % 4);
	workload(b, idx, nm, NULL);
	buf_printf(b,
		   "},\"status\":{\"replicas\":%u,\"updatedReplicas\":%u,"
		   "\"readyReplicas\":%u,\"availableReplicas\":%u}}",
		   idx % 4, idx % 3, idx % 2, idx % 2);
}

static void seed_replicaset(struct buf *b, unsigned idx, const char *ns,
			    uint64_t rv)
{
	char nm[64];
	name_of(nm, sizeof(nm), "rs", idx);
	meta(b, "ReplicaSet", "apps/v1", "rs", idx, ns, rv);
	buf_adds(b, ",\"spec\":{");
	if (idx % 4)
		buf_printf(b, "\"replicas\":%u,", idx % 4 + 1);
	workload(b, idx, nm, NULL);
	buf_printf(b, "},\"status\":{\"replicas\":%u", idx % 3);
	if (idx % 2)
		buf_printf(b, ",\"readyReplicas\":%u", idx % 3);
	buf_adds(b, "}}");
}

static void seed_statefulset(struct buf *b, unsigned idx, const char *ns,
			     uint64_t rv)
{
	char nm[64];
	name_of(nm, sizeof(nm), "sts", idx);
	meta(b, "StatefulSet", "apps/v1", "sts", idx, ns, rv);
	buf_printf(b, ",\"spec\":{\"replicas\":%u,\"serviceName\":\"%s\",",
		   idx % 3 + 1, nm);
	workload(b, idx, nm, NULL);
	buf_printf(b, "},\"status\":{\"replicas\":%u,\"readyReplicas\":%u}}",
		   idx % 3 + 1, idx % 2);
}

static void seed_daemonset(struct buf *b, unsigned idx, const char *ns,
			   uint64_t rv)
{
	char nm[64];
	name_of(nm, sizeof(nm), "ds", idx);
	meta(b, "DaemonSet", "apps/v1", "ds", idx, ns, rv);
	buf_adds(b, ",\"spec\":{");
	workload(b, idx, nm,
		 idx % 3 == 0 ? NULL :
		 idx % 3 == 1 ? "{\"kubernetes.io/os\":\"linux\"}" :
				"{\"node-role.kubernetes.io/worker\":\"\","
				"\"disk\":\"ssd\"}");
	buf_printf(b,
		   "},\"status\":{\"currentNumberScheduled\":%u,"
		   "\"numberMisscheduled\":0,\"desiredNumberScheduled\":%u,"
		   "\"numberReady\":%u,\"updatedNumberScheduled\":%u,"
		   "\"numberAvailable\":%u}}",
		   idx % 5, idx % 5 + 1, idx % 4, idx % 3, idx % 2);
}

static void seed_job(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	char nm[64];
	static const char *const conds[] = {
		",\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\"}]",
		",\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\"}]",
		",\"conditions\":[{\"type\":\"Suspended\",\"status\":\"True\"}]",
		"",
		",\"conditions\":[{\"type\":\"FailureTarget\",\"status\":"
		"\"True\"},{\"type\":\"Complete\",\"status\":\"False\"}]",
	};
	unsigned v = idx % 5;
	name_of(nm, sizeof(nm), "job", idx);
	meta(b, "Job", "batch/v1", "job", idx, ns, rv);
	buf_adds(b, ",\"spec\":{");
	if (v == 0 || v == 1)
		buf_printf(b, "\"completions\":%u,", v + 1);
	if (v == 3)
		buf_adds(b, "\"parallelism\":3,");
	workload(b, idx, nm, NULL);
	buf_printf(b, "},\"status\":{\"succeeded\":%u", v == 0 ? 1 : 0);
	if (v != 2)
		buf_printf(b, ",\"startTime\":\"2025-11-02T03:00:00Z\"");
	if (v == 0)
		buf_printf(b,
			   ",\"completionTime\":\"2025-11-02T03:%02u:%02uZ\"",
			   (idx + 2) % 60, (idx * 7 + 5) % 60);
	buf_printf(b, "%s}}", conds[v]);
}

static void seed_cronjob(struct buf *b, unsigned idx, const char *ns,
			 uint64_t rv)
{
	char nm[64];
	unsigned v = idx % 3;
	name_of(nm, sizeof(nm), "cj", idx);
	meta(b, "CronJob", "batch/v1", "cj", idx, ns, rv);
	buf_printf(b, ",\"spec\":{\"schedule\":\"*/%u * * * *\",", idx % 5 + 1);
	if (v == 1)
		buf_adds(b, "\"timeZone\":\"Europe/Paris\",");
	if (v != 2)
		buf_printf(b, "\"suspend\":%s,", v ? "true" : "false");
	buf_adds(b, "\"jobTemplate\":{\"spec\":{");
	workload(b, idx, nm, NULL);
	buf_adds(b, "}}},\"status\":{");
	if (v == 0)
		buf_printf(b,
			   "\"active\":[{\"kind\":\"Job\",\"namespace\":\"%s\","
			   "\"name\":\"%s-1\"},{\"kind\":\"Job\",\"namespace\":"
			   "\"%s\",\"name\":\"%s-2\"}],",
			   ns, nm, ns, nm);
	if (v != 2)
		buf_adds(b, "\"lastScheduleTime\":\"2025-12-31T23:55:00Z\"");
	else if (b->len && b->p[b->len - 1] == ',')
		b->len--;
	buf_adds(b, "}}");
}

static void seed_service(struct buf *b, unsigned idx, const char *ns,
			 uint64_t rv)
{
	static const char *const specs[] = {
		"\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":"
		"80,\"targetPort\":8080},{\"name\":\"dns\",\"protocol\":\"UDP\","
		"\"port\":53,\"targetPort\":53}],\"selector\":{\"app\":\"web\","
		"\"tier\":\"front\"},\"clusterIP\":\"10.96.0.@\",\"clusterIPs\":"
		"[\"10.96.0.@\"],\"type\":\"ClusterIP\"",
		"\"ports\":[{\"protocol\":\"TCP\",\"port\":443,\"targetPort\":"
		"8443,\"nodePort\":30443}],\"selector\":{\"app\":\"api\"},"
		"\"clusterIP\":\"10.96.1.@\",\"clusterIPs\":[\"10.96.1.@\"],"
		"\"externalIPs\":[\"192.0.2.10\",\"192.0.2.11\"],"
		"\"type\":\"NodePort\"",
		"\"ports\":[{\"protocol\":\"TCP\",\"port\":80,\"targetPort\":80,"
		"\"nodePort\":31080}],\"clusterIP\":\"10.96.2.@\","
		"\"clusterIPs\":[\"10.96.2.@\"],\"type\":\"LoadBalancer\"",
		"\"ports\":[{\"protocol\":\"TCP\",\"port\":80,\"targetPort\":80,"
		"\"nodePort\":31081}],\"clusterIP\":\"10.96.3.@\","
		"\"clusterIPs\":[\"10.96.3.@\"],\"externalIPs\":"
		"[\"192.0.2.99\"],\"type\":\"LoadBalancer\"",
		"\"type\":\"ExternalName\",\"externalName\":\"db.example.com\"",
		"\"selector\":{\"app\":\"headless\"},\"clusterIP\":\"None\","
		"\"clusterIPs\":[\"None\"],\"type\":\"ClusterIP\"",
	};
	unsigned v = idx % 6;
	meta(b, "Service", "v1", "svc", idx, ns, rv);
	buf_adds(b, ",\"spec\":{");
	char ip[16];
	snprintf(ip, sizeof(ip), "%u", idx % 250 + 1);
	put_tmpl(b, specs[v], ip);
	buf_adds(b, "},\"status\":{\"loadBalancer\":{");
	if (v == 3)
		buf_adds(b,
			 "\"ingress\":[{\"ip\":\"203.0.113.7\"},"
			 "{\"hostname\":\"lb.example.com\"},"
			 "{\"ip\":\"203.0.113.5\"},{\"ip\":\"203.0.113.7\"}]");
	buf_adds(b, "}}}");
}

static void seed_secret(struct buf *b, unsigned idx, const char *ns,
			uint64_t rv)
{
	static const char *const bodies[] = {
		"\"data\":{\"password\":\"czNjcjN0\",\"user\":\"YWRtaW4=\"},"
		"\"type\":\"Opaque\"",
		"\"data\":{\"tls.crt\":\"Y2VydA==\",\"tls.key\":\"a2V5\"},"
		"\"type\":\"kubernetes.io/tls\"",
		"\"type\":\"Opaque\"",
		"\"data\":{\".dockerconfigjson\":\"e30=\"},"
		"\"type\":\"kubernetes.io/dockerconfigjson\"",
	};
	meta(b, "Secret", "v1", "secret", idx, ns, rv);
	buf_printf(b, ",%s}", bodies[idx % 4]);
}

static void seed_serviceaccount(struct buf *b, unsigned idx, const char *ns,
				uint64_t rv)
{
	meta(b, "ServiceAccount", "v1", "sa", idx, ns, rv);
	if (idx % 2)
		buf_printf(b, ",\"secrets\":[{\"name\":\"sa-%u-token\"}]", idx);
	buf_addc(b, '}');
}

static void seed_endpoints(struct buf *b, unsigned idx, const char *ns,
			   uint64_t rv)
{
	static const char *const subsets[] = {
		"",
		",\"subsets\":[{\"addresses\":[{\"ip\":\"10.244.0.5\"},{\"ip\":"
		"\"10.244.1.6\"}],\"ports\":[{\"name\":\"http\",\"port\":8080,"
		"\"protocol\":\"TCP\"}]}]",
		",\"subsets\":[{\"addresses\":[{\"ip\":\"10.244.0.5\"},{\"ip\":"
		"\"10.244.1.6\"},{\"ip\":\"10.244.2.7\"}],\"ports\":[{\"port\":"
		"80},{\"port\":443}]},{\"addresses\":[{\"ip\":\"10.244.3.8\"}],"
		"\"ports\":[{\"port\":9090}]}]",
		",\"subsets\":[{\"addresses\":[{\"ip\":\"10.244.0.9\"}]},"
		"{\"addresses\":[{\"ip\":\"fd00::5\"}],\"ports\":[{\"port\":"
		"8080}]}]",
	};
	meta(b, "Endpoints", "v1", "ep", idx, ns, rv);
	buf_printf(b, "%s}", subsets[idx % 4]);
}

static void seed_event(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const bodies[] = {
		"\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"@\","
		"\"name\":\"web-1\",\"fieldPath\":\"spec.containers{web}\"},"
		"\"reason\":\"Pulled\",\"message\":\"Container image "
		"\\\"nginx:1.27\\\" already present on machine\","
		"\"source\":{\"component\":\"kubelet\",\"host\":\"node-1\"},"
		"\"firstTimestamp\":\"2025-11-01T10:00:00Z\","
		"\"lastTimestamp\":\"2025-12-01T10:00:00Z\",\"count\":4,"
		"\"type\":\"Normal\"",
		"\"involvedObject\":{\"kind\":\"Node\",\"name\":\"node-2\"},"
		"\"reason\":\"NodeNotReady\",\"message\":\"  Node is not ready "
		"\\n\",\"source\":{},\"eventTime\":\"2025-11-03T04:05:06.123456Z\","
		"\"reportingComponent\":\"node-controller\","
		"\"reportingInstance\":\"cp-1\",\"type\":\"Warning\"",
		"\"involvedObject\":{\"kind\":\"Deployment\",\"namespace\":"
		"\"@\",\"name\":\"deploy-1\"},\"reason\":\"ScalingReplicaSet\","
		"\"message\":\"Scaled up replica set deploy-1-abc to 3\","
		"\"source\":{\"component\":\"deployment-controller\"},"
		"\"firstTimestamp\":\"2025-11-01T10:00:00Z\","
		"\"lastTimestamp\":null,\"count\":1,\"type\":\"Normal\"",
		"\"involvedObject\":{\"kind\":\"ReplicaSet\"},\"reason\":"
		"\"FailedCreate\",\"message\":\"quota exceeded\",\"source\":{},"
		"\"eventTime\":\"2025-11-04T00:00:00.000000Z\",\"series\":"
		"{\"count\":17,\"lastObservedTime\":\"2025-12-24T12:00:00.000000Z\"},"
		"\"reportingComponent\":\"replicaset-controller\","
		"\"reportingInstance\":\"\",\"type\":\"Warning\"",
	};
	meta(b, "Event", "v1", "ev", idx, ns, rv);
	buf_adds(b, ",");
	put_tmpl(b, bodies[idx % 4], ns);
	buf_addc(b, '}');
}

static void seed_lease(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	meta(b, "Lease", "coordination.k8s.io/v1", "lease", idx, ns, rv);
	if (idx % 2)
		buf_printf(b,
			   ",\"spec\":{\"holderIdentity\":\"holder-%u\","
			   "\"leaseDurationSeconds\":15}}",
			   idx);
	else
		buf_adds(b, ",\"spec\":{}}");
}

static const struct {
	const char *key;
	void (*fn)(struct buf *, unsigned, const char *, uint64_t);
} seeders[] = {
	{ "deployments.apps", seed_deployment },
	{ "replicasets.apps", seed_replicaset },
	{ "statefulsets.apps", seed_statefulset },
	{ "daemonsets.apps", seed_daemonset },
	{ "jobs.batch", seed_job },
	{ "cronjobs.batch", seed_cronjob },
	{ "services", seed_service },
	{ "secrets", seed_secret },
	{ "serviceaccounts", seed_serviceaccount },
	{ "endpoints", seed_endpoints },
	{ "events", seed_event },
	{ "leases.coordination.k8s.io", seed_lease },
};

int fake_kinds_seed(struct buf *out, int res, unsigned idx, const char *ns,
		    uint64_t rv)
{
	if (!enabled)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(seeders) / sizeof(seeders[0]); i++)
		if (strcmp(fake_res_table[res].key, seeders[i].key) == 0) {
			seeders[i].fn(out, idx, ns, rv);
			return buf_ok(out) ? 0 : -ENOMEM;
		}
	return -ENOENT;
}
