/*
 * test_table_cols_store: the configuration and storage kinds' columns
 * (table_cols_store.c): every array well formed and the one printers[]
 * serves, and rows test_table_cols leaves out: a config map's DATA
 * counting data and binaryData keys together, and a secret's TYPE.
 */
#include "table_cols_test.h"

static void test_arrays(void)
{
	check_cols(tc_configmap_cols, "", "configmaps");
	check_cols(tc_secret_cols, "", "secrets");
	check_cols(tc_serviceaccount_cols, "", "serviceaccounts");
	check_cols(tc_storageclass_cols, "storage.k8s.io", "storageclasses");
	check_cols(tc_pv_cols, "", "persistentvolumes");
	check_cols(tc_pvc_cols, "", "persistentvolumeclaims");
	check_cols(tc_csidriver_cols, "storage.k8s.io", "csidrivers");
	check_cols(tc_volumeattachment_cols, "storage.k8s.io",
		   "volumeattachments");
}

/* CSI drivers' defaults when unset, and volume attachments. */
static void test_csi(void)
{
	CHECK_STR(
		cells("storage.k8s.io", "csidrivers", "{" META ",\"spec\":{}}"),
		"\"x\",true,false,false,\"\\u003cunset\\u003e\",false,"
		"\"\\u003cnone\\u003e\",\"24h\"");
	CHECK_STR(
		cells("storage.k8s.io", "csidrivers",
		      "{" META ",\"spec\":{\"attachRequired\":false,"
		      "\"podInfoOnMount\":true,\"storageCapacity\":true,"
		      "\"tokenRequests\":[{\"audience\":\"a\"},{\"audience\":"
		      "\"b\",\"expirationSeconds\":600}],\"requiresRepublish\":"
		      "true,\"volumeLifecycleModes\":[\"Persistent\","
		      "\"Ephemeral\"]}}"),
		"\"x\",false,true,true,\"a,b\",true,"
		"\"Persistent,Ephemeral\",\"24h\"");
	CHECK_STR(cells("storage.k8s.io", "volumeattachments",
			"{" META ",\"spec\":{\"attacher\":\"csi.x\",\"source\":"
			"{\"persistentVolumeName\":\"pv-1\"},\"nodeName\":"
			"\"n1\"},\"status\":{\"attached\":true}}"),
		  "\"x\",\"csi.x\",\"pv-1\",\"n1\",true,\"24h\"");
	CHECK_STR(cells("storage.k8s.io", "volumeattachments",
			"{" META ",\"spec\":{\"attacher\":\"csi.x\",\"source\":"
			"{\"inlineVolumeSpec\":{}},\"nodeName\":\"n1\"}}"),
		  "\"x\",\"csi.x\",\"\",\"n1\",false,\"24h\"");
}

static void test_rows(void)
{
	CHECK_STR(cells("", "configmaps",
			"{" META ",\"data\":{\"a\":\"1\",\"b\":\"2\"},"
			"\"binaryData\":{\"c\":\"AA==\"}}"),
		  "\"x\",3,\"24h\"");
	CHECK_STR(cells("", "configmaps", "{" META "}"), "\"x\",0,\"24h\"");
	CHECK_STR(cells("", "secrets",
			"{" META ",\"type\":\"kubernetes.io/tls\",\"data\":"
			"{\"tls.crt\":\"\",\"tls.key\":\"\"}}"),
		  "\"x\",\"kubernetes.io/tls\",2,\"24h\"");
}

int main(void)
{
	test_arrays();
	test_rows();
	test_csi();
	return check_done("table_cols_store");
}
