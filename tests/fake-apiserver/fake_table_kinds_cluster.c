/*
 * fake_table_kinds_cluster: the printers of secrets, service accounts,
 * events (core and events.k8s.io), leases, what prints NAME and CREATED
 * AT (CRDs, roles), role bindings, priority and storage classes, nodes,
 * persistent volumes and their claims (see fake_table_kinds_int.h).
 */
#include "fake_table_kinds_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *tk_print_secret(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_sget(o, "type")));
	tk_push(r, json_integer((json_int_t)json_object_size(
			   json_object_get(o, "data"))));
	tk_age_cell(r, o, now);
	return r;
}

json_t *tk_print_serviceaccount(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, json_integer((json_int_t)json_array_size(
			   json_object_get(o, "secrets"))));
	tk_age_cell(r, o, now);
	return r;
}

json_t *tk_print_event(json_t *o, time_t now)
{
	json_t *r = tk_row(), *series = tk_get(o, "series");
	json_t *first, *last;
	const char *kind = tk_sget(o, "involvedObject.kind");
	const char *name = tk_sget(o, "involvedObject.name");
	const char *comp = tk_sget(o, "source.component");
	const char *host = tk_sget(o, "source.host");
	const char *msg = tk_sget(o, "message");
	long long count = tk_iget(o, "count", 0);
	char target[512], src[512];
	size_t i, n;

	first = tk_parse_time(tk_sget(o, "firstTimestamp")) >= 0 ?
			tk_since(tk_sget(o, "firstTimestamp"), now) :
			tk_since(tk_sget(o, "eventTime"), now);
	last = tk_parse_time(tk_sget(o, "lastTimestamp")) >= 0 ?
		       tk_since(tk_sget(o, "lastTimestamp"), now) :
		       json_copy(first);
	if (series) {
		json_decref(last);
		last = tk_since(tk_sget(series, "lastObservedTime"), now);
		count = tk_iget(series, "count", 0);
	} else if (count == 0) {
		count = 1;
	}
	for (i = 0; kind[i] && i + 1 < sizeof(target); i++)
		target[i] = (char)tolower((unsigned char)kind[i]);
	target[i] = '\0';
	if (*name)
		snprintf(target + i, sizeof(target) - i, "/%s", name);
	if (!*comp)
		comp = tk_sget(o, "reportingComponent");
	if (!*host)
		host = tk_sget(o, "reportingInstance");
	snprintf(src, sizeof(src), *host ? "%s, %s" : "%s", comp, host);
	while (isspace((unsigned char)*msg))
		msg++;
	n = strlen(msg);
	while (n && isspace((unsigned char)msg[n - 1]))
		n--;

	tk_push(r, last);
	tk_push(r, tk_str(tk_sget(o, "type")));
	tk_push(r, tk_str(tk_sget(o, "reason")));
	tk_push(r, tk_str(target));
	tk_push(r, tk_str(tk_sget(o, "involvedObject.fieldPath")));
	tk_push(r, tk_str(src));
	tk_push(r, json_stringn(msg, n));
	tk_push(r, first);
	tk_push(r, json_integer(count));
	tk_name_cell(r, o);
	return r;
}

/* An events.k8s.io/v1 Event prints as the core Event the apiserver
 * converts it to: its fields renamed back. */
json_t *tk_print_event_v1(json_t *o, time_t now)
{
	static const char *const renamed[][2] = {
		{ "note", "message" },
		{ "regarding", "involvedObject" },
		{ "deprecatedSource", "source" },
		{ "deprecatedFirstTimestamp", "firstTimestamp" },
		{ "deprecatedLastTimestamp", "lastTimestamp" },
		{ "deprecatedCount", "count" },
		{ "reportingController", "reportingComponent" },
	};
	json_t *core = json_copy(o), *r;
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		json_t *v = json_object_get(o, renamed[i][0]);
		json_object_del(core, renamed[i][0]);
		if (v)
			json_object_set(core, renamed[i][1], v);
	}
	r = tk_print_event(core, now);
	json_decref(core);
	return r;
}

json_t *tk_print_lease(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_sget(o, "spec.holderIdentity")));
	tk_age_cell(r, o, now);
	return r;
}

static json_t *created_at(json_t *o)
{
	long long t = tk_parse_time(tk_sget(o, "metadata.creationTimestamp"));
	char ts[32] = "0001-01-01T00:00:00Z";
	if (t >= 0) {
		time_t tt = (time_t)t;
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	return tk_str(ts);
}

/* The default table convertor's: NAME and CREATED AT. */
json_t *tk_print_created(json_t *o, time_t now)
{
	json_t *r = tk_row();
	(void)now;
	tk_name_cell(r, o);
	tk_push(r, created_at(o));
	return r;
}

/* rbac.SubjectsStrings, one of its three lists. */
static json_t *subjects(json_t *o, const char *kind)
{
	struct tk_list l = { "", 0 };
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(o, "subjects"), i, x)
	{
		char item[300];
		if (strcmp(tk_sget(x, "kind"), kind))
			continue;
		if (!strcmp(kind, "ServiceAccount") && *tk_sget(x, "namespace"))
			snprintf(item, sizeof(item), "%s/%s",
				 tk_sget(x, "namespace"), tk_sget(x, "name"));
		else
			snprintf(item, sizeof(item), "%s", tk_sget(x, "name"));
		tk_add(&l, ", ", item);
	}
	return tk_str(l.s);
}

json_t *tk_print_binding(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, tk_fmt("%s/%s", tk_sget(o, "roleRef.kind"),
			  tk_sget(o, "roleRef.name")));
	tk_age_cell(r, o, now);
	tk_push(r, subjects(o, "User"));
	tk_push(r, subjects(o, "Group"));
	tk_push(r, subjects(o, "ServiceAccount"));
	return r;
}

json_t *tk_print_priorityclass(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, json_integer(tk_iget(o, "value", 0)));
	tk_push(r, json_boolean(json_is_true(tk_get(o, "globalDefault"))));
	tk_age_cell(r, o, now);
	tk_push(r, tk_str(tk_sget(o, "preemptionPolicy")));
	return r;
}

json_t *tk_print_storageclass(json_t *o, time_t now)
{
	json_t *r = tk_row(), *ann = tk_get(o, "metadata.annotations");
	const char *d1 = json_string_value(json_object_get(
		ann, "storageclass.kubernetes.io/is-default-class"));
	const char *d2 = json_string_value(json_object_get(
		ann, "storageclass.beta.kubernetes.io/is-default-class"));
	bool dflt = (d1 && !strcmp(d1, "true")) || (d2 && !strcmp(d2, "true"));
	tk_push(r, tk_fmt("%s%s", tk_sget(o, "metadata.name"),
			  dflt ? " (default)" : ""));
	tk_push(r, tk_str(tk_sget(o, "provisioner")));
	tk_push(r, tk_str(tk_get(o, "reclaimPolicy") ?
				  tk_sget(o, "reclaimPolicy") :
				  "Delete"));
	tk_push(r, tk_str(tk_get(o, "volumeBindingMode") ?
				  tk_sget(o, "volumeBindingMode") :
				  "Immediate"));
	tk_push(r,
		json_boolean(json_is_true(tk_get(o, "allowVolumeExpansion"))));
	tk_age_cell(r, o, now);
	return r;
}

static json_t *node_addr(json_t *o, const char *type)
{
	size_t i;
	json_t *a;
	json_array_foreach(tk_get(o, "status.addresses"), i, a)
	{
		if (!strcmp(tk_sget(a, "type"), type))
			return tk_str(tk_sget(a, "address"));
	}
	return tk_str("<none>");
}

static json_t *or_unknown(const char *s)
{
	return tk_str(*s ? s : "<unknown>");
}

json_t *tk_print_node(json_t *o, time_t now)
{
	json_t *r = tk_row(), *c, *v;
	const char *ready = NULL, *k, *roles[32];
	struct tk_list st = { "", 0 }, rl = { "", 0 };
	size_t i, n = 0;

	json_array_foreach(tk_get(o, "status.conditions"), i, c)
	{
		if (!strcmp(tk_sget(c, "type"), "Ready"))
			ready = tk_sget(c, "status");
	}
	tk_add(&st, "",
	       !ready		      ? "Unknown" :
	       !strcmp(ready, "True") ? "Ready" :
					"NotReady");
	if (json_is_true(tk_get(o, "spec.unschedulable")))
		tk_add(&st, "", ",SchedulingDisabled");
	json_object_foreach(tk_get(o, "metadata.labels"), k, v)
	{
		const char *p = "node-role.kubernetes.io/";
		if (n == 32)
			break;
		if (!strncmp(k, p, strlen(p)) && k[strlen(p)])
			roles[n++] = k + strlen(p);
		else if (!strcmp(k, "kubernetes.io/role") &&
			 *(json_string_value(v) ?: ""))
			roles[n++] = json_string_value(v);
	}
	qsort(roles, n, sizeof(*roles), tk_by_str);
	for (i = 0; i < n; i++)
		if (!i || strcmp(roles[i], roles[i - 1]))
			tk_add(&rl, ",", roles[i]);
	tk_name_cell(r, o);
	tk_push(r, tk_str(st.s));
	tk_push(r, tk_str(rl.n ? rl.s : "<none>"));
	tk_age_cell(r, o, now);
	tk_push(r, tk_str(tk_sget(o, "status.nodeInfo.kubeletVersion")));
	tk_push(r, node_addr(o, "InternalIP"));
	tk_push(r, node_addr(o, "ExternalIP"));
	tk_push(r, or_unknown(tk_sget(o, "status.nodeInfo.osImage")));
	tk_push(r, or_unknown(tk_sget(o, "status.nodeInfo.kernelVersion")));
	tk_push(r, or_unknown(tk_sget(
			   o, "status.nodeInfo.containerRuntimeVersion")));
	return r;
}

/* helper.GetAccessModesAsString */
static json_t *access_modes(json_t *modes)
{
	static const char *const order[][2] = { { "ReadWriteOnce", "RWO" },
						{ "ReadOnlyMany", "ROX" },
						{ "ReadWriteMany", "RWX" },
						{ "ReadWriteOncePod",
						  "RWOP" } };
	struct tk_list l = { "", 0 };
	for (size_t k = 0; k < 4; k++) {
		size_t i;
		json_t *m;
		json_array_foreach(modes, i, m)
		{
			if (!strcmp(json_string_value(m) ?: "", order[k][0])) {
				tk_add(&l, ",", order[k][1]);
				break;
			}
		}
	}
	return tk_str(l.s);
}

static const char *phase(json_t *o)
{
	return tk_get(o, "metadata.deletionTimestamp") ?
		       "Terminating" :
		       tk_sget(o, "status.phase");
}

static const char *storage_class(json_t *o)
{
	json_t *a = json_object_get(tk_get(o, "metadata.annotations"),
				    "volume.beta.kubernetes.io/storage-class");
	return a ? json_string_value(a) ?: "" :
		   tk_sget(o, "spec.storageClassName");
}

static json_t *or_unset(json_t *o, const char *path)
{
	return tk_str(tk_get(o, path) ? tk_sget(o, path) : "<unset>");
}

json_t *tk_print_pv(json_t *o, time_t now)
{
	json_t *r = tk_row(), *claim = tk_get(o, "spec.claimRef");
	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_get(o, "spec.capacity.storage") ?
				  tk_sget(o, "spec.capacity.storage") :
				  "0"));
	tk_push(r, access_modes(tk_get(o, "spec.accessModes")));
	tk_push(r, tk_str(tk_sget(o, "spec.persistentVolumeReclaimPolicy")));
	tk_push(r, tk_str(phase(o)));
	tk_push(r, claim ? tk_fmt("%s/%s", tk_sget(claim, "namespace"),
				  tk_sget(claim, "name")) :
			   tk_str(""));
	tk_push(r, tk_str(storage_class(o)));
	tk_push(r, or_unset(o, "spec.volumeAttributesClassName"));
	tk_push(r, tk_str(tk_sget(o, "status.reason")));
	tk_age_cell(r, o, now);
	tk_push(r, or_unset(o, "spec.volumeMode"));
	return r;
}

json_t *tk_print_pvc(json_t *o, time_t now)
{
	json_t *r = tk_row();
	bool bound = *tk_sget(o, "spec.volumeName");
	tk_name_cell(r, o);
	tk_push(r, tk_str(phase(o)));
	tk_push(r, tk_str(tk_sget(o, "spec.volumeName")));
	if (bound) {
		tk_push(r,
			tk_str(tk_get(o, "status.capacity.storage") ?
				       tk_sget(o, "status.capacity.storage") :
				       "0"));
		tk_push(r, access_modes(tk_get(o, "status.accessModes")));
	} else {
		tk_push(r, tk_str(""));
		tk_push(r, tk_str(""));
	}
	tk_push(r, tk_str(storage_class(o)));
	tk_push(r, or_unset(o, "spec.volumeAttributesClassName"));
	tk_age_cell(r, o, now);
	tk_push(r, or_unset(o, "spec.volumeMode"));
	return r;
}
