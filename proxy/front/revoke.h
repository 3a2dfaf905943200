/*
 * revoke: delegated auth forgets a revoked grant in seconds, not when its
 * cached decision expires.
 *
 * With the proxy's own credentials it watches what decides access:
 * Roles, RoleBindings, ClusterRoles, ClusterRoleBindings
 * (rbac.authorization.k8s.io/v1) and ServiceAccounts, each with a
 * reflector of its own (cache/reflector.h), cluster-wide. Any change to
 * them (an event, a relist) drops every cached decision
 * (proxy_authn_forget()); a change to a ServiceAccount drops the token
 * reviews of service accounts too, so that the token of a deleted one is
 * reviewed again, and refused. A grant is then forgotten as soon as the
 * upstream's watch tells of its change: about as fast as the apiserver
 * itself applies it. The TTLs (--authn-allow-ttl, --authn-deny-ttl) stay
 * the upper bound: for a kind the proxy may not watch (401, 403 or 404
 * on its list) it says so once at start-up, in one log line, stops that
 * kind's reflector (retries would fail alike, and cost the upstream),
 * and decisions live out their TTLs.
 *
 * Threads: made, stopped and freed by the main thread
 * (proxy_server_start(), proxy_server_stop(), proxy_server_release());
 * the reflectors tell it of changes on their own threads, and one thread
 * watches the first sync to say what may not be watched.
 */
#ifndef PROXY_FRONT_REVOKE_H
#define PROXY_FRONT_REVOKE_H

#include "cache/upstream.h"
#include "proxy/front/authn.h"

struct proxy_revoke;

/* Start watching with up's settings and credentials (borrowed: they
 * must outlive r), telling a (which must outlive r). NULL when out of
 * memory or a thread does not start (then the TTLs alone apply, and
 * it was logged). */
struct proxy_revoke *proxy_revoke_start(const struct cache_upstream *up,
					struct proxy_authn *a);
/* Stop the reflectors and the thread, and join them. NULL is fine;
 * calling it again does nothing. */
void proxy_revoke_stop(struct proxy_revoke *r);
/* Stop if need be, then free; after the HTTP daemon has stopped. NULL
 * is fine. */
void proxy_revoke_free(struct proxy_revoke *r);

#endif
