/*
 * test_table_cols: the cell functions of the declarative column table,
 * each on small crafted objects: label selectors and label maps as the
 * labels package prints them, READY as ready/desired with the apiserver's
 * default, job status/completions/duration, cronjob suspend and last
 * schedule, service cluster and external IPs and ports, endpoints with
 * " + N more...", events' fallbacks (eventTime, series, reporting
 * controller), the unset/absent placeholders, pods (sidecars, init
 * containers, readiness gates, a lost node), and the cells of bindings,
 * PDBs, storage classes, ingresses, nodes, volumes and endpoint slices.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "proxy/table/table_cols_int.h"
#include "check.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600

/* The cells of obj printed as resource group/res, into a static string. */
static const char *cells(const char *group, const char *res, const char *obj)
{
	static char out[4096];
	struct json_doc d = JSON_DOC_INIT;
	struct buf b = BUF_INIT;
	const struct proxy_table_cols *p = proxy_table_cols_find(group, res);
	out[0] = '\0';
	if (!p || json_parse(&d, obj, strlen(obj), NULL, 0)) {
		json_doc_free(&d);
		return "(no printer or bad json)";
	}
	proxy_table_cols_cells(&b, p, &d, NOW, NULL);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	/* and the same cells from the parse a row makes: only what the
	 * printer's shape says, its skips jumped over */
	struct json_doc t = JSON_DOC_INIT;
	struct buf c = BUF_INIT;
	CHECK(json_parse_trusted(&t, d.js, d.len, proxy_table_cols_shape(p)) ==
	      0);
	proxy_table_cols_cells(&c, p, &t, NOW, NULL);
	buf_addc(&c, '\0');
	CHECK(b.p && c.p && !strcmp(b.p, c.p));
	buf_free(&c);
	json_doc_free(&t);
	buf_free(&b);
	json_doc_free(&d);
	return out;
}

/* A real apiserver's pod (the protobuf fixtures' JSON side): its cells
 * from a row's shaped parse are its cells from the whole object. */
static void test_pod_fixture(void)
{
	FILE *f = fopen("tests/fixtures/protobuf/05-pod.json", "rb");
	CHECK(f != NULL); /* run from the repository's top */
	if (!f)
		return;
	static char js[1 << 16];
	size_t n = fread(js, 1, sizeof(js) - 1, f);
	fclose(f);
	js[n] = '\0';
	const char *got = cells("", "pods", js);
	CHECK(strncmp(got, "(no printer", 11) != 0);
	/* a container and a sidecar, one readiness gate; created after
	 * NOW, so its age is invalid */
	CHECK_STR(
		got,
		"\"rich\",\"0/2\",\"Pending\",\"0\",\"\\u003cinvalid\\u003e\","
		"\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\","
		"\"\\u003cnone\\u003e\",\"0/1\"");
}

static const char *selector(const char *sel)
{
	static char out[1024];
	struct json_doc d = JSON_DOC_INIT;
	struct buf b = BUF_INIT;
	CHECK(json_parse(&d, sel, strlen(sel), NULL, 0) == 0);
	tc_selector(&b, &d, 0);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	json_doc_free(&d);
	return out;
}

#define META \
	"\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"2025-12-31T00:00:00Z\"}"

static void test_find(void)
{
	CHECK(proxy_table_cols_find("apps", "deployments") != NULL);
	CHECK(proxy_table_cols_find("", "deployments") == NULL);
	CHECK(proxy_table_cols_find("", "pods") != NULL);
	CHECK(proxy_table_cols_find("example.com", "widgets") == NULL);
	CHECK(proxy_table_cols_find("events.k8s.io", "events") != NULL);
}

static void test_selector(void)
{
	CHECK_STR(selector("{}"), "");
	CHECK_STR(selector("null"), "");
	CHECK_STR(selector("{\"matchLabels\":{\"b\":\"2\",\"a\":\"1\"}}"),
		  "a=1,b=2");
	CHECK_STR(
		selector(
			"{\"matchExpressions\":["
			"{\"key\":\"z\",\"operator\":\"DoesNotExist\"},"
			"{\"key\":\"m\",\"operator\":\"NotIn\",\"values\":[\"y\",\"x\"]},"
			"{\"key\":\"e\",\"operator\":\"Exists\"},"
			"{\"key\":\"c\",\"operator\":\"In\",\"values\":[\"q\"]}]}"),
		"c in (q),e,m notin (x,y),!z");
	CHECK_STR(
		selector("{\"matchLabels\":{\"k\":\"v\"},\"matchExpressions\":"
			 "[{\"key\":\"a\",\"operator\":\"Exists\"}]}"),
		"a,k=v");
}

static void test_workloads(void)
{
	/* replicas unset is the apiserver's default 1; a nil selector of a
	 * ReplicaSet prints <none>, a Deployment's prints nothing */
	CHECK_STR(
		cells("apps", "deployments",
		      "{" META
		      ",\"spec\":{\"template\":{\"spec\":{\"containers\":["
		      "{\"name\":\"a\",\"image\":\"i:1\"},{\"name\":\"b\",\"image\":\"j\"}]}}},"
		      "\"status\":{\"readyReplicas\":1,\"updatedReplicas\":2}}"),
		"\"x\",\"1/1\",2,0,\"24h\",\"a,b\",\"i:1,j\",\"\"");
	CHECK_STR(
		cells("apps", "replicasets",
		      "{" META
		      ",\"spec\":{\"replicas\":0,\"template\":{\"spec\":{}}}}"),
		"\"x\",0,0,0,\"24h\",\"\",\"\",\"\\u003cnone\\u003e\"");
	CHECK_STR(
		cells("apps", "daemonsets",
		      "{" META
		      ",\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":"
		      "{\"z\":\"\",\"a\":\"b\"}}}},\"status\":{\"numberReady\":3}}"),
		"\"x\",0,0,3,0,0,\"a=b,z=\",\"24h\",\"\",\"\",\"\\u003cnone\\u003e\"");
	CHECK_STR(cells("apps", "statefulsets",
			"{" META ",\"spec\":{\"replicas\":5}}"),
		  "\"x\",\"0/5\",\"24h\",\"\",\"\"");
}

static void test_jobs(void)
{
	CHECK_STR(
		cells("batch", "jobs",
		      "{" META
		      ",\"spec\":{\"completions\":3},\"status\":{\"succeeded\":2,"
		      "\"startTime\":\"2025-12-31T10:00:00Z\",\"completionTime\":"
		      "\"2025-12-31T10:02:05Z\",\"conditions\":[{\"type\":\"Complete\","
		      "\"status\":\"True\"}]}}"),
		"\"x\",\"Complete\",\"2/3\",\"2m5s\",\"24h\",\"\",\"\",\"\\u003cnone\\u003e\"");
	/* running: the duration runs to now; parallelism without completions */
	CHECK_STR(
		cells("batch", "jobs",
		      "{" META ",\"spec\":{\"parallelism\":4},\"status\":{"
		      "\"startTime\":\"2025-12-31T23:00:00Z\",\"conditions\":[{\"type\":"
		      "\"Complete\",\"status\":\"False\"}]}}"),
		"\"x\",\"Running\",\"0/1 of 4\",\"60m\",\"24h\",\"\",\"\",\"\\u003cnone\\u003e\"");
	/* deletion outranks suspension; no start time, no duration */
	CHECK_STR(
		cells("batch", "jobs",
		      "{\"metadata\":{\"name\":\"x\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
		      "\"status\":{\"conditions\":[{\"type\":\"Suspended\",\"status\":\"True\"}]}}"),
		"\"x\",\"Terminating\",\"0/1\",\"\",\"\\u003cunknown\\u003e\",\"\",\"\",\"\\u003cnone\\u003e\"");
	CHECK_STR(
		cells("batch", "cronjobs",
		      "{" META
		      ",\"spec\":{\"schedule\":\"@daily\",\"suspend\":true,"
		      "\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"containers\":"
		      "[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}},\"status\":{\"active\":[{},{}],"
		      "\"lastScheduleTime\":\"2025-12-31T23:59:00Z\"}}"),
		"\"x\",\"@daily\",\"\\u003cnone\\u003e\",\"True\",2,\"60s\",\"24h\",\"c\",\"busybox\",\"\\u003cnone\\u003e\"");
	CHECK_STR(
		cells("batch", "cronjobs",
		      "{" META
		      ",\"spec\":{\"schedule\":\"* * * * *\",\"timeZone\":\"UTC\"}}"),
		"\"x\",\"* * * * *\",\"UTC\",\"\\u003cunset\\u003e\",0,\"\\u003cnone\\u003e\",\"24h\",\"\",\"\",\"\\u003cnone\\u003e\"");
}

static void test_services(void)
{
	CHECK_STR(
		cells("", "services",
		      "{" META
		      ",\"spec\":{\"type\":\"ClusterIP\",\"clusterIPs\":[\"10.0.0.1\","
		      "\"fd00::1\"],\"ports\":[{\"port\":80},{\"port\":53,\"protocol\":\"UDP\"}]}}"),
		"\"x\",\"ClusterIP\",\"10.0.0.1\",\"\\u003cnone\\u003e\",\"80/TCP,53/UDP\",\"24h\",\"\\u003cnone\\u003e\"");
	CHECK_STR(
		cells("", "services",
		      "{" META
		      ",\"spec\":{\"type\":\"LoadBalancer\",\"ports\":[{\"port\":443,"
		      "\"nodePort\":30001,\"protocol\":\"TCP\"}],\"selector\":{\"app\":\"a\"}},"
		      "\"status\":{\"loadBalancer\":{\"ingress\":[{\"hostname\":\"h\"},{\"ip\":\"1.1.1.1\"}]}}}"),
		"\"x\",\"LoadBalancer\",\"\\u003cnone\\u003e\",\"1.1.1.1,h\",\"443:30001/TCP\",\"24h\",\"app=a\"");
	CHECK_STR(
		cells("", "services",
		      "{" META ",\"spec\":{\"type\":\"LoadBalancer\"}}"),
		"\"x\",\"LoadBalancer\",\"\\u003cnone\\u003e\",\"\\u003cpending\\u003e\",\"\\u003cnone\\u003e\",\"24h\",\"\\u003cnone\\u003e\"");
	/* an older object with spec.clusterIP only */
	CHECK_STR(
		cells("", "services",
		      "{" META
		      ",\"spec\":{\"type\":\"NodePort\",\"clusterIP\":\"10.1.1.1\"}}"),
		"\"x\",\"NodePort\",\"10.1.1.1\",\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\",\"24h\",\"\\u003cnone\\u003e\"");
	/* no type at all: the printer's switch falls through */
	CHECK_STR(
		cells("", "services", "{" META ",\"spec\":{}}"),
		"\"x\",\"\",\"\\u003cnone\\u003e\",\"\\u003cunknown\\u003e\",\"\\u003cnone\\u003e\",\"24h\",\"\\u003cnone\\u003e\"");
}

static void test_endpoints(void)
{
	CHECK_STR(cells("", "endpoints", "{" META "}"),
		  "\"x\",\"\\u003cnone\\u003e\",\"24h\"");
	CHECK_STR(
		cells("", "endpoints",
		      "{" META
		      ",\"subsets\":[{\"addresses\":[{\"ip\":\"1.1.1.1\"},"
		      "{\"ip\":\"2.2.2.2\"}],\"ports\":[{\"port\":1},{\"port\":2}]}]}"),
		"\"x\",\"1.1.1.1:1,2.2.2.2:1,1.1.1.1:2 + 1 more...\",\"24h\"");
	CHECK_STR(
		cells("", "endpoints",
		      "{" META
		      ",\"subsets\":[{\"addresses\":[{\"ip\":\"::1\"}],\"ports\":[{\"port\":8}]}]}"),
		"\"x\",\"[::1]:8\",\"24h\"");
}

static void test_events(void)
{
	/* LAST SEEN falls back to FIRST SEEN, which falls back to eventTime;
	 * a missing count is 1; the reporting controller stands in for an
	 * empty source */
	CHECK_STR(
		cells("", "events",
		      "{" META
		      ",\"type\":\"Normal\",\"reason\":\"R\",\"involvedObject\":"
		      "{\"kind\":\"ReplicaSet\",\"name\":\"rs\",\"fieldPath\":\"f\"},"
		      "\"message\":\" hi \\n\",\"source\":{},\"eventTime\":"
		      "\"2025-12-31T23:58:00.500000Z\",\"reportingComponent\":\"ctl\"}"),
		"\"2m\",\"Normal\",\"R\",\"replicaset/rs\",\"f\",\"ctl\",\"hi\",\"2m\",1,\"x\"");
	CHECK_STR(
		cells("", "events",
		      "{" META
		      ",\"involvedObject\":{\"kind\":\"Node\"},\"source\":{"
		      "\"component\":\"kubelet\",\"host\":\"n1\"},\"count\":3,"
		      "\"firstTimestamp\":\"2025-12-01T00:00:00Z\",\"series\":{\"count\":9,"
		      "\"lastObservedTime\":\"2025-12-31T23:59:30.000000Z\"}}"),
		"\"30s\",\"\",\"\",\"node\",\"\",\"kubelet, n1\",\"\",\"31d\",9,\"x\"");
	/* events.k8s.io names the same things differently */
	CHECK_STR(
		cells("events.k8s.io", "events",
		      "{" META
		      ",\"type\":\"Warning\",\"reason\":\"B\",\"regarding\":{\"kind\":"
		      "\"Pod\",\"name\":\"p\"},\"note\":\"n\",\"reportingController\":\"c\","
		      "\"reportingInstance\":\"i\",\"deprecatedFirstTimestamp\":"
		      "\"2025-12-31T00:00:00Z\",\"deprecatedLastTimestamp\":"
		      "\"2025-12-31T12:00:00Z\",\"deprecatedCount\":2}"),
		"\"12h\",\"Warning\",\"B\",\"pod/p\",\"\",\"c, i\",\"n\",\"24h\",2,\"x\"");
	/* nothing at all: unknown times */
	CHECK_STR(
		cells("", "events", "{\"metadata\":{\"name\":\"x\"}}"),
		"\"\\u003cunknown\\u003e\",\"\",\"\",\"\",\"\",\"\",\"\",\"\\u003cunknown\\u003e\",1,\"x\"");
}

static void test_config(void)
{
	CHECK_STR(
		cells("", "secrets",
		      "{" META
		      ",\"type\":\"Opaque\",\"data\":{\"a\":\"\",\"b\":\"\"}}"),
		"\"x\",\"Opaque\",2,\"24h\"");
	CHECK_STR(cells("", "configmaps",
			"{" META
			",\"data\":{\"a\":\"\"},\"binaryData\":{\"b\":\"\"}}"),
		  "\"x\",2,\"24h\"");
	CHECK_STR(cells("", "serviceaccounts", "{" META "}"),
		  "\"x\",0,\"24h\"");
	CHECK_STR(cells("coordination.k8s.io", "leases",
			"{" META
			",\"spec\":{\"holderIdentity\":\"h\\u00e9\"}}"),
		  "\"x\",\"h\xc3\xa9\",\"24h\"");
}

static void test_more_kinds(void)
{
	/* bindings: Kind/name, then users, groups and service accounts */
	CHECK_STR(
		cells("rbac.authorization.k8s.io", "rolebindings",
		      "{" META
		      ",\"roleRef\":{\"kind\":\"Role\",\"name\":\"r\"},"
		      "\"subjects\":[{\"kind\":\"User\",\"name\":\"a\"},"
		      "{\"kind\":\"ServiceAccount\",\"name\":\"s\",\"namespace\":\"n\"},"
		      "{\"kind\":\"User\",\"name\":\"b\"},"
		      "{\"kind\":\"ServiceAccount\",\"name\":\"t\"}]}"),
		"\"x\",\"Role/r\",\"24h\",\"a, b\",\"\",\"n/s, t\"");
	CHECK_STR(cells("rbac.authorization.k8s.io", "roles", "{" META "}"),
		  "\"x\",\"2025-12-31T00:00:00Z\"");
	CHECK_STR(cells("rbac.authorization.k8s.io", "clusterroles",
			"{\"metadata\":{\"name\":\"x\"}}"),
		  "\"x\",\"0001-01-01T00:00:00Z\"");
	/* IntOrString and N/A */
	CHECK_STR(cells("policy", "poddisruptionbudgets",
			"{" META ",\"spec\":{\"minAvailable\":\"50%\"},"
			"\"status\":{\"disruptionsAllowed\":2}}"),
		  "\"x\",\"50%\",\"N/A\",2,\"24h\"");
	CHECK_STR(cells("policy", "poddisruptionbudgets",
			"{" META ",\"spec\":{\"maxUnavailable\":1}}"),
		  "\"x\",\"N/A\",\"1\",0,\"24h\"");
	/* the default storage class, and the apiserver's defaults */
	CHECK_STR(
		cells("storage.k8s.io", "storageclasses",
		      "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":"
		      "\"2025-12-31T00:00:00Z\",\"annotations\":{\"storageclass.beta."
		      "kubernetes.io/is-default-class\":\"true\"}},\"provisioner\":\"p\"}"),
		"\"x (default)\",\"p\",\"Delete\",\"Immediate\",false,\"24h\"");
	/* hosts: three, then how many rules more; none: * */
	CHECK_STR(
		cells("networking.k8s.io", "ingresses",
		      "{" META ",\"spec\":{\"rules\":[{\"host\":\"a\"},{},"
		      "{\"host\":\"b\"},{\"host\":\"c\"},{\"host\":\"d\"}],"
		      "\"tls\":[{}]}}"),
		"\"x\",\"\\u003cnone\\u003e\",\"a,b,c + 2 more...\",\"\",\"80, 443\",\"24h\"");
	CHECK_STR(cells("networking.k8s.io", "ingresses", "{" META "}"),
		  "\"x\",\"\\u003cnone\\u003e\",\"*\",\"\",\"80\",\"24h\"");
	/* nodes: no Ready condition is Unknown; roles from both labels */
	CHECK_STR(
		cells("", "nodes",
		      "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":"
		      "\"2025-12-31T00:00:00Z\",\"labels\":{\"kubernetes.io/role\":"
		      "\"b\",\"node-role.kubernetes.io/a\":\"\",\"node-role.kubernetes.io/b\":"
		      "\"\"}},\"spec\":{\"unschedulable\":true},\"status\":{}}"),
		"\"x\",\"Unknown,SchedulingDisabled\",\"a,b\",\"24h\",\"\","
		"\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\",\"\\u003cunknown\\u003e\","
		"\"\\u003cunknown\\u003e\",\"\\u003cunknown\\u003e\"");
	/* volumes: modes in a fixed order, each once; a bound claim only */
	CHECK_STR(
		cells("", "persistentvolumes",
		      "{\"metadata\":{\"name\":\"x\",\"deletionTimestamp\":"
		      "\"2025-12-31T00:00:00Z\"},\"spec\":{\"accessModes\":["
		      "\"ReadWriteOncePod\",\"ReadWriteOnce\",\"ReadWriteOnce\"],"
		      "\"storageClassName\":\"s\"},\"status\":{\"phase\":\"Bound\"}}"),
		"\"x\",\"0\",\"RWO,RWOP\",\"\",\"Terminating\",\"\",\"s\","
		"\"\\u003cunset\\u003e\",\"\",\"\\u003cunknown\\u003e\",\"\\u003cunset\\u003e\"");
	CHECK_STR(
		cells("", "persistentvolumeclaims",
		      "{" META ",\"spec\":{},\"status\":{\"phase\":\"Pending\","
		      "\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadOnlyMany\"]}}"),
		"\"x\",\"Pending\",\"\",\"\",\"\",\"\",\"\\u003cunset\\u003e\",\"24h\","
		"\"\\u003cunset\\u003e\"");
	/* endpoint slices: port numbers, names or *; <unset> when none */
	CHECK_STR(
		cells("discovery.k8s.io", "endpointslices",
		      "{" META
		      ",\"addressType\":\"IPv4\",\"ports\":[{\"name\":\"n\"},{}],"
		      "\"endpoints\":[]}"),
		"\"x\",\"IPv4\",\"n,*\",\"\\u003cunset\\u003e\",\"24h\"");
	CHECK_STR(cells("scheduling.k8s.io", "priorityclasses",
			"{" META ",\"value\":-5}"),
		  "\"x\",-5,false,\"24h\",\"\"");
	CHECK_STR(cells("networking.k8s.io", "ingressclasses",
			"{" META
			",\"spec\":{\"controller\":\"c\",\"parameters\":"
			"{\"kind\":\"K\",\"name\":\"n\",\"apiGroup\":\"g\"}}}"),
		  "\"x\",\"c\",\"K.g/n\",\"24h\"");
}

static void test_hpa(void)
{
	/* the first two metrics by the status at the same index, then how
	 * many more; utilization as N%, <auto> without a target */
	CHECK_STR(
		cells("autoscaling", "horizontalpodautoscalers",
		      "{" META
		      ",\"spec\":{\"scaleTargetRef\":{\"kind\":\"Deployment\","
		      "\"name\":\"d\"},\"maxReplicas\":7,\"metrics\":["
		      "{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
		      "\"target\":{\"type\":\"Utilization\"}}},"
		      "{\"type\":\"External\",\"external\":{\"target\":{\"value\":\"5\"}}},"
		      "{\"type\":\"Pods\",\"pods\":{}}]},\"status\":{\"currentReplicas\":2,"
		      "\"currentMetrics\":[{\"resource\":{\"current\":{\"averageUtilization\":9}}},"
		      "{\"external\":{\"current\":{\"value\":\"4\"}}}]}}"),
		"\"x\",\"Deployment/d\",\"cpu: 9%/\\u003cauto\\u003e, 4/5 + 1 more...\","
		"\"\\u003cunset\\u003e\",7,2,\"24h\"");
	CHECK_STR(
		cells("autoscaling", "horizontalpodautoscalers",
		      "{" META
		      ",\"spec\":{\"minReplicas\":1,\"metrics\":[{\"type\":\"X\"}]}}"),
		"\"x\",\"/\",\"\\u003cunknown type\\u003e\",\"1\",0,0,\"24h\"");
}

/* A row given its pod's summary prints READY, STATUS and RESTARTS from
 * it (a row makes it once and shares it); one not given one makes it,
 * the same as the summary itself. */
static void test_pod_summary_shared(void)
{
	static const char pod[] =
		"{" META
		",\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
		"\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":true,\"restartCount\":4,\"state\":{\"running\":{}}},"
		"{\"name\":\"b\",\"ready\":false,\"restartCount\":0,\"state\":{\"running\":{}}}]}}";
	const struct proxy_table_cols *p = proxy_table_cols_find("", "pods");
	struct json_doc d = JSON_DOC_INIT;
	CHECK(p && json_parse(&d, pod, strlen(pod), NULL, 0) == 0);
	if (!p || !d.ntok) {
		json_doc_free(&d);
		return;
	}
	struct proxy_table_pod_summary made, given = {
		.ready = 7, .total = 9, .status = "Given", .restarts = "42"
	};
	proxy_table_pod_summary(&d, NOW, &made);
	CHECK(made.ready == 1 && made.total == 2);
	CHECK_STR(made.status, "Running");
	CHECK_STR(made.restarts, "4");
	struct buf a = BUF_INIT, b = BUF_INIT;
	proxy_table_cols_cells(&a, p, &d, NOW, NULL);
	proxy_table_cols_cells(&b, p, &d, NOW, &given);
	buf_addc(&a, '\0');
	buf_addc(&b, '\0');
	static const char want_made[] = "\"x\",\"1/2\",\"Running\",\"4\",",
			  want_given[] = "\"x\",\"7/9\",\"Given\",\"42\",";
	CHECK(a.p && !strncmp(a.p, want_made, strlen(want_made)));
	CHECK(b.p && !strncmp(b.p, want_given, strlen(want_given)));
	buf_free(&a);
	buf_free(&b);
	json_doc_free(&d);
}

static void test_pods(void)
{
	/* a started sidecar counts towards READY; RESTARTS adds the
	 * sidecar's and the containers' counts, aged by the latest end */
	CHECK_STR(
		cells("", "pods",
		      "{" META
		      ",\"spec\":{\"initContainers\":[{\"name\":\"init\"},"
		      "{\"name\":\"side\",\"restartPolicy\":\"Always\"}],"
		      "\"containers\":[{\"name\":\"a\"}],\"nodeName\":\"\"},"
		      "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.9\","
		      "\"initContainerStatuses\":["
		      "{\"name\":\"init\",\"restartCount\":5,\"state\":{\"terminated\":{\"exitCode\":0}}},"
		      "{\"name\":\"side\",\"restartCount\":2,\"started\":true,\"ready\":true,"
		      "\"lastState\":{\"terminated\":{\"finishedAt\":\"2025-12-31T23:00:00Z\"}},"
		      "\"state\":{\"running\":{}}}],"
		      "\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,\"restartCount\":1,"
		      "\"state\":{\"running\":{}}}]}}"),
		"\"x\",\"2/2\",\"Running\",\"3 (60m ago)\",\"24h\",\"10.0.0.9\","
		"\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\"");
	/* an init container still waiting: Init:N/M; gates counted */
	CHECK_STR(
		cells("", "pods",
		      "{" META
		      ",\"spec\":{\"initContainers\":[{\"name\":\"i1\"},"
		      "{\"name\":\"i2\"}],\"containers\":[{\"name\":\"a\"}],"
		      "\"readinessGates\":[{\"conditionType\":\"G1\"},{\"conditionType\":\"G2\"}]},"
		      "\"status\":{\"phase\":\"Pending\",\"podIPs\":[{\"ip\":\"fd00::1\"}],"
		      "\"conditions\":[{\"type\":\"G1\",\"status\":\"True\"},"
		      "{\"type\":\"G2\",\"status\":\"False\"}],"
		      "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{\"terminated\":"
		      "{\"exitCode\":0}}},{\"name\":\"i2\",\"state\":{\"waiting\":"
		      "{\"reason\":\"PodInitializing\"}}}]}}"),
		"\"x\",\"0/1\",\"Init:1/2\",\"0\",\"24h\",\"fd00::1\","
		"\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\",\"1/2\"");
	/* deleted while its node is lost: Unknown */
	CHECK_STR(
		cells("", "pods",
		      "{\"metadata\":{\"name\":\"x\",\"deletionTimestamp\":\"2025-12-31T00:00:00Z\"},"
		      "\"spec\":{\"containers\":[{\"name\":\"a\"}],\"nodeName\":\"n1\"},"
		      "\"status\":{\"phase\":\"Running\",\"reason\":\"NodeLost\"}}"),
		"\"x\",\"0/1\",\"Unknown\",\"0\",\"\\u003cunknown\\u003e\","
		"\"\\u003cnone\\u003e\",\"n1\",\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\"");
}

static void test_columns_json(void)
{
	struct buf b = BUF_INIT;
	proxy_table_cols_definitions(&b, proxy_table_cols_find("", "secrets"));
	buf_addc(&b, '\0');
	static const char head[] =
		"[{\"name\":\"Name\",\"type\":\"string\",\"format\":\"name\"";
	CHECK(b.p && !strncmp(b.p, head, sizeof(head) - 1));
	CHECK(b.p &&
	      strstr(b.p,
		     "{\"name\":\"Type\",\"type\":\"string\",\"format\":\"\",\"description\":\"Used to facilitate programmatic handling of secret data."));
	CHECK(b.p && strstr(b.p, "\"priority\":0}]"));
	buf_free(&b);
	proxy_table_cols_definitions(
		&b, proxy_table_cols_find("apps", "deployments"));
	buf_addc(&b, '\0');
	CHECK(b.p &&
	      strstr(b.p,
		     "{\"name\":\"Selector\",\"type\":\"string\",\"format\":\"\",\"description\":\"Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.\",\"priority\":1}]"));
	buf_free(&b);
}

int main(void)
{
	test_find();
	test_selector();
	test_workloads();
	test_jobs();
	test_services();
	test_endpoints();
	test_events();
	test_config();
	test_more_kinds();
	test_hpa();
	test_pods();
	test_pod_summary_shared();
	test_pod_fixture();
	test_columns_json();
	return check_done("table_cols");
}
