/*
 * fake_res: the static table of served resources and their counters
 * (see fake_res.h).
 *
 * Selectable fields follow the real apiserver's registries: pods expose
 * the spec and status fields kubelets and controllers select on,
 * namespaces expose status.phase, the others only metadata.
 */
#include "fake_res.h"

#include <string.h>

const struct fake_res fake_res_table[FAKE_NRES] = {
	[FAKE_RES_NAMESPACES] = {
		.resource = "namespaces", .singular = "namespace",
		.kind = "Namespace", .list_kind = "NamespaceList",
		.namespaced = false, .short_name = "ns",
		.hash = "Q3oi5N2YM8M=",
		.fields = { "status.phase", NULL },
		.bookmark_tail = ",\"spec\":{},\"status\":{}",
	},
	[FAKE_RES_PODS] = {
		.resource = "pods", .singular = "pod",
		.kind = "Pod", .list_kind = "PodList",
		.namespaced = true, .short_name = "po", .category_all = true,
		.hash = "xPOwRZ+Yhw8=",
		.fields = { "spec.nodeName", "spec.restartPolicy",
			    "spec.schedulerName", "spec.serviceAccountName",
			    "status.phase", "status.podIP",
			    "status.nominatedNodeName", NULL },
		.bookmark_tail = ",\"spec\":{\"containers\":null},\"status\":{}",
	},
	[FAKE_RES_CONFIGMAPS] = {
		.resource = "configmaps", .singular = "configmap",
		.kind = "ConfigMap", .list_kind = "ConfigMapList",
		.namespaced = true, .short_name = "cm",
		.hash = "qFsyl6wFWjQ=",
		.fields = { NULL },
		.bookmark_tail = "",
	},
	[FAKE_RES_SERVICES] = {
		.resource = "services", .singular = "service",
		.kind = "Service", .list_kind = "ServiceList",
		.namespaced = true, .short_name = "svc", .category_all = true,
		.hash = "0/CO1lhkEBI=",
		.fields = { NULL },
		.bookmark_tail = ",\"spec\":{},\"status\":{\"loadBalancer\":{}}",
	},
};

struct fake_res_stats fake_res_stats[FAKE_NRES];

int fake_res_find(const char *resource)
{
	for (int i = 0; i < FAKE_NRES; i++)
		if (strcmp(fake_res_table[i].resource, resource) == 0)
			return i;
	return -1;
}

int fake_res_nfields(int res)
{
	int n = 0;
	while (fake_res_table[res].fields[n])
		n++;
	return n;
}
