/*
 * test_table_cols_policy: the quota, certificate, admission, runtime and
 * flow control kinds' columns (table_cols_policy.c): every array well
 * formed and the one printers[] serves, and their cells as the
 * apiserver's printers compute them, defaults and absent fields
 * included.
 */
#include "table_cols_test.h"

static void test_arrays(void)
{
	check_cols(tc_resourcequota_cols, "", "resourcequotas");
	check_cols(tc_csr_cols, "certificates.k8s.io",
		   "certificatesigningrequests");
	check_cols(tc_webhook_cols, "admissionregistration.k8s.io",
		   "validatingwebhookconfigurations");
	check_cols(tc_webhook_cols, "admissionregistration.k8s.io",
		   "mutatingwebhookconfigurations");
	check_cols(tc_runtimeclass_cols, "node.k8s.io", "runtimeclasses");
	check_cols(tc_flowschema_cols, "flowcontrol.apiserver.k8s.io",
		   "flowschemas");
	check_cols(tc_plc_cols, "flowcontrol.apiserver.k8s.io",
		   "prioritylevelconfigurations");
	/* limit ranges have no printer: the default convertor's columns */
	struct buf a = BUF_INIT, b = BUF_INIT;
	proxy_table_cols_definitions(&a,
				     proxy_table_cols_find("", "limitranges"));
	proxy_table_cols_definitions(
		&b,
		proxy_table_cols_find("rbac.authorization.k8s.io", "roles"));
	buf_addc(&a, '\0');
	buf_addc(&b, '\0');
	CHECK(a.p && b.p && !strcmp(a.p, b.p) &&
	      strstr(a.p, "\"Created At\",\"type\":\"date\""));
	buf_free(&a);
	buf_free(&b);
	CHECK_STR(cells("", "limitranges", "{" META "}"),
		  "\"x\",\"2025-12-31T00:00:00Z\"");
}

static void test_quota(void)
{
	/* names in order; limits.* to LIMIT; a resource not yet used is 0 */
	CHECK_STR(
		cells("", "resourcequotas",
		      "{" META ",\"status\":{\"hard\":{\"requests.cpu\":\"2\","
		      "\"pods\":\"10\",\"limits.memory\":\"8Gi\","
		      "\"limits.cpu\":\"4\",\"limitsx\":\"1\"},\"used\":"
		      "{\"pods\":\"3\",\"limits.cpu\":\"1500m\"}}}"),
		"\"x\",\"limitsx: 0/1, pods: 3/10, requests.cpu: "
		"0/2\",\"limits.cpu: 1500m/4, limits.memory: 0/8Gi\",\"24h\"");
	CHECK_STR(cells("", "resourcequotas", "{" META "}"),
		  "\"x\",\"\",\"\",\"24h\"");
}

static void test_csr(void)
{
	CHECK_STR(cells("certificates.k8s.io", "certificatesigningrequests",
			"{" META ",\"spec\":{\"signerName\":\"a.io/b\","
			"\"username\":\"alice\",\"expirationSeconds\":600},"
			"\"status\":{\"certificate\":\"Zm9v\",\"conditions\":"
			"[{\"type\":\"Approved\",\"status\":\"True\"}]}}"),
		  "\"x\",\"24h\",\"a.io/b\",\"alice\",\"10m\","
		  "\"Approved,Issued\"");
	/* Denied wins over Approved; any status counts */
	CHECK_STR(
		cells("certificates.k8s.io", "certificatesigningrequests",
		      "{" META ",\"spec\":{\"username\":\"bob\"},"
		      "\"status\":{\"conditions\":[{\"type\":\"Approved\","
		      "\"status\":\"True\"},{\"type\":\"Failed\",\"status\":"
		      "\"False\"},{\"type\":\"Denied\",\"status\":\"True\"}]}}"),
		"\"x\",\"24h\",\"\\u003cnone\\u003e\",\"bob\","
		"\"\\u003cnone\\u003e\",\"Denied,Failed\"");
	CHECK_STR(cells("certificates.k8s.io", "certificatesigningrequests",
			"{" META ",\"spec\":{\"expirationSeconds\":172800},"
			"\"status\":{\"certificate\":\"\"}}"),
		  "\"x\",\"24h\",\"\\u003cnone\\u003e\",\"\",\"2d\","
		  "\"Pending\"");
}

static void test_small_kinds(void)
{
	CHECK_STR(cells("admissionregistration.k8s.io",
			"validatingwebhookconfigurations",
			"{" META ",\"webhooks\":[{\"name\":\"a\"},"
			"{\"name\":\"b\"}]}"),
		  "\"x\",2,\"24h\"");
	CHECK_STR(cells("admissionregistration.k8s.io",
			"mutatingwebhookconfigurations", "{" META "}"),
		  "\"x\",0,\"24h\"");
	CHECK_STR(cells("node.k8s.io", "runtimeclasses",
			"{" META ",\"handler\":\"runc\"}"),
		  "\"x\",\"runc\",\"24h\"");
}

static void test_flow_control(void)
{
	CHECK_STR(
		cells("flowcontrol.apiserver.k8s.io", "flowschemas",
		      "{" META ",\"spec\":{\"priorityLevelConfiguration\":"
		      "{\"name\":\"global-default\"},\"matchingPrecedence\":"
		      "9900,\"distinguisherMethod\":{\"type\":\"ByUser\"}},"
		      "\"status\":{\"conditions\":[{\"type\":\"Other\","
		      "\"status\":\"True\"},{\"type\":\"Dangling\",\"status\":"
		      "\"False\"}]}}"),
		"\"x\",\"global-default\",9900,\"ByUser\",\"24h\",\"False\"");
	CHECK_STR(cells("flowcontrol.apiserver.k8s.io", "flowschemas",
			"{" META ",\"spec\":{\"priorityLevelConfiguration\":"
			"{\"name\":\"p\"}}}"),
		  "\"x\",\"p\",0,\"\\u003cnone\\u003e\",\"24h\",\"?\"");
	CHECK_STR(cells("flowcontrol.apiserver.k8s.io",
			"prioritylevelconfigurations",
			"{" META ",\"spec\":{\"type\":\"Limited\",\"limited\":"
			"{\"nominalConcurrencyShares\":30,\"limitResponse\":"
			"{\"type\":\"Queue\",\"queuing\":{\"queues\":64,"
			"\"handSize\":6,\"queueLengthLimit\":50}}}}}"),
		  "\"x\",\"Limited\",30,64,6,50,\"24h\"");
	CHECK_STR(cells("flowcontrol.apiserver.k8s.io",
			"prioritylevelconfigurations",
			"{" META ",\"spec\":{\"type\":\"Limited\",\"limited\":"
			"{\"nominalConcurrencyShares\":5,\"limitResponse\":"
			"{\"type\":\"Reject\"}}}}"),
		  "\"x\",\"Limited\",5,\"\\u003cnone\\u003e\","
		  "\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\",\"24h\"");
	CHECK_STR(cells("flowcontrol.apiserver.k8s.io",
			"prioritylevelconfigurations",
			"{" META
			",\"spec\":{\"type\":\"Exempt\",\"exempt\":{}}}"),
		  "\"x\",\"Exempt\",\"\\u003cnone\\u003e\","
		  "\"\\u003cnone\\u003e\",\"\\u003cnone\\u003e\","
		  "\"\\u003cnone\\u003e\",\"24h\"");
}

int main(void)
{
	test_arrays();
	test_quota();
	test_csr();
	test_small_kinds();
	test_flow_control();
	return check_done("table_cols_policy");
}
