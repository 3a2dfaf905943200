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
 * --authn-deny-ttl (so one bad token costs one review per that time, as
 * the apiserver's webhook authenticator caches too). Those are upper
 * bounds: revoke.h watches what decides access and calls
 * proxy_authn_forget() on every change, which makes every cached
 * decision a miss at once. The attributes are the apiserver's
 * (reqinfo.h), and the bearer token is read as it reads it. Each cache is a
 * fixed table (a newer entry replaces the one in its slot), so memory
 * stays bounded whatever the tokens; a token review that denied is kept
 * in a table of its own, and a denied access review never replaces a
 * live allowed one, so no stream of bad tokens evicts a good one. A
 * token is never logged and never kept: only its hash is.
 *
 * Threads: made, stopped and freed by main (proxy_server_start(),
 * proxy_server_stop()). Decisions are asked for on libmicrohttpd request
 * threads; each table has one mutex, held for a slot copy. A miss never
 * blocks a request thread: proxy_authn_start() suspends the connection
 * and one of four reviewer threads asks the upstream (each over a
 * connection it keeps), then resumes it. Requests wait in two queues: a
 * token some review accepted (KNOWN, at most 256 waiting) and any other
 * (STRANGER, at most 64, on at most two reviewers at once; the known
 * queue goes first). A client address may start --authn-source-reviews
 * strangers' reviews a second (twice that in a burst) and have 8 waiting;
 * past any of these, 429. A client spraying unknown tokens therefore
 * cannot stall known users, nor make the upstream review more than its
 * budget.
 *
 * Ownership: struct proxy owns the struct proxy_authn. A struct
 * proxy_authn_job is shared by its request and a reviewer until one of
 * proxy_authn_finish() and proxy_authn_abandon() gives it up; see
 * there.
 */
#ifndef PROXY_AUTHN_H
#define PROXY_AUTHN_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "cache/upstream.h"

struct proxy_authn;

/* What is asked; every string non-NULL ("" when absent). */
struct proxy_authn_attrs {
	bool resource; /* a resource request; else path + verb */
	const char *verb;
	const char *group, *version, *res, *sub, *ns, *name;
	const char *path; /* for a non-resource request */
};

enum proxy_authn_verdict {
	PROXY_AUTHN_ALLOWED,
	PROXY_AUTHN_UNAUTHENTICATED, /* 401 */
	PROXY_AUTHN_FORBIDDEN,	     /* 403, msg is the apiserver's message */
	PROXY_AUTHN_UNAVAILABLE,     /* the upstream could not be asked: 503 */
	PROXY_AUTHN_MISS,	     /* not in the caches: start a review */
};

struct proxy_authn_job;

/* Start the reviewer threads, which ask the upstream with a copy of
 * up's settings, each over one connection it keeps (source_rate:
 * --authn-source-reviews) (its token bucket left out: a review stands for a
 * client's request); up's credentials are borrowed and must outlive a.
 * Main thread. NULL when out of memory or no thread starts; else free
 * with proxy_authn_free(). */
struct proxy_authn *proxy_authn_new(const struct cache_upstream *up,
				    int allow_ttl_s, int deny_ttl_s,
				    int source_rate);
/* Finish every review (queued ones as PROXY_AUTHN_UNAVAILABLE, their
 * connections resumed), refuse new ones, and join the reviewers. Main
 * thread, before the HTTP daemon stops, which needs no connection
 * suspended. NULL is fine; calling it again does nothing. */
void proxy_authn_stop(struct proxy_authn *a);
/* Main thread, after the HTTP daemon has stopped; stops a first if need
 * be. NULL is fine. */
void proxy_authn_free(struct proxy_authn *a);

/*
 * Decide a request carrying the Authorization header value authz (NULL
 * when none) from the caches; only authenticates when at is NULL. Never
 * blocks: PROXY_AUTHN_MISS means a review is needed (proxy_authn_start). On
 * PROXY_AUTHN_FORBIDDEN, msg holds the apiserver's message ("pods is
 * forbidden: User ...") and details the Status details' JSON; both are
 * the caller's buffers. Any thread (a request thread).
 */
enum proxy_authn_verdict proxy_authn_cached(struct proxy_authn *a,
					    const char *authz,
					    const struct proxy_authn_attrs *at,
					    char *msg, size_t msglen,
					    char *details, size_t dlen);

/*
 * Review a miss on a reviewer thread: suspends c (call from its access
 * handler, on its request thread); the reviewer resumes it once the
 * verdict is in, and the access handler's next call for the request
 * takes it with proxy_authn_finish(). The job copies what it needs from
 * authz and at. NULL when too many requests already wait for one (answer
 * 429), the proxy is stopping, or out of memory; c is then not
 * suspended.
 */
struct proxy_authn_job *proxy_authn_start(struct proxy_authn *a,
					  struct MHD_Connection *c,
					  const char *authz,
					  const struct proxy_authn_attrs *at);
/* After the resume, on c's request thread: the verdict (as
 * proxy_authn_cached's, PROXY_AUTHN_UNAVAILABLE when the review was cut
 * short by a stop), and j freed. */
enum proxy_authn_verdict proxy_authn_finish(struct proxy_authn *a,
					    struct proxy_authn_job *j,
					    char *msg, size_t msglen,
					    char *details, size_t dlen);
/* The user name a review accepted the token in authz (NULL: none) for,
 * into out, the caller's buffer; "" when no review did (or its entry
 * was since replaced). For the access log; any thread. */
void proxy_authn_user(struct proxy_authn *a, const char *authz, char *out,
		      size_t len);
/* Something that decides access changed upstream (revoke.h): every
 * cached decision is a miss from now on, and so is a review that was
 * under way; with service_accounts (a ServiceAccount changed), so is
 * every cached token review of a service account's user
 * (system:serviceaccount:NS:NAME). Any thread; never blocks. NULL is
 * fine. */
void proxy_authn_forget(struct proxy_authn *a, bool service_accounts);
/* The bearer token in the Authorization value authz, as the apiserver
 * reads it: the value trimmed of white space, "Bearer" in any case, one
 * space, then the token up to the next space. *tok points into authz.
 * False when it carries none ("Bearer  TOKEN" with two spaces, a tab,
 * "Bearer" alone: anonymous to the apiserver), or the token is longer
 * than 8192 bytes. Pure; any thread. */
bool proxy_authn_token_of(const char *authz, const char **tok, size_t *tlen);
/* The request ended before proxy_authn_finish() (its request-completed
 * callback): j is freed here if its review is over, else by the reviewer
 * when it is; the caller must not touch j again either way. */
void proxy_authn_abandon(struct proxy_authn *a, struct proxy_authn_job *j);

#endif
