/*
 * fake_rbac: authorization by the RBAC objects written to the fake like
 * any other object (Role, ClusterRole, RoleBinding, ClusterRoleBinding
 * in rbac.authorization.k8s.io/v1, served with --all-kinds), and the
 * ServiceAccounts behind service-account users.
 *
 * RBAC's semantics: a binding's subjects (User by name, Group by name,
 * ServiceAccount by namespace and name, that is the user
 * system:serviceaccount:NS:NAME) get the rules of its roleRef. A
 * ClusterRoleBinding grants its ClusterRole everywhere, cluster scope
 * included; a RoleBinding grants its Role, or a ClusterRole, in its own
 * namespace only. A rule matches when its verbs, apiGroups and resources
 * (res, res/sub, * and * /sub; written with no space) hold the request's,
 * and its resourceNames, when it has any, hold the request's name (so a
 * LIST with no name never matches them); a non-resource request matches
 * nonResourceURLs (exact, or a prefix ending in *). RBAC only allows.
 *
 * Any request thread; each call takes the store's read lock (none may
 * be held).
 */
#ifndef FAKE_RBAC_H
#define FAKE_RBAC_H

#include <stdbool.h>

#include "config/buf.h"
#include "fake_auth.h"

/* Whether the store's RBAC objects allow user (with groups) a. reason
 * (NULL: not wanted) gets RBAC's words for the grant, e.g.
 * RBAC: allowed by RoleBinding "rb/ns-1" of Role "reader" to User "alice". */
bool fake_rbac_allowed(const char *user, const char *const *groups, int ngroups,
		       const struct fake_attrs *a, struct buf *reason);

/* Whether a user name system:serviceaccount:NS:NAME still has its
 * ServiceAccount: false when the fake serves serviceaccounts and NS/NAME
 * is not there (its tokens then authenticate no more); true for any
 * other name. */
bool fake_rbac_sa_alive(const char *user);

#endif
