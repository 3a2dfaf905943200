/*
 * fake_rbac: RBAC's decision from the RBAC objects in the store (see
 * fake_rbac.h).
 */
#include "fake_rbac.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fake_res.h"
#include "fake_store.h"

#define SA_PREFIX "system:serviceaccount:"

struct ask {
	const char *user;
	const char *const *groups;
	int ngroups;
	const struct fake_attrs *a;
	int role_res, crole_res;
	struct buf *reason;
	bool allowed;
};

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* Whether array arr holds v, or "*" when star. */
static bool has(json_t *arr, const char *v, bool star)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		const char *s = json_string_value(e);
		if (s && (!strcmp(s, v) || (star && !strcmp(s, "*"))))
			return true;
	}
	return false;
}

static bool resource_match(json_t *resources, const struct fake_attrs *a)
{
	char combined[256];
	size_t i;
	json_t *e;
	snprintf(combined, sizeof(combined), "%s%s%s", a->resource,
		 *a->subresource ? "/" : "", a->subresource);
	json_array_foreach(resources, i, e)
	{
		const char *s = json_string_value(e);
		if (!s)
			continue;
		if (!strcmp(s, "*") || !strcmp(s, combined))
			return true;
		if (*a->subresource && !strncmp(s, "*/", 2) &&
		    !strcmp(s + 2, a->subresource))
			return true;
	}
	return false;
}

static bool url_match(json_t *urls, const char *path)
{
	size_t i;
	json_t *e;
	json_array_foreach(urls, i, e)
	{
		const char *s = json_string_value(e);
		size_t n = s ? strlen(s) : 0;
		if (!s)
			continue;
		if (!strcmp(s, "*") || !strcmp(s, path))
			return true;
		if (n && s[n - 1] == '*' && !strncmp(path, s, n - 1))
			return true;
	}
	return false;
}

static bool rule_match(json_t *r, const struct fake_attrs *a)
{
	if (!has(json_object_get(r, "verbs"), a->verb, true))
		return false;
	if (!a->resource_request)
		return url_match(json_object_get(r, "nonResourceURLs"),
				 a->path);
	json_t *names = json_object_get(r, "resourceNames");
	return has(json_object_get(r, "apiGroups"), a->group, true) &&
	       resource_match(json_object_get(r, "resources"), a) &&
	       (json_array_size(names) == 0 || has(names, a->name, false));
}

/* The subject of binding b (in namespace bns) that is the asker, written
 * into who as RBAC names it; NULL when none is. */
static const char *subject_of(json_t *b, const char *bns, const struct ask *q,
			      char *who, size_t cap)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(b, "subjects"), i, s)
	{
		const char *kind = str(s, "kind"), *name = str(s, "name");
		if (!strcmp(kind, "User") && !strcmp(name, q->user)) {
			snprintf(who, cap, "User \"%s\"", name);
			return who;
		}
		if (!strcmp(kind, "Group"))
			for (int g = 0; g < q->ngroups; g++)
				if (!strcmp(q->groups[g], name)) {
					snprintf(who, cap, "Group \"%s\"",
						 name);
					return who;
				}
		if (!strcmp(kind, "ServiceAccount")) {
			const char *ns = str(s, "namespace");
			char sa[600];
			snprintf(sa, sizeof(sa), SA_PREFIX "%s:%s",
				 *ns ? ns : bns, name);
			if (!strcmp(sa, q->user)) {
				snprintf(who, cap, "ServiceAccount \"%s/%s\"",
					 name, *ns ? ns : bns);
				return who;
			}
		}
	}
	return NULL;
}

/* The rules of the role a binding refers to (in namespace ns for a
 * Role); a new reference, or NULL. Read lock held. */
static json_t *role_of(const struct ask *q, json_t *ref, const char *ns)
{
	const char *kind = str(ref, "kind");
	bool cluster = !strcmp(kind, "ClusterRole");
	if (!cluster && strcmp(kind, "Role"))
		return NULL;
	int res = cluster ? q->crole_res : q->role_res;
	struct fake_obj *o = res < 0 ? NULL :
				       fake_store_lookup(res, cluster ? "" : ns,
							 str(ref, "name"));
	return o ? json_loadb(o->json, o->len, 0, NULL) : NULL;
}

/* One binding: does it grant the ask? Read lock held. */
static bool visit(void *ctx, struct fake_obj *o)
{
	struct ask *q = ctx;
	json_t *b = json_loadb(o->json, o->len, 0, NULL);
	char who[700];
	const char *bns = o->ns;
	json_t *ref = json_object_get(b, "roleRef");
	if (b && subject_of(b, bns, q, who, sizeof(who))) {
		json_t *role = role_of(q, ref, bns);
		size_t i;
		json_t *r;
		json_array_foreach(json_object_get(role, "rules"), i, r)
		{
			if (!rule_match(r, q->a))
				continue;
			q->allowed = true;
			if (q->reason && *bns)
				buf_printf(q->reason,
					   "RBAC: allowed by RoleBinding "
					   "\"%s/%s\" of %s \"%s\" to %s",
					   o->name, bns, str(ref, "kind"),
					   str(ref, "name"), who);
			else if (q->reason)
				buf_printf(
					q->reason,
					"RBAC: allowed by ClusterRoleBinding "
					"\"%s\" of %s \"%s\" to %s",
					o->name, str(ref, "kind"),
					str(ref, "name"), who);
			break;
		}
		json_decref(role);
	}
	json_decref(b);
	return !q->allowed;
}

bool fake_rbac_allowed(const char *user, const char *const *groups, int ngroups,
		       const struct fake_attrs *a, struct buf *reason)
{
	int crb =
		fake_res_find("clusterrolebindings.rbac.authorization.k8s.io");
	int rb = fake_res_find("rolebindings.rbac.authorization.k8s.io");
	struct ask q = {
		.user = user,
		.groups = groups,
		.ngroups = ngroups,
		.a = a,
		.role_res = fake_res_find("roles.rbac.authorization.k8s.io"),
		.crole_res =
			fake_res_find("clusterroles.rbac.authorization.k8s.io"),
		.reason = reason,
	};
	if (crb < 0 && rb < 0)
		return false;
	fake_store_rdlock();
	uint64_t now = fake_store_rv();
	if (crb >= 0)
		fake_store_scan(crb, now, NULL, NULL, NULL, visit, &q);
	/* a RoleBinding grants in its own namespace only */
	if (!q.allowed && rb >= 0 && a->resource_request && *a->ns)
		fake_store_scan(rb, now, a->ns, NULL, NULL, visit, &q);
	fake_store_rdunlock();
	return q.allowed;
}

bool fake_rbac_sa_alive(const char *user)
{
	int res = fake_res_find("serviceaccounts");
	size_t pl = strlen(SA_PREFIX);
	if (res < 0 || strncmp(user, SA_PREFIX, pl))
		return true;
	char ns[256];
	const char *name = strchr(user + pl, ':');
	size_t n = name ? (size_t)(name - (user + pl)) : 0;
	if (!name || !n || n >= sizeof(ns))
		return false;
	memcpy(ns, user + pl, n);
	ns[n] = '\0';
	fake_store_rdlock();
	bool alive = fake_store_lookup(res, ns, name + 1) != NULL;
	fake_store_rdunlock();
	return alive;
}
