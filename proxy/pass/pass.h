/*
 * passthrough: forward what the cache does not serve to the upstream.
 *
 * Writes, subresources, uncached resources, /openapi and anything else go
 * to the apiserver through libcurl, driven by one thread running a curl
 * multi handle. The response streams back as it arrives (a watch of an
 * uncached resource included): status, headers and body are passed on as
 * they are. A client's own Authorization is forwarded alone (no proxy
 * token, no proxy client certificate); see proxy_pass_pool_new() for a
 * client that sent none. Request bodies are read
 * whole first (the apiserver caps them at 3 MiB too).
 *
 * Flow control: a connection with nothing to send is suspended until
 * upstream bytes arrive; an upstream that outruns its client is paused
 * until the client drains, so memory per request stays bounded.
 */
#ifndef PROXY_PASS_H
#define PROXY_PASS_H

#include <microhttpd.h>

#include "cache/upstream.h"

struct proxy_pass_pool;
struct proxy_pass;

/* lend_identity: a client that sent no credentials is forwarded with the
 * proxy's (the loopback-only --client-auth=none mode); otherwise it goes
 * anonymous. A client's own credentials always go alone. */
struct proxy_pass_pool *proxy_pass_pool_new(const struct cache_upstream *up,
					    bool lend_identity, int timeout_s);
/* End every transfer (their clients are resumed and see the stream end)
 * and stop the thread; call before the HTTP daemon stops. */
void proxy_pass_pool_stop(struct proxy_pass_pool *pool);
/* After the HTTP daemon has stopped. */
void proxy_pass_pool_free(struct proxy_pass_pool *pool);

/*
 * Drive one forwarded request from the access handler. target is the
 * request target as received, checked by proxy_target_check(); it is
 * appended to the upstream's base URL unchanged. *state belongs to
 * passthrough once it is set; call this on every invocation of the
 * access handler for the request, and proxy_pass_done() from the
 * request-completed callback.
 */
enum MHD_Result proxy_pass_handle(struct proxy_pass_pool *pool,
				  struct MHD_Connection *c, const char *target,
				  const char *method, const char *upload,
				  size_t *upload_size,
				  struct proxy_pass **state);
void proxy_pass_done(struct proxy_pass *pt);

/* The apiserver's verb of a request (CONFIG_VERB_*): from the method,
 * whether the target names an object, and whether it asks for a watch
 * (?watch= read from c's query, or the /watch/ prefix; c may be NULL). */
int proxy_pass_verb(const char *target, const char *method,
		    struct MHD_Connection *c);

#endif
