/*
 * table_cols_cluster: the columns of cluster-wide and bookkeeping kinds:
 * namespaces, nodes, events (core and events.k8s.io), leases, priority
 * classes, custom resource definitions and RBAC roles and bindings, with
 * their own cell functions.
 */
#include "proxy/table/table_cols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"

/* ---- events ---- */

/* An event's fields: core/v1 names, or events.k8s.io/v1's. */
struct ev_names {
	const char *first, *last, *count, *object, *message, *source,
		*controller;
};

static const struct ev_names ev_core = {
	"firstTimestamp",     "lastTimestamp", "count",
	"involvedObject",     "message",       "source",
	"reportingComponent",
};

static const struct ev_names ev_events = {
	"deprecatedFirstTimestamp",
	"deprecatedLastTimestamp",
	"deprecatedCount",
	"regarding",
	"note",
	"deprecatedSource",
	"reportingController",
};

static const struct ev_names *ev_of(const char *arg)
{
	return arg && !strcmp(arg, "events.k8s.io") ? &ev_events : &ev_core;
}

/* FIRST SEEN: firstTimestamp, else eventTime. */
static void ev_first(struct buf *b, const struct tc_row *r,
		     const struct ev_names *n)
{
	int t = tc_at(r, n->first);
	int64_t x;
	tc_put_since(b, r, tc_time_of(r->d, t, &x) ? t : tc_at(r, "eventTime"));
}

static void c_ev_first(struct buf *b, const struct tc_row *r, const char *arg)
{
	ev_first(b, r, ev_of(arg));
}

static void c_ev_last(struct buf *b, const struct tc_row *r, const char *arg)
{
	const struct ev_names *n = ev_of(arg);
	int64_t x;
	int series = tc_at(r, "series");
	if (!tc_is_null(r->d, series))
		tc_put_since(b, r, json_get(r->d, series, "lastObservedTime"));
	else if (tc_time_of(r->d, tc_at(r, n->last), &x))
		tc_put_since(b, r, tc_at(r, n->last));
	else
		ev_first(b, r, n);
}

static void c_ev_count(struct buf *b, const struct tc_row *r, const char *arg)
{
	int series = tc_at(r, "series");
	int64_t c = tc_int_of(r->d, tc_at(r, ev_of(arg)->count), 0);
	if (!tc_is_null(r->d, series))
		c = tc_int_of(r->d, json_get(r->d, series, "count"), 0);
	else if (!c)
		c = 1; /* singleton events have no count */
	tc_put_int(b, c);
}

/* OBJECT: kind in lower case, then /name when there is one. */
static void c_ev_object(struct buf *b, const struct tc_row *r, const char *arg)
{
	int o = tc_at(r, ev_of(arg)->object);
	char *kind = tc_dup_str(r->d, json_get(r->d, o, "kind"));
	char *name = tc_dup_str(r->d, json_get(r->d, o, "name"));
	struct buf s = BUF_INIT;
	for (char *p = kind; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	buf_adds(&s, kind);
	if (name[0])
		buf_printf(&s, "/%s", name);
	tc_put_buf(b, &s);
	free(kind);
	free(name);
}

static void c_ev_subobject(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	tc_put_token_str(
		b, r->d,
		json_get(r->d, tc_at(r, ev_of(arg)->object), "fieldPath"));
}

/* SOURCE: component (or the reporting controller), then ", host" (or
 * the reporting instance) when there is one. */
static void c_ev_source(struct buf *b, const struct tc_row *r, const char *arg)
{
	const struct ev_names *n = ev_of(arg);
	int src = tc_at(r, n->source);
	char *comp = tc_dup_str(r->d, json_get(r->d, src, "component"));
	char *host = tc_dup_str(r->d, json_get(r->d, src, "host"));
	struct buf s = BUF_INIT;
	if (!comp[0]) {
		free(comp);
		comp = tc_dup_str(r->d, tc_at(r, n->controller));
	}
	if (!host[0]) {
		free(host);
		host = tc_dup_str(r->d, tc_at(r, "reportingInstance"));
	}
	buf_adds(&s, comp);
	if (host[0])
		buf_printf(&s, ", %s", host);
	tc_put_buf(b, &s);
	free(comp);
	free(host);
}

/* MESSAGE without leading and trailing white space. */
static void c_ev_message(struct buf *b, const struct tc_row *r, const char *arg)
{
	char *m = tc_dup_str(r->d, tc_at(r, ev_of(arg)->message)), *s = m;
	size_t n;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
	       *s == '\v' || *s == '\f')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
		     s[n - 1] == '\r' || s[n - 1] == '\v' || s[n - 1] == '\f'))
		n--;
	buf_add_json_str(b, s, n);
	free(m);
}

/* The default table convertor's CREATED AT: the creation time in RFC
 * 3339, UTC (the apiserver prints a zero time for an unset one). */
static void c_created_at(struct buf *b, const struct tc_row *r, const char *arg)
{
	int64_t t;
	char s[32] = "0001-01-01T00:00:00Z";
	(void)arg;
	if (tc_time_of(r->d, tc_at(r, "metadata.creationTimestamp"), &t)) {
		time_t tt = (time_t)t;
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	tc_put_str(b, s);
}

/* ---- CRDs and RBAC ---- */

/* USERS, GROUPS or SERVICEACCOUNTS of a binding (arg: the subject kind),
 * joined by ", "; a service account as namespace/name. */
static void c_subjects(struct buf *b, const struct tc_row *r, const char *arg)
{
	int subs = tc_at(r, "subjects");
	struct tc_sbuf s = { BUF_INIT, 0 };
	for (int x = tc_members(r->d, subs) ? json_first(r->d, subs) : -1;
	     x > 0; x = json_next(r->d, subs, x)) {
		if (!tc_str_eq(r->d, json_get(r->d, x, "kind"), arg))
			continue;
		char *name = tc_dup_str(r->d, json_get(r->d, x, "name"));
		char *ns = tc_dup_str(r->d, json_get(r->d, x, "namespace"));
		struct buf t = BUF_INIT;
		if (!strcmp(arg, "ServiceAccount") && ns[0])
			buf_printf(&t, "%s/%s", ns, name);
		else
			buf_adds(&t, name);
		buf_addc(&t, '\0');
		tc_sb_item(&s, ", ", t.p ? t.p : "", t.p ? strlen(t.p) : 0);
		buf_free(&t);
		free(name);
		free(ns);
	}
	tc_sb_put(b, &s, "");
}

/* ---- nodes ---- */

static void c_node_status(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	int conds = tc_at(r, "status.conditions");
	const char *st = "Unknown";
	struct buf s = BUF_INIT;
	(void)arg;
	/* the last Ready condition wins, as the printer's map does */
	for (int c = tc_members(r->d, conds) ? json_first(r->d, conds) : -1;
	     c > 0; c = json_next(r->d, conds, c))
		if (tc_str_eq(r->d, json_get(r->d, c, "type"), "Ready"))
			st = tc_str_eq(r->d, json_get(r->d, c, "status"),
				       "True") ?
				     "Ready" :
				     "NotReady";
	buf_adds(&s, st);
	int u = tc_at(r, "spec.unschedulable");
	size_t n;
	if (u >= 0 && *json_raw(r->d, u, &n) == 't')
		buf_adds(&s, ",SchedulingDisabled");
	tc_put_buf(b, &s);
}

static void c_node_roles(struct buf *b, const struct tc_row *r, const char *arg)
{
	static const char pfx[] = "node-role.kubernetes.io/";
	int m = tc_at(r, "metadata.labels"), n = tc_members(r->d, m), i = 0;
	char **v = n ? xcalloc((size_t)n, sizeof(*v)) : NULL;
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int k = n && json_type(r->d, m) == JSMN_OBJECT ?
			     json_first(r->d, m) :
			     -1;
	     k > 0 && i < n; k = json_next(r->d, m, k)) {
		char *key = tc_dup_str(r->d, k), *val = tc_dup_str(r->d, k + 1);
		if (!strncmp(key, pfx, sizeof(pfx) - 1) && key[sizeof(pfx) - 1])
			v[i++] = xstrdup(key + sizeof(pfx) - 1);
		else if (!strcmp(key, "kubernetes.io/role") && val[0])
			v[i++] = xstrdup(val);
		free(key);
		free(val);
	}
	tc_sort_n(v, (size_t)i, sizeof(*v), tc_cmp_str);
	for (int j = 0; j < i; j++)
		if (!j || strcmp(v[j], v[j - 1]))
			tc_sb_item(&s, ",", v[j], strlen(v[j]));
	for (int j = 0; j < i; j++)
		free(v[j]);
	free(v);
	tc_sb_put(b, &s, "<none>");
}

/* The first address of type arg, "<none>". */
static void c_node_addr(struct buf *b, const struct tc_row *r, const char *arg)
{
	int as = tc_at(r, "status.addresses");
	for (int a = tc_members(r->d, as) ? json_first(r->d, as) : -1; a > 0;
	     a = json_next(r->d, as, a))
		if (tc_str_eq(r->d, json_get(r->d, a, "type"), arg)) {
			tc_put_token_str(b, r->d, json_get(r->d, a, "address"));
			return;
		}
	tc_put_str(b, "<none>");
}

/* The string at arg, "<unknown>" when empty. */
static void c_str_or_unknown(struct buf *b, const struct tc_row *r,
			     const char *arg)
{
	char *s = tc_dup_str(r->d, tc_at(r, arg));
	tc_put_str(b, s[0] ? s : "<unknown>");
	free(s);
}

const struct tc_col tc_namespace_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "The status of the namespace", 0, tc_cell_str,
	  "status.phase" },
	AGE_COL,
	TC_END,
};

#define EVENT_COLS(g)                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
	{ "Last Seen",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
	  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 \
	  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
	  "The time at which the most recent occurrence of this event was recorded.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
	  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        \
	  c_ev_last,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
	  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		{ "Type",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "Type of this event (Normal, Warning), new types could be added in the future",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   \
		  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  tc_cell_str,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		  "type" },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		{ "Reason",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  tc_cell_str,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		  "reason" },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
		{ "Object", "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "",	    "The object that this event is about.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 \
		  0,	    c_ev_object,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Subobject",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", \
		  1,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_subobject,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Source",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "The component reporting this event. Should be a short machine understandable string.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           \
		  1,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_source,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Message",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "A human-readable description of the status of this operation.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  \
		  0,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_message,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "First Seen",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     \
		  "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         \
		  "",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               \
		  "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
		  1,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  c_ev_first,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		{ "Count", "string",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                \
		  "",	   "The number of times this event has occurred.",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          \
		  1,	   c_ev_count,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
		  g },                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              \
	{                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           \
		"Name", "string", "name", proxy_table_cols_name_description,                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        \
			1, tc_cell_name, NULL                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       \
	}

const struct tc_col tc_event_cols[] = { EVENT_COLS(NULL), TC_END };
const struct tc_col tc_events_event_cols[] = { EVENT_COLS("events.k8s.io"),
					       TC_END };

const struct tc_col tc_lease_cols[] = {
	NAME_COL,
	{ "Holder", "string", "",
	  "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
	  0, tc_cell_str, "spec.holderIdentity" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_created_cols[] = {
	NAME_COL,
	{ "Created At", "date", "", proxy_table_cols_age_description, 0,
	  c_created_at, NULL },
	TC_END,
};

const struct tc_col tc_rolebinding_cols[] = {
	NAME_COL,
	{ "Role", "string", "",
	  "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
	  0, tc_cell_kind_name, "roleRef" },
	AGE_COL,
	{ "Users", "string", "", "Users in the roleBinding", 1, c_subjects,
	  "User" },
	{ "Groups", "string", "", "Groups in the roleBinding", 1, c_subjects,
	  "Group" },
	{ "ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding",
	  1, c_subjects, "ServiceAccount" },
	TC_END,
};

const struct tc_col tc_clusterrolebinding_cols[] = {
	NAME_COL,
	{ "Role", "string", "",
	  "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
	  0, tc_cell_kind_name, "roleRef" },
	AGE_COL,
	{ "Users", "string", "", "Users in the clusterRoleBinding", 1,
	  c_subjects, "User" },
	{ "Groups", "string", "", "Groups in the clusterRoleBinding", 1,
	  c_subjects, "Group" },
	{ "ServiceAccounts", "string", "",
	  "ServiceAccounts in the clusterRoleBinding", 1, c_subjects,
	  "ServiceAccount" },
	TC_END,
};

const struct tc_col tc_priorityclass_cols[] = {
	NAME_COL,
	{ "Value", "integer", "",
	  "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
	  0, tc_cell_int, "value" },
	{ "Global-Default", "boolean", "",
	  "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
	  0, tc_cell_bool, "globalDefault" },
	AGE_COL,
	{ "PreemptionPolicy", "string", "",
	  "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
	  0, tc_cell_str, "preemptionPolicy" },
	TC_END,
};

const struct tc_col tc_node_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "The status of the node", 0, c_node_status,
	  NULL },
	{ "Roles", "string", "", "The roles of the node", 0, c_node_roles,
	  NULL },
	AGE_COL,
	{ "Version", "string", "", "Kubelet Version reported by the node.", 0,
	  tc_cell_str, "status.nodeInfo.kubeletVersion" },
	{ "Internal-IP", "string", "",
	  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
	  1, c_node_addr, "InternalIP" },
	{ "External-IP", "string", "",
	  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
	  1, c_node_addr, "ExternalIP" },
	{ "OS-Image", "string", "",
	  "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
	  1, c_str_or_unknown, "status.nodeInfo.osImage" },
	{ "Kernel-Version", "string", "",
	  "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
	  1, c_str_or_unknown, "status.nodeInfo.kernelVersion" },
	{ "Container-Runtime", "string", "",
	  "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
	  1, c_str_or_unknown, "status.nodeInfo.containerRuntimeVersion" },
	TC_END,
};
