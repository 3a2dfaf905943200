/*
 * table_cols: the apiserver's Table columns for the built-in kinds, as
 * one declarative table (see table_cols_int.h): printers[] names, for each
 * kind, its column array.
 *
 * A kind's printer is a list of columns; a column is its definition
 * (name, type, format, description, priority) and an extractor: a small
 * named cell function, with an optional argument (a dotted JSON path),
 * that writes one JSON cell value from the stored object. The columns,
 * their order, types and priorities, and every cell's format follow the
 * kube-apiserver v1.32 printers (kubernetes pkg/printers/internalversion);
 * the server always prints wide, so priority-1 cells are always present
 * and kubectl drops them without -o wide. Descriptions are the API
 * documentation strings the apiserver sends, word for word.
 *
 * The column arrays and their own cell functions live by area in
 * table_cols_{work,net,store,cluster,policy}.c, the helpers and the cells they
 * share in table_cols_cell.c; table_cols_int.h lists them.
 *
 * What the apiserver defaults when an object is created (spec.replicas 1,
 * a ServicePort's protocol TCP) is read from the stored object; an object
 * stored without them prints the defaults.
 */
#include "proxy/table/table_cols_int.h"

#include <string.h>


struct proxy_table_cols {
	const char *group, *resource;
	const struct tc_col *cols; /* ended by TC_END */
	/* what the cells read of an object (proxy_table_cols_shape()), or
	 * NULL: all but metadata.managedFields */
	const struct json_shape *shape;
};

#define P(g, r, cols)            \
	{                        \
		g, r, cols, NULL \
	}
#define P_SHAPED(g, r, cols, shape) \
	{                           \
		g, r, cols, shape   \
	}

static const struct json_shape_key tc_meta_keys[] = {
	{ "managedFields", 13, &json_shape_skip },
};
const struct json_shape tc_meta_shape = { NULL, 1, tc_meta_keys };
static const struct json_shape_key row_keys[] = {
	{ "metadata", 8, &tc_meta_shape },
};
static const struct json_shape row_shape = { NULL, 1, row_keys };

static const struct proxy_table_cols printers[] = {
	P_SHAPED("", "pods", tc_pod_cols, &tc_pod_shape),
	P("", "configmaps", tc_configmap_cols),
	P("", "namespaces", tc_namespace_cols),
	P("apps", "deployments", tc_deployment_cols),
	P("apps", "replicasets", tc_replicaset_cols),
	P("apps", "statefulsets", tc_statefulset_cols),
	P("apps", "daemonsets", tc_daemonset_cols),
	P("batch", "jobs", tc_job_cols),
	P("batch", "cronjobs", tc_cronjob_cols),
	P("", "services", tc_service_cols),
	P("", "secrets", tc_secret_cols),
	P("", "serviceaccounts", tc_serviceaccount_cols),
	P("", "events", tc_event_cols),
	P("events.k8s.io", "events", tc_events_event_cols),
	P("coordination.k8s.io", "leases", tc_lease_cols),
	P("", "endpoints", tc_endpoints_cols),
	P("apiextensions.k8s.io", "customresourcedefinitions", tc_created_cols),
	P("rbac.authorization.k8s.io", "roles", tc_created_cols),
	P("rbac.authorization.k8s.io", "clusterroles", tc_created_cols),
	P("rbac.authorization.k8s.io", "rolebindings", tc_rolebinding_cols),
	P("rbac.authorization.k8s.io", "clusterrolebindings",
	  tc_clusterrolebinding_cols),
	P("scheduling.k8s.io", "priorityclasses", tc_priorityclass_cols),
	P("networking.k8s.io", "ingressclasses", tc_ingressclass_cols),
	P("networking.k8s.io", "ingresses", tc_ingress_cols),
	P("networking.k8s.io", "networkpolicies", tc_networkpolicy_cols),
	P("storage.k8s.io", "storageclasses", tc_storageclass_cols),
	P("", "replicationcontrollers", tc_replicationcontroller_cols),
	P("policy", "poddisruptionbudgets", tc_pdb_cols),
	P("discovery.k8s.io", "endpointslices", tc_endpointslice_cols),
	P("", "nodes", tc_node_cols),
	P("", "persistentvolumes", tc_pv_cols),
	P("", "persistentvolumeclaims", tc_pvc_cols),
	P("autoscaling", "horizontalpodautoscalers", tc_hpa_cols),
	P("", "podtemplates", tc_podtemplate_cols),
	P("apps", "controllerrevisions", tc_controllerrevision_cols),
	/* no printer of its own: the default convertor's CREATED AT */
	P("", "limitranges", tc_created_cols),
	P("", "resourcequotas", tc_resourcequota_cols),
	P("certificates.k8s.io", "certificatesigningrequests", tc_csr_cols),
	P("admissionregistration.k8s.io", "validatingwebhookconfigurations",
	  tc_webhook_cols),
	P("admissionregistration.k8s.io", "mutatingwebhookconfigurations",
	  tc_webhook_cols),
	P("node.k8s.io", "runtimeclasses", tc_runtimeclass_cols),
	P("storage.k8s.io", "csidrivers", tc_csidriver_cols),
	P("storage.k8s.io", "volumeattachments", tc_volumeattachment_cols),
	P("flowcontrol.apiserver.k8s.io", "flowschemas", tc_flowschema_cols),
	P("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations",
	  tc_plc_cols),
};

const struct proxy_table_cols *proxy_table_cols_find(const char *group,
						     const char *resource)
{
	for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
		if (!strcmp(printers[i].group, group) &&
		    !strcmp(printers[i].resource, resource))
			return &printers[i];
	return NULL;
}

const struct json_shape *
proxy_table_cols_shape(const struct proxy_table_cols *p)
{
	return p->shape ? p->shape : &row_shape;
}

void proxy_table_cols_definitions(struct buf *b,
				  const struct proxy_table_cols *p)
{
	buf_addc(b, '[');
	for (const struct tc_col *c = p->cols; c->name; c++) {
		buf_printf(b, "%s{\"name\":", c > p->cols ? "," : "");
		tc_put_str(b, c->name);
		buf_printf(
			b,
			",\"type\":\"%s\",\"format\":\"%s\",\"description\":",
			c->type, c->format);
		tc_put_str(b, c->desc);
		buf_printf(b, ",\"priority\":%d}", c->priority);
	}
	buf_addc(b, ']');
}

void proxy_table_cols_cells(struct buf *b, const struct proxy_table_cols *p,
			    const struct json_doc *d, time_t now,
			    const struct proxy_table_pod_summary *pod)
{
	struct tc_pod kept = { .made = pod != NULL };
	if (pod)
		kept.sum = *pod;
	struct tc_row r = { d, now, &kept };
	for (const struct tc_col *c = p->cols; c->name; c++) {
		if (c > p->cols)
			buf_addc(b, ',');
		c->cell(b, &r, c->arg);
	}
}
