/*
 * health: /healthz, /livez, /readyz and /readyz/upstream in the
 * apiserver's plain-text form.
 *
 * /healthz and /livez: the process answers. /readyz: every cached
 * resource has synced once and the proxy is not shutting down; an
 * upstream outage does not fail it, because the cache keeps serving.
 * /readyz/upstream: the same, and each resource's upstream answering or
 * failing for no longer than --upstream-grace. With ?verbose each lists
 * its checks as "[+]name ok" / "[-]name failed: why", one per line,
 * then "<endpoint> check passed|failed", as the apiserver does; a failure
 * without ?verbose lists them with the reasons withheld. ?exclude=NAME
 * (repeatable) leaves the check NAME out. /livez/NAME, /healthz/NAME and
 * /readyz/NAME answer one check: 200 "ok", or 500 "internal server
 * error: why"; 404 (a Status) for a name the endpoint does not have.
 * The checks: ping (every endpoint); shutdown, informer-sync-RES and
 * upstream-RES (the readyz ones; RES is resource[.group][-namespace]).
 *
 * Threads: the libmicrohttpd pool thread serving c (dispatch.c's access
 * handler); never suspends. Reads each reflector's state with atomic
 * loads; the answer is a copied text body, queued here.
 */
#ifndef PROXY_HEALTH_H
#define PROXY_HEALTH_H

#include "proxy/request.h"

/* True for the probe paths this module answers. */
bool proxy_health_path(const char *url);
/* Answer the probe path url (proxy_health_path(url) must hold). */
enum MHD_Result proxy_health_handle(struct proxy *p, struct MHD_Connection *c,
				    const char *url);

#endif
