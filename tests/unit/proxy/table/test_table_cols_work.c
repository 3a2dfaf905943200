/*
 * test_table_cols_work: the workload kinds' columns (table_cols_work.c):
 * every array well formed and the one printers[] serves, and the row
 * test_table_cols leaves out: replication controllers, DESIRED defaulting
 * to 1 as the apiserver defaults spec.replicas, the selector a plain
 * label map.
 */
#include "table_cols_test.h"

static void test_arrays(void)
{
	check_cols(tc_pod_cols, "", "pods");
	check_cols(tc_deployment_cols, "apps", "deployments");
	check_cols(tc_replicaset_cols, "apps", "replicasets");
	check_cols(tc_statefulset_cols, "apps", "statefulsets");
	check_cols(tc_daemonset_cols, "apps", "daemonsets");
	check_cols(tc_job_cols, "batch", "jobs");
	check_cols(tc_cronjob_cols, "batch", "cronjobs");
	check_cols(tc_replicationcontroller_cols, "", "replicationcontrollers");
	check_cols(tc_pdb_cols, "policy", "poddisruptionbudgets");
	check_cols(tc_hpa_cols, "autoscaling", "horizontalpodautoscalers");
	check_cols(tc_podtemplate_cols, "", "podtemplates");
	check_cols(tc_controllerrevision_cols, "apps", "controllerrevisions");
}

/* Pod templates and controller revisions, once NAME and AGE only. */
static void test_templates_and_revisions(void)
{
	CHECK_STR(cells("", "podtemplates",
			"{" META ",\"template\":{\"metadata\":{\"labels\":"
			"{\"z\":\"1\",\"a\":\"2\"}},\"spec\":{\"containers\":"
			"[{\"name\":\"c1\",\"image\":\"i1\"},{\"name\":"
			"\"c2\",\"image\":\"i2\"}]}}}"),
		  "\"x\",\"c1,c2\",\"i1,i2\",\"a=2,z=1\"");
	CHECK_STR(cells("", "podtemplates", "{" META "}"),
		  "\"x\",\"\",\"\",\"\\u003cnone\\u003e\"");
	/* the controller among the owners, as kind.group/name in lower
	 * case; the core group has no ".group" */
	CHECK_STR(
		cells("apps", "controllerrevisions",
		      "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":"
		      "\"2025-12-31T00:00:00Z\",\"ownerReferences\":["
		      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p\"},"
		      "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\","
		      "\"name\":\"Web\",\"controller\":true}]},"
		      "\"revision\":7}"),
		"\"x\",\"statefulset.apps/Web\",7,\"24h\"");
	CHECK_STR(
		cells("apps", "controllerrevisions",
		      "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":"
		      "\"2025-12-31T00:00:00Z\",\"ownerReferences\":["
		      "{\"apiVersion\":\"v1\",\"kind\":\"ReplicationController\","
		      "\"name\":\"rc\",\"controller\":true}]}}"),
		"\"x\",\"replicationcontroller/rc\",0,\"24h\"");
	CHECK_STR(cells("apps", "controllerrevisions",
			"{" META ",\"revision\":1}"),
		  "\"x\",\"\\u003cnone\\u003e\",1,\"24h\"");
}

static void test_rows(void)
{
	static const char rc[] =
		"{" META ",\"spec\":{%s\"selector\":{\"tier\":\"fe\","
		"\"app\":\"web\"},\"template\":{\"spec\":{\"containers\":["
		"{\"name\":\"c1\",\"image\":\"nginx\"},{\"name\":\"c2\","
		"\"image\":\"busybox\"}]}}},\"status\":{\"replicas\":2,"
		"\"readyReplicas\":1}}";
	char obj[1024];
	snprintf(obj, sizeof(obj), rc, "");
	CHECK_STR(cells("", "replicationcontrollers", obj),
		  "\"x\",1,2,1,\"24h\",\"c1,c2\",\"nginx,busybox\","
		  "\"app=web,tier=fe\"");
	snprintf(obj, sizeof(obj), rc, "\"replicas\":0,");
	CHECK_STR(cells("", "replicationcontrollers", obj),
		  "\"x\",0,2,1,\"24h\",\"c1,c2\",\"nginx,busybox\","
		  "\"app=web,tier=fe\"");
}

int main(void)
{
	test_arrays();
	test_rows();
	test_templates_and_revisions();
	return check_done("table_cols_work");
}
