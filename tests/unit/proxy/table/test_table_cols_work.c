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
	return check_done("table_cols_work");
}
