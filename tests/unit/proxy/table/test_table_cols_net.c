/*
 * test_table_cols_net: the networking kinds' columns (table_cols_net.c):
 * every array well formed and the one printers[] serves, and the rows
 * test_table_cols leaves out: network policies' pod selector, "<none>"
 * for the empty one that selects every pod.
 */
#include "table_cols_test.h"

static void test_arrays(void)
{
	check_cols(tc_service_cols, "", "services");
	check_cols(tc_endpoints_cols, "", "endpoints");
	check_cols(tc_endpointslice_cols, "discovery.k8s.io", "endpointslices");
	check_cols(tc_ingressclass_cols, "networking.k8s.io", "ingressclasses");
	check_cols(tc_ingress_cols, "networking.k8s.io", "ingresses");
	check_cols(tc_networkpolicy_cols, "networking.k8s.io",
		   "networkpolicies");
}

static void test_rows(void)
{
	CHECK_STR(cells("networking.k8s.io", "networkpolicies",
			"{" META ",\"spec\":{\"podSelector\":{\"matchLabels\":"
			"{\"role\":\"db\"},\"matchExpressions\":[{\"key\":"
			"\"tier\",\"operator\":\"NotIn\",\"values\":[\"a\","
			"\"b\"]}]}}}"),
		  "\"x\",\"role=db,tier notin (a,b)\",\"24h\"");
	CHECK_STR(cells("networking.k8s.io", "networkpolicies",
			"{" META ",\"spec\":{\"podSelector\":{}}}"),
		  "\"x\",\"\\u003cnone\\u003e\",\"24h\"");
}

int main(void)
{
	test_arrays();
	test_rows();
	return check_done("table_cols_net");
}
