/*
 * fake_table_kinds: which printer each kind has (see fake_table_kinds.h);
 * the printers themselves are in fake_table_kinds_work.c, _net.c and
 * _cluster.c, their shared helpers in fake_table_kinds_read.c (the
 * layout is in fake_table_kinds_int.h).
 */
#include "fake_table_kinds.h"

#include <string.h>

#include "fake_res.h"
#include "fake_table_kinds_cols.h"
#include "fake_table_kinds_int.h"

static const struct {
	const char *key;
	json_t *(*print)(json_t *o, time_t now);
} printers[] = {
	{ "customresourcedefinitions.apiextensions.k8s.io", tk_print_created },
	{ "deployments.apps", tk_print_deployment },
	{ "replicasets.apps", tk_print_replicaset },
	{ "statefulsets.apps", tk_print_statefulset },
	{ "daemonsets.apps", tk_print_daemonset },
	{ "jobs.batch", tk_print_job },
	{ "cronjobs.batch", tk_print_cronjob },
	{ "services", tk_print_service },
	{ "secrets", tk_print_secret },
	{ "serviceaccounts", tk_print_serviceaccount },
	{ "endpoints", tk_print_endpoints },
	{ "events", tk_print_event },
	{ "leases.coordination.k8s.io", tk_print_lease },
	{ "roles.rbac.authorization.k8s.io", tk_print_created },
	{ "clusterroles.rbac.authorization.k8s.io", tk_print_created },
	{ "rolebindings.rbac.authorization.k8s.io", tk_print_binding },
	{ "clusterrolebindings.rbac.authorization.k8s.io", tk_print_binding },
	{ "priorityclasses.scheduling.k8s.io", tk_print_priorityclass },
	{ "ingressclasses.networking.k8s.io", tk_print_ingressclass },
	{ "ingresses.networking.k8s.io", tk_print_ingress },
	{ "networkpolicies.networking.k8s.io", tk_print_networkpolicy },
	{ "storageclasses.storage.k8s.io", tk_print_storageclass },
	{ "replicationcontrollers", tk_print_rc },
	{ "poddisruptionbudgets.policy", tk_print_pdb },
	{ "endpointslices.discovery.k8s.io", tk_print_endpointslice },
	{ "nodes", tk_print_node },
	{ "persistentvolumes", tk_print_pv },
	{ "persistentvolumeclaims", tk_print_pvc },
	{ "horizontalpodautoscalers.autoscaling", tk_print_hpa },
	{ "events.events.k8s.io", tk_print_event_v1 },
};

const char *fake_table_kinds_columns(int res)
{
	for (size_t i = 0; i < sizeof(kind_cols) / sizeof(kind_cols[0]); i++)
		if (!strcmp(kind_cols[i].key, fake_res_table[res].key))
			return kind_cols[i].cols;
	return NULL;
}

json_t *fake_table_kinds_cells(int res, json_t *o, time_t now)
{
	for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
		if (!strcmp(printers[i].key, fake_res_table[res].key))
			return printers[i].print(o, now);
	return NULL;
}
