/*
 * fake_auth: who a request is and what it may do, as kube-apiserver's
 * static token file and an RBAC-like rule list decide.
 *
 *   --users FILE   kube-apiserver's --token-auth-file format, one user a
 *                  line: token,user,uid[,"group1,group2"] (CSV; the
 *                  groups column optional, a single group may go
 *                  unquoted). Lines starting with # and blank lines are
 *                  skipped. Every authenticated user is also in
 *                  system:authenticated.
 *   --authz FILE   one rule a line: USER_OR_GROUP VERB RESOURCE NAMESPACE,
 *                  whitespace-separated; each column is * or a
 *                  comma-separated list. # starts a comment. A request is
 *                  allowed when one rule matches (details in fake_auth.c).
 *
 * The tokens of --token and --token-file (fake_tls) and a client
 * certificate from --client-ca stay super users: user "admin" in
 * system:masters, which every rule check allows, as the real apiserver's
 * privileged-group authorizer does.
 *
 * Both files are read once at start-up and never change after, so request
 * threads read them with no lock. Tokens are never logged.
 */
#ifndef FAKE_AUTH_H
#define FAKE_AUTH_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/buf.h"

#define FAKE_AUTH_MAX_GROUPS 16

/* An authenticated user; the strings belong to the users table (or are
 * static) and live until fake_auth_free(). */
struct fake_user {
	const char *name;
	const char *uid;
	const char *groups[FAKE_AUTH_MAX_GROUPS +
			   1]; /* incl. system:authenticated */
	int ngroups;
};

/* What a request asks to do: the apiserver's RequestInfo. */
struct fake_attrs {
	bool resource_request; /* else a non-resource path */
	const char *verb;      /* "get", "list", "watch", "create", ... */
	const char *group;     /* "" for the core group */
	const char *version;
	const char *resource;	 /* plural, "pods" */
	const char *subresource; /* "" or "log" */
	const char *ns;		 /* "" for cluster scope */
	const char *name;	 /* "" for a collection */
	const char *path;	 /* the URL path (non-resource requests) */
};

/* Load --users and --authz (either may be NULL). 0 or -errno with err
 * set; err never holds a token. */
int fake_auth_setup(const char *users_file, const char *authz_file, char *err,
		    size_t errlen);
void fake_auth_free(void);
/* Whether --users was given (then every API request must authenticate),
 * and whether --authz was. */
bool fake_auth_users_on(void);
bool fake_auth_authz_on(void);

/* The user a bearer token (n bytes, not NUL-terminated) names: a --users
 * entry or an admin token of fake_tls. False for an unknown token. */
bool fake_auth_token(const char *token, size_t n, struct fake_user *out);

/* Authenticate a request. 1: *out is the user; 0: no authentication is
 * configured, *out is system:anonymous (in system:unauthenticated);
 * -1: answer 401 (fake_reply_unauthorized). */
int fake_auth_request(struct MHD_Connection *c, struct fake_user *out);
enum MHD_Result fake_reply_unauthorized(struct MHD_Connection *c);

/* Fill a from a request as the apiserver's RequestInfoFactory does
 * (verb list/watch/deletecollection for collections, a fieldSelector's
 * metadata.name as the name). *scratch receives the memory a's strings
 * point into, with url and the connection's query: free it after. */
void fake_auth_attrs(struct MHD_Connection *c, const char *method,
		     const char *url, struct fake_attrs *a, char **scratch);

/* Whether user name with groups may do a. Without --authz everything is
 * allowed. When reason is not NULL it receives why (rule text) on allow,
 * or "" when no reason applies. */
bool fake_auth_allowed(const char *name, const char *const *groups, int ngroups,
		       const struct fake_attrs *a, struct buf *reason);

/* The apiserver's 403 for user u and a:
 *   pods is forbidden: User "alice" cannot list resource "pods" in API
 *   group "" in the namespace "ns-2"
 * reason Forbidden, details {name?, group?, kind: resource}. */
enum MHD_Result fake_reply_forbidden(struct MHD_Connection *c, const char *user,
				     const struct fake_attrs *a);

/* fake_review.c: POST /apis/authentication.k8s.io/v1/tokenreviews and
 * /apis/authorization.k8s.io/v1/subjectaccessreviews; false when url is
 * neither. Counters for /fake/stats. */
struct fake_req;
bool fake_review_serve(struct fake_req *rq, const char *url,
		       enum MHD_Result *ret);
unsigned long fake_review_token_count(void);
unsigned long fake_review_sar_count(void);

#endif
