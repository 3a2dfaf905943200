/*
 * fake_kinds_seed: --seed's objects for the kinds --all-kinds serves (see
 * fake_kinds_seed.h).
 *
 * Each seed is one of a few variants picked by idx, so that a handful of
 * objects covers the interesting cases of every column: a LoadBalancer
 * still pending and one with ingress points, a job complete, failed,
 * suspended and running, an event with a series, with only an eventTime,
 * with a reporting controller instead of a source, and so on.
 */
#include "fake_kinds_seed.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fake_kinds.h"
#include "fake_kinds_admin.h"
#include "fake_res.h"

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
	/* the apiserver writes the template generation into every apps/v1
	 * DaemonSet; one seed has another annotation besides */
	b->len--; /* reopen the metadata */
	buf_printf(b,
		   ",\"annotations\":{\"deprecated.daemonset.template."
		   "generation\":\"%u\"%s}}",
		   1 + idx % 2, idx % 3 == 1 ? ",\"note\":\"kept\"" : "");
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

static void seed_role(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	meta(b, ns ? "Role" : "ClusterRole", "rbac.authorization.k8s.io/v1",
	     ns ? "role" : "clusterrole", idx, ns, rv);
	buf_adds(b, ",\"rules\":[{\"verbs\":[\"get\",\"list\"],"
		    "\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]}");
}

static void seed_binding(struct buf *b, unsigned idx, const char *ns,
			 uint64_t rv)
{
	static const char *const subjects[] = {
		"",
		",\"subjects\":[{\"kind\":\"User\",\"apiGroup\":"
		"\"rbac.authorization.k8s.io\",\"name\":\"alice\"},{\"kind\":"
		"\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
		"\"bob\"},{\"kind\":\"Group\",\"apiGroup\":"
		"\"rbac.authorization.k8s.io\",\"name\":\"devs\"}]",
		",\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa-1\","
		"\"namespace\":\"ns-0\"},{\"kind\":\"ServiceAccount\",\"name\":"
		"\"builder\"},{\"kind\":\"Group\",\"apiGroup\":"
		"\"rbac.authorization.k8s.io\",\"name\":"
		"\"system:serviceaccounts\"}]",
	};
	meta(b, ns ? "RoleBinding" : "ClusterRoleBinding",
	     "rbac.authorization.k8s.io/v1", ns ? "rb" : "crb", idx, ns, rv);
	buf_printf(b,
		   "%s,\"roleRef\":{\"apiGroup\":"
		   "\"rbac.authorization.k8s.io\",\"kind\":\"%s\","
		   "\"name\":\"reader-%u\"}}",
		   subjects[idx % 3], ns && idx % 2 ? "Role" : "ClusterRole",
		   idx);
}

static void seed_priorityclass(struct buf *b, unsigned idx, const char *ns,
			       uint64_t rv)
{
	(void)ns;
	meta(b, "PriorityClass", "scheduling.k8s.io/v1", "pc", idx, NULL, rv);
	buf_printf(b, ",\"value\":%d", idx % 2 ? 1000 * (int)idx : -10);
	if (idx % 3 == 0)
		buf_adds(b, ",\"globalDefault\":true");
	if (idx % 3 != 2)
		buf_printf(b, ",\"preemptionPolicy\":\"%s\"",
			   idx % 3 ? "Never" : "PreemptLowerPriority");
	buf_addc(b, '}');
}

static void seed_ingressclass(struct buf *b, unsigned idx, const char *ns,
			      uint64_t rv)
{
	static const char *const params[] = {
		"",
		",\"parameters\":{\"apiGroup\":\"k8s.example.com\",\"kind\":"
		"\"IngressParameters\",\"name\":\"external-lb\"}",
		",\"parameters\":{\"kind\":\"ConfigMap\",\"name\":\"cfg\","
		"\"scope\":\"Namespace\",\"namespace\":\"ns-0\"}",
	};
	(void)ns;
	meta(b, "IngressClass", "networking.k8s.io/v1", "ic", idx, NULL, rv);
	buf_printf(b,
		   ",\"spec\":{\"controller\":\"example.com/ingress-%u\"%s}}",
		   idx, params[idx % 3]);
}

static void seed_ingress(struct buf *b, unsigned idx, const char *ns,
			 uint64_t rv)
{
	static const char *const specs[] = {
		"\"ingressClassName\":\"ic-0\",\"rules\":[{\"host\":"
		"\"a.example.com\"},{\"host\":\"b.example.com\"}],\"tls\":"
		"[{\"hosts\":[\"a.example.com\"],\"secretName\":\"tls\"}]",
		"\"defaultBackend\":{\"service\":{\"name\":\"web\",\"port\":"
		"{\"number\":80}}}",
		"\"rules\":[{\"host\":\"1.example.com\"},{},{\"host\":"
		"\"2.example.com\"},{\"host\":\"3.example.com\"},{\"host\":"
		"\"4.example.com\"}]",
	};
	static const char *const lbs[] = {
		"{\"ingress\":[{\"ip\":\"198.51.100.9\"},{\"hostname\":"
		"\"ing.example.net\"}]}",
		"{}",
		"{\"ingress\":[{\"ip\":\"198.51.100.2\"}]}",
	};
	meta(b, "Ingress", "networking.k8s.io/v1", "ing", idx, ns, rv);
	buf_printf(b, ",\"spec\":{%s},\"status\":{\"loadBalancer\":%s}}",
		   specs[idx % 3], lbs[idx % 3]);
}

static void seed_networkpolicy(struct buf *b, unsigned idx, const char *ns,
			       uint64_t rv)
{
	static const char *const sels[] = {
		"{}",
		"{\"matchLabels\":{\"role\":\"db\"}}",
		"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":"
		"\"In\",\"values\":[\"web\",\"api\"]}]}",
	};
	meta(b, "NetworkPolicy", "networking.k8s.io/v1", "np", idx, ns, rv);
	buf_printf(b,
		   ",\"spec\":{\"podSelector\":%s,\"policyTypes\":"
		   "[\"Ingress\"]}}",
		   sels[idx % 3]);
}

static void seed_storageclass(struct buf *b, unsigned idx, const char *ns,
			      uint64_t rv)
{
	(void)ns;
	buf_printf(b,
		   "{\"kind\":\"StorageClass\",\"apiVersion\":"
		   "\"storage.k8s.io/v1\",\"metadata\":{\"name\":\"sc-%u\","
		   "\"uid\":\"5c000000-0000-4000-8000-%012u\","
		   "\"resourceVersion\":\"%llu\",\"creationTimestamp\":"
		   "\"2025-11-0%uT00:00:00Z\"%s},\"provisioner\":"
		   "\"csi.example.com\"",
		   idx, idx, (unsigned long long)rv, 1 + idx % 9,
		   idx % 3 == 0 ?
			   ",\"annotations\":{"
			   "\"storageclass.kubernetes.io/is-default-class\":"
			   "\"true\"}" :
			   "");
	if (idx % 3 == 1)
		buf_adds(
			b,
			",\"reclaimPolicy\":\"Retain\",\"allowVolumeExpansion\":"
			"true,\"volumeBindingMode\":\"WaitForFirstConsumer\"");
	buf_addc(b, '}');
}

static void seed_rc(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	meta(b, "ReplicationController", "v1", "rc", idx, ns, rv);
	buf_printf(b,
		   ",\"spec\":{\"replicas\":%u,\"selector\":{\"app\":"
		   "\"rc-%u\"},\"template\":{\"metadata\":{\"labels\":"
		   "{\"app\":\"rc-%u\"}},\"spec\":{\"containers\":%s}}},"
		   "\"status\":{\"replicas\":%u,\"readyReplicas\":%u}}",
		   idx % 3 + 1, idx, idx, containers[idx % 3], idx % 3 + 1,
		   idx % 2);
}

static void seed_pdb(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const specs[] = {
		"\"minAvailable\":2",
		"\"maxUnavailable\":\"25%\"",
		"\"minAvailable\":\"50%\"",
	};
	meta(b, "PodDisruptionBudget", "policy/v1", "pdb", idx, ns, rv);
	buf_printf(b,
		   ",\"spec\":{%s,\"selector\":{\"matchLabels\":{\"app\":"
		   "\"web\"}}},\"status\":{\"disruptionsAllowed\":%u,"
		   "\"currentHealthy\":3,\"desiredHealthy\":2,"
		   "\"expectedPods\":3}}",
		   specs[idx % 3], idx % 3);
}

static void seed_endpointslice(struct buf *b, unsigned idx, const char *ns,
			       uint64_t rv)
{
	static const char *const bodies[] = {
		"\"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":"
		"[\"10.244.0.5\"]},{\"addresses\":[\"10.244.1.6\"]}],"
		"\"ports\":[{\"name\":\"http\",\"port\":8080,\"protocol\":"
		"\"TCP\"}]",
		"\"addressType\":\"IPv6\",\"endpoints\":[{\"addresses\":"
		"[\"fd00::1\",\"fd00::2\"]},{\"addresses\":[\"fd00::3\"]},"
		"{\"addresses\":[\"fd00::4\"]}],\"ports\":[{\"port\":1},"
		"{\"name\":\"named\"},{},{\"port\":4},{\"port\":5}]",
		"\"addressType\":\"FQDN\",\"endpoints\":null,\"ports\":null",
	};
	meta(b, "EndpointSlice", "discovery.k8s.io/v1", "es", idx, ns, rv);
	buf_printf(b, ",%s}", bodies[idx % 3]);
}

static void seed_node(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const labels[] = {
		"{\"kubernetes.io/hostname\":\"node\","
		"\"node-role.kubernetes.io/control-plane\":\"\","
		"\"node-role.kubernetes.io/master\":\"\"}",
		"{\"kubernetes.io/role\":\"worker\","
		"\"node-role.kubernetes.io/\":\"\"}",
		"{\"kubernetes.io/hostname\":\"node\"}",
	};
	static const char *const ready[] = {
		"[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
		"{\"type\":\"Ready\",\"status\":\"True\"}]",
		"[{\"type\":\"Ready\",\"status\":\"Unknown\"}]",
		"[{\"type\":\"DiskPressure\",\"status\":\"False\"}]",
	};
	(void)ns;
	buf_printf(
		b,
		"{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":"
		"{\"name\":\"node-%u\",\"uid\":"
		"\"0de00000-0000-4000-8000-%012u\",\"resourceVersion\":"
		"\"%llu\",\"creationTimestamp\":\"2025-11-0%uT00:00:00Z\","
		"\"labels\":%s},\"spec\":{%s},\"status\":{\"conditions\":"
		"%s,\"addresses\":[{\"type\":\"Hostname\",\"address\":"
		"\"node-%u\"}%s],\"nodeInfo\":{\"kernelVersion\":\"%s\","
		"\"osImage\":\"%s\",\"containerRuntimeVersion\":"
		"\"containerd://1.7.%u\",\"kubeletVersion\":\"v1.32.%u\","
		"\"operatingSystem\":\"linux\",\"architecture\":"
		"\"amd64\"}}}",
		idx, idx, (unsigned long long)rv, 1 + idx % 9, labels[idx % 3],
		idx % 3 == 1 ? "\"unschedulable\":true" : "", ready[idx % 3],
		idx,
		idx % 3 == 2 ? "" :
			       ",{\"type\":\"InternalIP\",\"address\":"
			       "\"192.168.0.10\"},{\"type\":\"ExternalIP\","
			       "\"address\":\"203.0.113.10\"}",
		idx % 3 == 2 ? "" : "6.1.0-28-amd64",
		idx % 3 == 2 ? "" : "Debian GNU/Linux 12 (bookworm)", idx, idx);
}

static void seed_pv(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const bodies[] = {
		"\"spec\":{\"capacity\":{\"storage\":\"10Gi\"},\"accessModes\":"
		"[\"ReadWriteMany\",\"ReadWriteOnce\",\"ReadWriteOnce\"],"
		"\"persistentVolumeReclaimPolicy\":\"Retain\",\"claimRef\":"
		"{\"namespace\":\"ns-0\",\"name\":\"pvc-1\"},"
		"\"storageClassName\":\"sc-0\",\"volumeMode\":\"Filesystem\"},"
		"\"status\":{\"phase\":\"Bound\"}",
		"\"spec\":{\"capacity\":{\"storage\":\"500Mi\"},\"accessModes\":"
		"[\"ReadWriteOncePod\",\"ReadOnlyMany\"],"
		"\"persistentVolumeReclaimPolicy\":\"Delete\","
		"\"volumeAttributesClassName\":\"gold\"},\"status\":"
		"{\"phase\":\"Failed\",\"reason\":\"RecyclerFailed\"}",
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]},\"status\":"
		"{\"phase\":\"Available\"}",
	};
	(void)ns;
	meta(b, "PersistentVolume", "v1", "pv", idx, NULL, rv);
	if (idx % 3 == 2) {  /* the beta annotation names the class */
		b->len -= 1; /* reopen metadata: drop the closing brace */
		buf_adds(b, ",\"annotations\":{\"volume.beta.kubernetes.io/"
			    "storage-class\":\"legacy\"}}");
	}
	buf_printf(b, ",%s}", bodies[idx % 3]);
}

static void seed_pvc(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const bodies[] = {
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":"
		"{\"requests\":{\"storage\":\"1Gi\"}},\"volumeName\":"
		"\"pv-0\",\"storageClassName\":\"sc-0\",\"volumeMode\":"
		"\"Block\"},\"status\":{\"phase\":\"Bound\",\"accessModes\":"
		"[\"ReadWriteMany\",\"ReadWriteOnce\"],\"capacity\":"
		"{\"storage\":\"10Gi\"}}",
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":"
		"{\"requests\":{\"storage\":\"5Gi\"}},\"storageClassName\":"
		"\"sc-1\"},\"status\":{\"phase\":\"Pending\"}",
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":"
		"{\"requests\":{\"storage\":\"5Gi\"}},\"volumeName\":"
		"\"pv-9\",\"volumeAttributesClassName\":\"silver\"},"
		"\"status\":{\"phase\":\"Lost\"}",
	};
	meta(b, "PersistentVolumeClaim", "v1", "pvc", idx, ns, rv);
	buf_printf(b, ",%s}", bodies[idx % 3]);
}


static void seed_hpa(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const bodies[] = {
		/* CPU utilization, observed; memory average value, not yet */
		"\"spec\":{\"scaleTargetRef\":{\"apiVersion\":\"apps/v1\","
		"\"kind\":\"Deployment\",\"name\":\"deploy-0\"},\"minReplicas\":2,"
		"\"maxReplicas\":10,\"metrics\":[{\"type\":\"Resource\","
		"\"resource\":{\"name\":\"cpu\",\"target\":{\"type\":"
		"\"Utilization\",\"averageUtilization\":80}}},{\"type\":"
		"\"Resource\",\"resource\":{\"name\":\"memory\",\"target\":"
		"{\"type\":\"AverageValue\",\"averageValue\":\"500Mi\"}}}]},"
		"\"status\":{\"currentReplicas\":3,\"desiredReplicas\":3,"
		"\"currentMetrics\":[{\"type\":\"Resource\",\"resource\":"
		"{\"name\":\"cpu\",\"current\":{\"averageUtilization\":42,"
		"\"averageValue\":\"210m\"}}}]}",
		/* no metrics at all, no minReplicas */
		"\"spec\":{\"scaleTargetRef\":{\"apiVersion\":\"apps/v1\","
		"\"kind\":\"StatefulSet\",\"name\":\"sts-1\"},\"maxReplicas\":"
		"4},\"status\":{\"currentReplicas\":1,\"desiredReplicas\":1}",
		/* pods, object (value and average), external, and one more */
		"\"spec\":{\"scaleTargetRef\":{\"apiVersion\":\"apps/v1\","
		"\"kind\":\"Deployment\",\"name\":\"deploy-2\"},\"minReplicas\":1,"
		"\"maxReplicas\":5,\"metrics\":[{\"type\":\"Pods\",\"pods\":"
		"{\"metric\":{\"name\":\"qps\"},\"target\":{\"type\":"
		"\"AverageValue\",\"averageValue\":\"1k\"}}},{\"type\":"
		"\"Object\",\"object\":{\"metric\":{\"name\":\"hits\"},"
		"\"describedObject\":{\"kind\":\"Service\",\"name\":\"web\"},"
		"\"target\":{\"type\":\"Value\",\"value\":\"100\"}}},"
		"{\"type\":\"External\",\"external\":{\"metric\":{\"name\":"
		"\"queue\"},\"target\":{\"type\":\"AverageValue\","
		"\"averageValue\":\"30\"}}}]},\"status\":{\"currentReplicas\":2,"
		"\"desiredReplicas\":2,\"currentMetrics\":[{\"type\":\"Pods\","
		"\"pods\":{\"metric\":{\"name\":\"qps\"},\"current\":"
		"{\"averageValue\":\"800\"}}},{\"type\":\"Object\",\"object\":"
		"{\"metric\":{\"name\":\"hits\"},\"current\":{\"value\":"
		"\"93\"}}}]}",
	};
	meta(b, "HorizontalPodAutoscaler", "autoscaling/v2", "hpa", idx, ns,
	     rv);
	buf_printf(b, ",%s}", bodies[idx % 3]);
}


static void seed_event_v1(struct buf *b, unsigned idx, const char *ns,
			  uint64_t rv)
{
	static const char *const bodies[] = {
		"\"eventTime\":\"2025-11-05T06:07:08.000000Z\",\"series\":"
		"{\"count\":5,\"lastObservedTime\":\"2025-12-30T00:00:00.000000Z\"},"
		"\"reportingController\":\"kubelet\",\"reportingInstance\":"
		"\"node-3\",\"action\":\"Pulling\",\"reason\":\"Pulling\","
		"\"regarding\":{\"kind\":\"Pod\",\"namespace\":\"@\",\"name\":"
		"\"web-2\",\"fieldPath\":\"spec.containers{app}\"},\"note\":"
		"\"Pulling image \\\"app:2\\\"\",\"type\":\"Normal\"",
		"\"eventTime\":null,\"reportingController\":\"\","
		"\"reportingInstance\":\"\",\"reason\":\"Killing\",\"regarding\":"
		"{\"kind\":\"Pod\",\"namespace\":\"@\",\"name\":\"db-1\"},"
		"\"note\":\"Stopping container db\",\"type\":\"Normal\","
		"\"deprecatedSource\":{\"component\":\"kubelet\",\"host\":"
		"\"node-1\"},\"deprecatedFirstTimestamp\":\"2025-11-02T00:00:00Z\","
		"\"deprecatedLastTimestamp\":\"2025-11-20T00:00:00Z\","
		"\"deprecatedCount\":3",
	};
	meta(b, "Event", "events.k8s.io/v1", "evt", idx, ns, rv);
	buf_adds(b, ",");
	put_tmpl(b, bodies[idx % 2], ns);
	buf_addc(b, '}');
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
	{ "roles.rbac.authorization.k8s.io", seed_role },
	{ "clusterroles.rbac.authorization.k8s.io", seed_role },
	{ "rolebindings.rbac.authorization.k8s.io", seed_binding },
	{ "clusterrolebindings.rbac.authorization.k8s.io", seed_binding },
	{ "priorityclasses.scheduling.k8s.io", seed_priorityclass },
	{ "ingressclasses.networking.k8s.io", seed_ingressclass },
	{ "ingresses.networking.k8s.io", seed_ingress },
	{ "networkpolicies.networking.k8s.io", seed_networkpolicy },
	{ "storageclasses.storage.k8s.io", seed_storageclass },
	{ "replicationcontrollers", seed_rc },
	{ "poddisruptionbudgets.policy", seed_pdb },
	{ "endpointslices.discovery.k8s.io", seed_endpointslice },
	{ "nodes", seed_node },
	{ "persistentvolumes", seed_pv },
	{ "persistentvolumeclaims", seed_pvc },
	{ "horizontalpodautoscalers.autoscaling", seed_hpa },
	{ "events.events.k8s.io", seed_event_v1 },
};

int fake_kinds_seed(struct buf *out, int res, unsigned idx, const char *ns,
		    uint64_t rv)
{
	if (!fake_kinds_enabled())
		return -ENOENT;
	for (size_t i = 0; i < sizeof(seeders) / sizeof(seeders[0]); i++)
		if (strcmp(fake_res_table[res].key, seeders[i].key) == 0) {
			seeders[i].fn(out, idx, ns, rv);
			return buf_ok(out) ? 0 : -ENOMEM;
		}
	return fake_kinds_admin_seed(out, res, idx, ns, rv);
}
