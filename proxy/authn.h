/*
 * authn: --client-auth=delegated, authentication and authorization of
 * every client by the upstream, as kube-rbac-proxy and the apiserver's
 * delegated auth do.
 *
 * A client's bearer token is checked with a TokenReview
 * (authentication.k8s.io/v1), and a request the cache answers with a
 * SubjectAccessReview (authorization.k8s.io/v1) of its attributes: verb
 * (get, list, watch as the apiserver maps them), API group, resource,
 * subresource, namespace and name. A cluster-wide LIST or WATCH therefore
 * needs a cluster-wide grant, exactly as the apiserver decides. Both
 * reviews are made with the proxy's own credentials. A request passed
 * through is forwarded with the client's own token, and the upstream
 * authorizes it itself. Discovery paths need only authentication, as the
 * apiserver's default system:discovery binding gives every authenticated
 * user.
 *
 * Decisions are cached by a SHA-256 of the token (and of the attributes
 * for authorization): allowed for --authn-allow-ttl seconds, denied for
 * --authn-deny-ttl. Each cache is a fixed table (a newer entry replaces
 * the one in its slot), so memory stays bounded whatever the tokens.
 * A token is never logged and never kept: only its hash is.
 *
 * Threads: any request thread; each table has one mutex, held for a slot
 * copy. A miss makes a blocking review upstream on the calling thread.
 */
#ifndef PROXY_AUTHN_H
#define PROXY_AUTHN_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/upstream.h"

struct proxy_authn;

/* What is asked; every string non-NULL ("" when absent). */
struct authn_attrs {
	bool resource;		/* a resource request; else path + verb */
	const char *verb;
	const char *group, *version, *res, *sub, *ns, *name;
	const char *path;	/* for a non-resource request */
};

enum authn_verdict {
	AUTHN_ALLOWED,
	AUTHN_UNAUTHENTICATED,	/* 401 */
	AUTHN_FORBIDDEN,	/* 403, msg is the apiserver's message */
	AUTHN_UNAVAILABLE,	/* the upstream could not be asked: 503 */
};

struct proxy_authn *proxy_authn_new(const struct cache_upstream *up,
				    int allow_ttl_s, int deny_ttl_s);
void proxy_authn_free(struct proxy_authn *a);

/*
 * Decide a request carrying the Authorization header value authz (NULL
 * when none). Only authenticates when at is NULL. On AUTHN_FORBIDDEN, msg
 * holds the apiserver's message ("pods is forbidden: User ..."). Blocking
 * on a cache miss.
 */
enum authn_verdict proxy_authn_check(struct proxy_authn *a, const char *authz,
				     const struct authn_attrs *at, char *msg,
				     size_t msglen);

#endif
