/*
 * test_table_cols_cluster: the cluster and bookkeeping kinds' columns
 * (table_cols_cluster.c): every array well formed and the one printers[]
 * serves, and the rows test_table_cols leaves out: namespaces, cluster
 * role bindings (subjects by kind, service accounts as namespace/name)
 * and CRDs' creation time in RFC 3339.
 */
#include "table_cols_test.h"

static void test_arrays(void)
{
	check_cols(tc_namespace_cols, "", "namespaces");
	check_cols(tc_event_cols, "", "events");
	check_cols(tc_events_event_cols, "events.k8s.io", "events");
	check_cols(tc_lease_cols, "coordination.k8s.io", "leases");
	check_cols(tc_created_cols, "apiextensions.k8s.io",
		   "customresourcedefinitions");
	check_cols(tc_created_cols, "rbac.authorization.k8s.io", "roles");
	check_cols(tc_rolebinding_cols, "rbac.authorization.k8s.io",
		   "rolebindings");
	check_cols(tc_clusterrolebinding_cols, "rbac.authorization.k8s.io",
		   "clusterrolebindings");
	check_cols(tc_priorityclass_cols, "scheduling.k8s.io",
		   "priorityclasses");
	check_cols(tc_node_cols, "", "nodes");
	/* PREEMPTIONPOLICY is one of plain kubectl get's columns */
	struct buf b = BUF_INIT;
	proxy_table_cols_definitions(
		&b,
		proxy_table_cols_find("scheduling.k8s.io", "priorityclasses"));
	buf_addc(&b, '\0');
	CHECK(b.p && count_of(b.p, "\"priority\":1") == 0 &&
	      strstr(b.p, "{\"name\":\"PreemptionPolicy\""));
	buf_free(&b);
}

static void test_rows(void)
{
	CHECK_STR(cells("", "namespaces",
			"{" META ",\"status\":{\"phase\":\"Terminating\"}}"),
		  "\"x\",\"Terminating\",\"24h\"");
	CHECK_STR(cells("rbac.authorization.k8s.io", "clusterrolebindings",
			"{" META ",\"roleRef\":{\"kind\":\"ClusterRole\","
			"\"name\":\"admin\"},\"subjects\":["
			"{\"kind\":\"ServiceAccount\",\"name\":\"default\","
			"\"namespace\":\"kube-system\"},"
			"{\"kind\":\"User\",\"name\":\"alice\"},"
			"{\"kind\":\"Group\",\"name\":\"devs\"},"
			"{\"kind\":\"User\",\"name\":\"bob\"},"
			"{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}"),
		  "\"x\",\"ClusterRole/admin\",\"24h\",\"alice, bob\","
		  "\"devs\",\"kube-system/default, sa\"");
	/* no subjects at all: empty cells, not "<none>" */
	CHECK_STR(cells("rbac.authorization.k8s.io", "clusterrolebindings",
			"{" META ",\"roleRef\":{\"kind\":\"ClusterRole\","
			"\"name\":\"view\"}}"),
		  "\"x\",\"ClusterRole/view\",\"24h\",\"\",\"\",\"\"");
	CHECK_STR(cells("apiextensions.k8s.io", "customresourcedefinitions",
			"{\"metadata\":{\"name\":\"widgets.example.com\","
			"\"creationTimestamp\":\"2025-06-30T12:34:56Z\"}}"),
		  "\"widgets.example.com\",\"2025-06-30T12:34:56Z\"");
}

int main(void)
{
	test_arrays();
	test_rows();
	return check_done("table_cols_cluster");
}
